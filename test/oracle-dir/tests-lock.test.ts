import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TestOutcome, TestStatus } from '../../src/gate/report.js';
import { hasControlCharacter } from '../../src/oracle-dir/control-chars.js';
import { checkTestsLock, formatTestsLock, parseTestsLock } from '../../src/oracle-dir/tests-lock.js';

const parse = (text: string) => parseTestsLock(Buffer.from(text));
const lockOf = (...ids: string[]) => new Set(ids);
const hidden = (id: string, status: TestStatus = 'passed'): TestOutcome => ({ id, suite: 'hidden', status });

describe('tests.lock', () => {
  it('reads one ID a line, verbatim (spaces kept), ignoring blank lines and a CRLF', () => {
    const result = parse('oracle_tests.test_a::test_one\r\n\n  \noracle_tests.test_a::test_two[a b] \n');
    expect(result.ok && [...result.value]).toEqual([
      'oracle_tests.test_a::test_one',
      'oracle_tests.test_a::test_two[a b] ',
    ]);
  });

  it('has no comments: an ID may start with #', () => {
    expect(parse('#weird::id\n')).toEqual({ ok: true, value: new Set(['#weird::id']) });
  });

  it('refuses a duplicate ID, naming both lines', () => {
    expect(parse('a::x\nb::y\na::x\n')).toEqual({
      ok: false,
      error: 'tests.lock line 3: duplicate test ID (first on line 1)',
    });
  });

  it('refuses control characters and bytes that are not UTF-8', () => {
    expect(parse('a::x\nb\u0000::y\n')).toEqual({
      ok: false,
      error: 'tests.lock line 2: control character in a test ID',
    });
    expect(parseTestsLock(Uint8Array.from([0xc3, 0x28]))).toEqual({
      ok: false,
      error: 'tests.lock: not valid UTF-8',
    });
  });

  it('formatTestsLock sorts by UTF-8 bytes, de-duplicates, and parses back (property)', () => {
    const id = fc
      .string({ minLength: 1, unit: 'grapheme' })
      .filter((s) => s.trim() !== '' && !hasControlCharacter(s, true));
    fc.assert(
      fc.property(fc.array(id), (ids) => {
        const text = formatTestsLock(ids);
        const lines = text.split('\n').slice(0, -1);
        const sorted = [...new Set(ids)].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
        expect(lines).toEqual(sorted);
        expect(parse(text)).toEqual({ ok: true, value: new Set(ids) });
      }),
    );
  });
});

describe('checkTestsLock', () => {
  it('passes when exactly the locked tests ran, whether they passed or failed', () => {
    const outcomes = [hidden('a::x'), hidden('a::y', 'failed'), hidden('a::z', 'error')];
    expect(checkTestsLock(lockOf('a::x', 'a::y', 'a::z'), outcomes)).toEqual([]);
  });

  it('ignores the existing suite', () => {
    const outcomes: TestOutcome[] = [
      hidden('a::x'),
      { id: 'tests::t', suite: 'existing', status: 'skipped' },
    ];
    expect(checkTestsLock(lockOf('a::x'), outcomes)).toEqual([]);
  });

  it('reports missing, skipped and extra tests as tests-changed, one reason each', () => {
    const outcomes = [
      hidden('a::kept'),
      hidden('a::skipped', 'skipped'),
      hidden('a::new'),
      hidden('a::new2', 'skipped'),
    ];
    const reasons = checkTestsLock(lockOf('a::kept', 'a::skipped', 'a::gone'), outcomes);
    expect(reasons).toEqual([
      { kind: 'custom', subkind: 'tests-changed', message: '1 locked hidden test(s) did not run: "a::gone"' },
      {
        kind: 'custom',
        subkind: 'tests-changed',
        message: '1 locked hidden test(s) were skipped: "a::skipped"',
      },
      {
        kind: 'custom',
        subkind: 'tests-changed',
        message: '2 hidden test(s) ran that tests.lock does not list: "a::new", "a::new2"',
      },
    ]);
  });

  it('a locked ID reported twice counts as skipped if either report is', () => {
    const reasons = checkTestsLock(lockOf('a::x'), [hidden('a::x'), hidden('a::x', 'skipped')]);
    expect(reasons.map((r) => r.message)).toEqual(['1 locked hidden test(s) were skipped: "a::x"']);
  });

  it('caps the listed IDs and escapes them', () => {
    const lock = lockOf(...Array.from({ length: 25 }, (_, i) => `t::${String(i).padStart(2, '0')}`));
    const [reason] = checkTestsLock(lock, [hidden('evil\n::x')]).slice(0, 1);
    expect(reason!.message).toMatch(/^25 locked hidden test\(s\) did not run: "t::00", .* and 15 more$/);
    const [, extra] = checkTestsLock(lock, [hidden('evil\n::x')]);
    expect(extra!.message).toContain('"evil\\n::x"');
  });

  it('passes exactly when the hidden IDs that ran unskipped equal the lock (property)', () => {
    const id = fc.constantFrom('a', 'b', 'c', 'd', 'e');
    const status = fc.constantFrom<TestStatus>('passed', 'failed', 'error', 'skipped');
    fc.assert(
      fc.property(fc.uniqueArray(id), fc.array(fc.tuple(id, status)), (lock, ran) => {
        const reasons = checkTestsLock(
          new Set(lock),
          ran.map(([i, s]) => hidden(i, s)),
        );
        const ranIds = new Set(ran.map(([i]) => i));
        const skipped = new Set(ran.filter(([, s]) => s === 'skipped').map(([i]) => i));
        const same = lock.length === ranIds.size && lock.every((i) => ranIds.has(i) && !skipped.has(i));
        expect(reasons.length === 0).toBe(same);
        for (const r of reasons) expect(r.subkind).toBe('tests-changed');
      }),
    );
  });
});
