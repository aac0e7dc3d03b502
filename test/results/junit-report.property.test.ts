import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TestStatus } from '../../src/gate/report.js';
import { DEFAULT_JUNIT_LIMITS, parseJUnit, type JUnitCase } from '../../src/results/junit-report.js';

const PYTEST_REPORT = readFileSync(new URL('./fixtures/pytest-7.2.xml', import.meta.url));

function cases(input: string | Buffer, limits = DEFAULT_JUNIT_LIMITS): JUnitCase[] {
  const parsed = parseJUnit(input, limits);
  if (!parsed.ok) throw new Error(`refused: ${parsed.error}`);
  return parsed.cases;
}

function refusal(input: string | Buffer, limits = DEFAULT_JUNIT_LIMITS): string {
  const parsed = parseJUnit(input, limits);
  if (parsed.ok) throw new Error('accepted');
  return parsed.error;
}

// --- a generator of reports, with the text a hostile test run could put in names and messages ---

/** Characters XML 1.0 allows (no C0 controls but tab/LF/CR, no lone surrogates, no U+FFFE/FFFF). */
function xmlSafe(s: string): boolean {
  // eslint-disable-next-line no-control-regex
  return s.isWellFormed() && !/[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]/.test(s);
}

const hostile = fc.constantFrom(
  '<',
  '>',
  '&',
  '"',
  "'",
  ']]>',
  '&amp;',
  '::',
  '<!--',
  '<![CDATA[',
  '\t',
  'é',
  '\u{1F600}',
);
const text = fc
  .array(fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), hostile), { maxLength: 6 })
  .map((parts) => parts.join(''))
  .filter(xmlSafe);
/** Names: no line breaks, since IDs with them are refused by design (tested separately). */
const name = text.filter((s) => !/[\r\n]/.test(s));

interface GenCase {
  classname: string;
  name: string;
  file: string;
  outcome: TestStatus;
  messageAttr: string;
  body: string;
  cdata: boolean;
}

const genCase = fc.record({
  classname: fc.oneof(name, fc.constant('')),
  name,
  file: name,
  outcome: fc.constantFrom<TestStatus>('passed', 'failed', 'error', 'skipped'),
  messageAttr: text,
  body: text,
  cdata: fc.boolean(),
});

function attr(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll('\t', '&#9;')
    .replaceAll('\n', '&#10;')
    .replaceAll('\r', '&#13;');
}

function content(value: string, cdata: boolean): string {
  if (cdata && !value.includes('\r')) return `<![CDATA[${value.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('\r', '&#13;');
}

const ELEMENT: Record<TestStatus, string> = {
  passed: '',
  failed: 'failure',
  error: 'error',
  skipped: 'skipped',
};

function serialize(suites: GenCase[][]): string {
  const body = suites
    .map((suite) => {
      const testcases = suite
        .map((c) => {
          const open = `<testcase classname="${attr(c.classname)}" name="${attr(c.name)}" file="${attr(c.file)}" time="0.01"`;
          if (c.outcome === 'passed')
            return `${open}><system-out>${content(c.body, c.cdata)}</system-out></testcase>`;
          const el = ELEMENT[c.outcome];
          return `${open}><${el} message="${attr(c.messageAttr)}">${content(c.body, c.cdata)}</${el}></testcase>`;
        })
        .join('\n');
      return `<testsuite name="s" tests="${suite.length}">${testcases}</testsuite>`;
    })
    .join('');
  return `<?xml version="1.0" encoding="utf-8"?>\n<testsuites>${body}</testsuites>`;
}

function expectedMessage(c: GenCase): string | undefined {
  if (c.outcome === 'passed') return undefined;
  const parts = [c.messageAttr, c.body.trim()].filter((p) => p !== '');
  return parts.length > 0 ? parts.join('\n') : undefined;
}

describe('parseJUnit', () => {
  it('gives back every generated test, in order, with its ID, status and message', () => {
    fc.assert(
      fc.property(fc.array(fc.array(genCase, { maxLength: 5 }), { minLength: 1, maxLength: 3 }), (suites) => {
        const parsed = cases(serialize(suites));
        const flat = suites.flat();
        expect(parsed.map((c) => c.id)).toEqual(
          flat.map((c) => (c.classname !== '' ? `${c.classname}::${c.name}` : `${c.file}::${c.name}`)),
        );
        expect(parsed.map((c) => c.status)).toEqual(flat.map((c) => c.outcome));
        parsed.forEach((c, i) => {
          const want = expectedMessage(flat[i] as GenCase);
          if (want === undefined || want.length <= DEFAULT_JUNIT_LIMITS.maxMessageChars)
            expect(c.message).toBe(want);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('never throws, whatever text or bytes it is given', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary' }),
          fc.uint8Array().map((a) => Buffer.from(a)),
        ),
        (input) => {
          const parsed = parseJUnit(input);
          expect(typeof parsed.ok).toBe('boolean');
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('never throws on a real report cut or corrupted at any point', () => {
    const text = PYTEST_REPORT.toString('utf8');
    fc.assert(
      fc.property(fc.nat(text.length), fc.nat(text.length), fc.string({ maxLength: 3 }), (cut, at, junk) => {
        expect(typeof parseJUnit(text.slice(0, cut)).ok).toBe('boolean');
        expect(typeof parseJUnit(text.slice(0, at) + junk + text.slice(at)).ok).toBe('boolean');
      }),
      { numRuns: 500 },
    );
  });

  it('reads a real pytest 7.2 report: IDs, outcomes, messages', () => {
    const parsed = cases(PYTEST_REPORT);
    expect(parsed.map((c) => [c.id, c.status])).toEqual([
      ['test_sample::test_pass', 'passed'],
      ['test_sample::test_fail', 'failed'],
      ['test_sample::test_skip', 'skipped'],
      ['test_sample::test_xfail', 'skipped'],
      ['test_sample::test_error', 'error'],
      ['test_sample::test_param[a::b]', 'passed'],
      ['test_sample::test_param[\\xfc\\x1b[31m]', 'passed'],
      ['test_sample::test_param[x]]>y]', 'passed'],
      ['test_sample.TestGroup::test_method', 'passed'],
    ]);
    expect(parsed[1]?.message).toContain('AssertionError: math <is> & "hard"\nassert (1 + 1) == 3');
    expect(parsed[4]?.message).toContain('RuntimeError: fixture broke');
  });

  it('uses <file>::<name> where the classname is empty, and reads file and line', () => {
    const xml = '<testsuite><testcase classname="" name="t" file="tests/a.py" line="12"/></testsuite>';
    expect(cases(xml)).toEqual([
      { id: 'tests/a.py::t', classname: '', name: 't', file: 'tests/a.py', line: 12, status: 'passed' },
    ]);
  });

  it('takes the worst outcome when a testcase holds several', () => {
    const xml =
      '<testsuite><testcase classname="c" name="t"><skipped/><failure/><error/><failure/></testcase></testsuite>';
    expect(cases(xml)[0]?.status).toBe('error');
  });

  it('accepts a byte-order mark and an explicit UTF-8 declaration', () => {
    const xml =
      '\uFEFF<?xml version="1.0" encoding="UTF-8"?><testsuites><testsuite><testcase classname="c" name="é"/></testsuite></testsuites>';
    expect(cases(Buffer.from(xml, 'utf8'))[0]?.id).toBe('c::é');
  });

  describe('refuses rather than guesses', () => {
    it('a DOCTYPE, so no entity is ever declared, let alone expanded (billion laughs)', () => {
      const bomb = [
        '<?xml version="1.0"?>',
        '<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">',
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>',
        '<testsuite><testcase classname="c" name="&lol3;"/></testsuite>',
      ].join('\n');
      expect(refusal(bomb)).toMatch(/DOCTYPE/);
    });

    it('an external entity (XXE)', () => {
      const xxe =
        '<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]><testsuite><testcase classname="c" name="&x;"/></testsuite>';
      expect(refusal(xxe)).toMatch(/DOCTYPE/);
    });

    it('an entity that XML does not predefine', () => {
      expect(refusal('<testsuite><testcase classname="c" name="&nbsp;"/></testsuite>')).toMatch(
        /undefined entity/,
      );
    });

    it('a character reference to a character XML forbids', () => {
      expect(refusal('<testsuite><testcase classname="c" name="&#0;"/></testsuite>')).toMatch(
        /not well-formed/,
      );
      expect(refusal('<testsuite><testcase classname="c" name="&#xD800;"/></testsuite>')).toMatch(
        /not well-formed/,
      );
    });

    it('a test ID with a line break, which would corrupt tests_hash', () => {
      expect(refusal('<testsuite><testcase classname="c" name="a&#10;b"/></testsuite>')).toMatch(
        /line break/,
      );
      expect(refusal('<testsuite><testcase classname="c&#13;" name="a"/></testsuite>')).toMatch(/line break/);
    });

    it('bytes that are not UTF-8, and other declared encodings', () => {
      expect(refusal(Buffer.from([0x3c, 0x74, 0xff, 0x3e]))).toMatch(/UTF-8/);
      expect(refusal('<?xml version="1.0" encoding="ISO-8859-1"?><testsuite/>')).toMatch(/encoding/);
    });

    it('past the size cap, the test-count cap and the depth cap', () => {
      const limits = { ...DEFAULT_JUNIT_LIMITS, maxBytes: 200, maxCases: 2, maxDepth: 4 };
      expect(refusal(`<testsuite>${' '.repeat(300)}</testsuite>`, limits)).toMatch(/larger than 200 bytes/);
      const three = '<testsuite><testcase name="a"/><testcase name="b"/><testcase name="c"/></testsuite>';
      expect(refusal(three, limits)).toMatch(/more than 2 tests/);
      expect(
        refusal('<testsuite><testcase name="a"><x><y><z/></y></x></testcase></testsuite>', limits),
      ).toMatch(/deeper/);
    });

    it('a report that is not a test report, or a testcase out of place', () => {
      expect(refusal('<html><testsuite/></html>')).toMatch(/root element/);
      expect(refusal('<testsuites><testcase name="a"/></testsuites>')).toMatch(/outside a <testsuite>/);
      expect(refusal('<testsuite><testcase classname="c"/></testsuite>')).toMatch(/without a name/);
      expect(refusal('<testsuite><testcase name="a"><testcase name="b"/></testcase></testsuite>')).toMatch(
        /outside a <testsuite>/,
      );
    });

    it('text that is not well-formed XML', () => {
      expect(refusal('<testsuite><testcase name="a"></testsuite>')).toMatch(/not well-formed/);
      expect(refusal('<testsuite/><testsuite/>')).toMatch(/not well-formed/);
      expect(refusal('')).toMatch(/not well-formed|ends before/);
    });
  });

  it('cuts long messages instead of keeping them whole', () => {
    const long = 'x'.repeat(10_000);
    const xml = `<testsuite><testcase classname="c" name="t"><failure message="m">${long}</failure></testcase></testsuite>`;
    const message = cases(xml)[0]?.message ?? '';
    expect(message.length).toBeLessThan(DEFAULT_JUNIT_LIMITS.maxMessageChars + 20);
    expect(message.endsWith('[cut]')).toBe(true);
  });
});
