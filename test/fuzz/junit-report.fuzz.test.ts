import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_EXIT } from '../../src/container/harness-protocol.js';
import type { GateMode } from '../../src/gate/report.js';
import { judgeRun, type ReportRead, type RunEvidence } from '../../src/results/judge-run.js';
import { DEFAULT_JUNIT_LIMITS, parseJUnit, type JUnitParse } from '../../src/results/junit-report.js';
import { readSuiteReports } from '../../src/results/read-reports.js';
import { tempDirs } from '../gate/helpers.js';
import { fuzz, fuzzAsync, guard, guardAsync, numRuns, testTimeout } from './budget.js';
import { b64, mutatedSeed, randomInput } from './mutations.js';

/**
 * The JUnit reader (src/results/junit-report.ts) and the judgement over what it returns
 * (src/results/judge-run.ts). Every byte of a report may be written by PR code. Seeds are a real
 * pytest 7.2 report, the same report with only its passing tests, and a hand-written one with
 * nested suites, CDATA and file attributes; mutations splice in XML's own syntax (DOCTYPEs,
 * entities, character references, CDATA, comments, declarations). The reference for what a report
 * says is a second XML parser: Python's expat, driven by the same reading rules.
 */

const TARGET = 'JUnit report';
const PYTEST = readFileSync(new URL('../results/fixtures/pytest-7.2.xml', import.meta.url));

function onlyPassing(report: Buffer): Buffer {
  const text = report.toString('utf8');
  return Buffer.from(
    text.replace(/<testcase\b[^>]*?(?:\/>|>[\s\S]*?<\/testcase>)/g, (tc) =>
      /<(failure|error|skipped)\b/.test(tc) ? '' : tc,
    ),
    'utf8',
  );
}

const HANDWRITTEN = Buffer.from(
  [
    '\uFEFF<?xml version="1.0" encoding="UTF-8"?>',
    '<testsuites name="all">',
    '  <testsuite name="outer" tests="3">',
    '    <properties><property name="python" value="3.11"/></properties>',
    '    <testsuite name="inner">',
    "      <testcase classname='' name='test_a' file='tests/a.py' line='3'/>",
    '      <testcase classname="pkg.mod" name="test_b[x&amp;y]" time="0.01">',
    '        <system-out><![CDATA[<not a tag> ]]]]><![CDATA[>]]></system-out>',
    '      </testcase>',
    '    </testsuite>',
    '    <testcase classname="pkg.mod" name="test_c">',
    '      <skipped message="later"/><!-- a comment -->',
    '    </testcase>',
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n'),
  'utf8',
);

const SEEDS = [PYTEST, onlyPassing(PYTEST), HANDWRITTEN];

const TOKENS = [
  '<testsuites>',
  '</testsuites>',
  '<testsuite name="s">',
  '</testsuite>',
  '<testcase classname="c" name="n">',
  '<testcase name="t"/>',
  '<testcase classname="" file="f.py" name="t"/>',
  '</testcase>',
  '<failure message="m">',
  '</failure>',
  '<error/>',
  '<skipped/>',
  '<system-out>',
  '</system-out>',
  '<![CDATA[',
  ']]>',
  '<!--',
  '-->',
  '<!DOCTYPE testsuite>',
  '<!DOCTYPE t [<!ENTITY x "y">]>',
  '<!ENTITY x SYSTEM "file:///etc/passwd">',
  '&amp;',
  '&lt;',
  '&x;',
  '&nbsp;',
  '&#10;',
  '&#13;',
  '&#0;',
  '&#xD800;',
  '&#x1F600;',
  '&#xFFFE;',
  '<?xml version="1.0" encoding="utf-8"?>',
  '<?xml version="1.1"?>',
  '<?xml version="1.0" encoding="ISO-8859-1"?>',
  '<?pi data?>',
  ' xmlns="urn:x"',
  ' xmlns:j="urn:j"',
  '<j:testcase name="ns"/>',
  ' name="dup"',
  ' classname="c"',
  ' file="tests/a.py"',
  ' line="12"',
  '"',
  "'",
  '<',
  '>',
  '&',
  '=',
  '/>',
  '\uFEFF',
  '\u0085',
  '\u2028',
].map((t) => Buffer.from(t, 'utf8'));

const reportInput = () =>
  fc.oneof(
    { weight: 1, arbitrary: randomInput(TOKENS) },
    { weight: 4, arbitrary: mutatedSeed(SEEDS, TOKENS).map((m) => m.bytes) },
  );

function read(input: Buffer): JUnitParse {
  return guard(`${TARGET}: parseJUnit`, input, () => parseJUnit(input));
}

const asReport = (parsed: JUnitParse): ReportRead =>
  parsed.ok
    ? { kind: 'parsed', cases: parsed.cases, files: ['junit.xml'] }
    : { kind: 'invalid', error: parsed.error };

/** A run whose harness and status file say the hidden suite exited `suiteExit` with a report. */
function evidence(report: ReportRead, mode: GateMode, suiteExit: number): RunEvidence {
  return {
    mode,
    timedOut: false,
    timeoutSeconds: 60,
    exitCode: suiteExit === 0 ? HARNESS_EXIT.ok : HARNESS_EXIT.hiddenTestsFailed,
    oomKilled: false,
    memoryLimit: '512m',
    hidden: { exitCode: suiteExit, harnessSawReport: true, report },
  };
}

function judge(input: Buffer, report: ReportRead, mode: GateMode, suiteExit: number) {
  const judgement = guard(`${TARGET}: judgeRun`, input, () => judgeRun(evidence(report, mode, suiteExit)));
  const reasons = [...judgement.containerReasons, ...judgement.testReasons];
  for (const r of reasons) {
    expect(r.subkind).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(r.message.length).toBeGreaterThan(0);
  }
  return { judgement, passed: reasons.length === 0 };
}

// --- the reference: expat, through a long-lived python3 ---------------------------------------

/**
 * The reading rules of junit-report.ts, restated over expat's events: root <testsuites> or
 * <testsuite>; <testsuite> only inside those; <testcase> only directly in a <testsuite>, with a
 * name; the worst of <failure>/<error>/<skipped> directly inside it; ID `classname::name`, or
 * `file::name` when classname is empty; no DOCTYPE, only UTF-8, depth at most 64, IDs without
 * line breaks and at most 8192 UTF-16 units.
 */
const EXPAT_READER = String.raw`
import base64, json, sys
import xml.parsers.expat as expat
SEVERITY = {'passed': 0, 'skipped': 1, 'failed': 2, 'error': 3}
OUTCOME = {'failure': 'failed', 'error': 'error', 'skipped': 'skipped'}
class Refused(Exception): pass
def read(data):
    stack, cases, state = [], [], {'open': None}
    p = expat.ParserCreate()
    def doctype(*a): raise Refused('doctype')
    def xmldecl(version, encoding, standalone):
        if encoding is not None and encoding.lower() not in ('utf-8', 'utf8'): raise Refused('encoding')
    def start(name, attrs):
        parent = stack[-1] if stack else None
        stack.append(name)
        if len(stack) > ${DEFAULT_JUNIT_LIMITS.maxDepth}: raise Refused('depth')
        if len(stack) == 1:
            if name not in ('testsuites', 'testsuite'): raise Refused('root')
            return
        if name == 'testsuite' and parent not in ('testsuites', 'testsuite'): raise Refused('suite')
        if name == 'testcase':
            if parent != 'testsuite': raise Refused('case')
            if 'name' not in attrs: raise Refused('noname')
            state['open'] = {'classname': attrs.get('classname', ''), 'name': attrs['name'], 'file': attrs.get('file'), 'status': 'passed'}
            return
        o = state['open']
        if o is not None and parent == 'testcase' and name in OUTCOME:
            s = OUTCOME[name]
            if SEVERITY[s] > SEVERITY[o['status']]: o['status'] = s
    def end(name):
        stack.pop()
        o = state['open']
        if name == 'testcase' and o is not None and stack and stack[-1] == 'testsuite':
            cid = o['classname'] + '::' + o['name'] if o['classname'] != '' else (o['file'] or '') + '::' + o['name']
            if len(cid.encode('utf-16-le')) // 2 > ${DEFAULT_JUNIT_LIMITS.maxIdChars}: raise Refused('long id')
            if '\n' in cid or '\r' in cid: raise Refused('line break')
            cases.append([cid, o['status']])
            state['open'] = None
    p.StartDoctypeDeclHandler = doctype
    p.XmlDeclHandler = xmldecl
    p.StartElementHandler = start
    p.EndElementHandler = end
    p.Parse(data, True)
    if stack: raise Refused('unclosed')
    return cases
def ascii_names(data):
    # expat knows XML 1.0 4th-edition names, saxes the 5th edition's wider set (U+FEFF, say, may
    # start a name). Every non-ASCII character becomes e-acute, a name character in both, and the
    # caller maps the IDs it compares the same way.
    text = data.decode('utf-8-sig')
    return ''.join(c if ord(c) < 0x80 else '\u00e9' for c in text).encode('utf-8')
for line in sys.stdin:
    data = base64.b64decode(line)
    # The reader strips a byte-order mark and saxes takes a second one: harmless, no text changes.
    if data.startswith(b'\xef\xbb\xbf\xef\xbb\xbf'): data = data[3:]
    try:
        out = {'ok': True, 'cases': read(data), 'asciiNames': False}
    except (Refused, expat.ExpatError, ValueError) as e:
        out = {'ok': False, 'error': str(e)}
        try:
            out = {'ok': True, 'cases': read(ascii_names(data)), 'asciiNames': True}
        except (Refused, expat.ExpatError, ValueError):
            pass
    sys.stdout.write(json.dumps(out) + '\n')
    sys.stdout.flush()
`;

/** `asciiNames`: expat read it only with every non-ASCII character made `é` (see ascii_names). */
type Reference = { ok: true; cases: [string, string][]; asciiNames: boolean } | { ok: false; error: string };

const asciiNames = (text: string) => text.replace(/[^\p{ASCII}]/gu, '\u00e9');

class ExpatReference {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: ((line: string) => void)[] = [];

  constructor() {
    this.child = spawn('python3', ['-I', '-c', EXPAT_READER], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.waiting.shift()?.(line));
    this.child.on('error', (error) => {
      throw new Error(`python3 (the reference XML parser) did not start: ${error.message}`);
    });
  }

  read(input: Buffer): Promise<Reference> {
    return new Promise((resolve) => {
      this.waiting.push((line) => resolve(JSON.parse(line) as Reference));
      this.child.stdin.write(input.toString('base64') + '\n');
    });
  }

  stop(): void {
    this.child.stdin.end();
  }
}

const tempDir = tempDirs('og-fuzz-junit-');
let expatReader: ExpatReference;
beforeAll(async () => {
  expatReader = new ExpatReference();
  // The reference reads the seeds as junit-report.ts does, or the comparison means nothing.
  for (const seed of SEEDS) {
    const ours = read(seed);
    expect(ours.ok).toBe(true);
    expect(await expatReader.read(seed)).toEqual({
      ok: true,
      cases: ours.ok ? ours.cases.map((c) => [c.id, c.status]) : [],
      asciiNames: false,
    });
  }
});
afterAll(() => expatReader.stop());

describe('fuzz: the JUnit reader and the judgement', () => {
  it(
    'parseJUnit never throws, judgeRun never throws on its result, and a refused report always fails with report-invalid',
    () => {
      const runs = numRuns(1);
      let accepted = 0;
      fuzz(
        TARGET,
        'never throws; a refused report fails',
        fc.property(reportInput(), fc.constantFrom<GateMode>('grade', 'baseline'), (input, mode) => {
          const parsed = read(input);
          expect(typeof parsed.ok).toBe('boolean');
          const { judgement, passed } = judge(input, asReport(parsed), mode, 0);
          if (parsed.ok) {
            accepted++;
            return;
          }
          expect(parsed.error.length).toBeGreaterThan(0);
          expect(passed, `a refused report passed; base64 ${b64(input)}`).toBe(false);
          if (mode === 'grade')
            expect(judgement.testReasons.map((r) => r.subkind)).toContain('report-invalid');
          else expect(judgement.quarantined).toBe(true);
        }),
        { runs },
      );
      console.log(`[fuzz] ${TARGET}: ${accepted} of ${runs} reports read, the rest refused`);
    },
    testTimeout(numRuns(1), 5),
  );

  it(
    'every report it reads, expat reads as the same tests with the same outcomes; the judgement passes one only when expat sees every test passed',
    async () => {
      const runs = numRuns(1);
      let compared = 0;
      let passes = 0;
      let editionDifferences = 0;
      await fuzzAsync(
        TARGET,
        'expat reads what parseJUnit reads; Pass only when expat agrees',
        fc.asyncProperty(reportInput(), async (input) => {
          const parsed = read(input);
          const { passed } = judge(input, asReport(parsed), 'grade', 0);
          if (!parsed.ok) return;
          const reference = await expatReader.read(input);
          expect(reference, `parseJUnit read a report expat refuses; base64 ${b64(input)}`).toMatchObject({
            ok: true,
          });
          if (!reference.ok) return;
          expect(
            parsed.cases.map((c) => [reference.asciiNames ? asciiNames(c.id) : c.id, c.status]),
            `expat reads different tests; base64 ${b64(input)}`,
          ).toEqual(reference.cases);
          compared++;
          if (reference.asciiNames) editionDifferences++;
          if (passed) {
            passes++;
            expect(reference.cases.length).toBeGreaterThan(0);
            expect(reference.cases.every(([, status]) => status === 'passed')).toBe(true);
          }
        }),
        { runs },
      );
      console.log(
        `[fuzz] ${TARGET}: compared ${compared} read reports with expat (${editionDifferences} with ASCII names), ${passes} of them passed`,
      );
    },
    testTimeout(numRuns(1), 10),
  );

  it(
    'readSuiteReports reads a report folder as parseJUnit reads its file: parsed with the same tests, refused as invalid, or missing when empty',
    async () => {
      const runs = numRuns(0.25, 25);
      const folder = join(tempDir(), 'reports');
      mkdirSync(folder);
      await fuzzAsync(
        TARGET,
        'readSuiteReports agrees with parseJUnit',
        fc.asyncProperty(reportInput(), async (input) => {
          writeFileSync(join(folder, 'junit.xml'), input);
          const read = await guardAsync(`${TARGET}: readSuiteReports`, input, () => readSuiteReports(folder));
          const parsed = parseJUnit(input);
          if (input.length === 0) expect(read.kind).toBe('missing');
          else if (parsed.ok)
            expect(read).toEqual({ kind: 'parsed', cases: parsed.cases, files: ['junit.xml'] });
          else expect(read).toEqual({ kind: 'invalid', error: `junit.xml: ${parsed.error}` });
        }),
        { runs },
      );
    },
    testTimeout(numRuns(0.25, 25), 10),
  );

  it(
    'when the suite exited non-zero, no report, however mutated, makes the judgement pass',
    () => {
      const runs = numRuns(1);
      fuzz(
        TARGET,
        'a failing exit status is never a Pass',
        fc.property(reportInput(), fc.integer({ min: 1, max: 255 }), (input, suiteExit) => {
          const { passed } = judge(input, asReport(read(input)), 'grade', suiteExit);
          expect(passed, `passed with suite exit ${suiteExit}; base64 ${b64(input)}`).toBe(false);
        }),
        { runs },
      );
    },
    testTimeout(numRuns(1), 5),
  );
});
