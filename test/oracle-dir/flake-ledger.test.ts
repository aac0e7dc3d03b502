import { describe, expect, it } from 'vitest';
import type { TestStatus } from '../../src/gate/report.js';
import { DEFAULTS } from '../../src/oracle-dir/config.js';
import {
  checkFreezeBudget,
  emptyLedger,
  formatFlakeLedger,
  isFrozen,
  parseFlakeLedger,
  updateLedger,
  type FlakeLedger,
  type LedgerEntry,
} from '../../src/oracle-dir/flake-ledger.js';

const params = DEFAULTS.flake;
const ledgerOf = (entries: Record<string, LedgerEntry>): FlakeLedger => ({
  version: 1,
  tests: new Map(Object.entries(entries)),
});
const run = (ledger: FlakeLedger, id: string, outcomes: string, p = params) =>
  [...outcomes].reduce(
    (l, o) => updateLedger(l, [{ id, status: (o === 'P' ? 'passed' : 'failed') as TestStatus }], p),
    ledger,
  );

describe('flake ledger update', () => {
  it('records outcomes oldest first: failed and error as F, passed as P, skipped not at all', () => {
    const next = updateLedger(
      emptyLedger(),
      [
        { id: 'a', status: 'passed' },
        { id: 'b', status: 'failed' },
        { id: 'c', status: 'error' },
        { id: 'd', status: 'skipped' },
      ],
      params,
    );
    expect(Object.fromEntries(next.tests)).toEqual({
      a: { state: 'active', history: 'P' },
      b: { state: 'active', history: 'F' },
      c: { state: 'active', history: 'F' },
    });
  });

  it('folds repeated reports of a test in one run into one outcome, F winning', () => {
    const next = updateLedger(
      emptyLedger(),
      [
        { id: 'a', status: 'passed' },
        { id: 'a', status: 'failed' },
        { id: 'a', status: 'passed' },
      ],
      params,
    );
    expect(next.tests.get('a')).toEqual({ state: 'active', history: 'F' });
  });

  it('freezes at freeze_above, holds between the thresholds, thaws at unfreeze_below', () => {
    let ledger = run(emptyLedger(), 't', 'P'.repeat(16) + 'FFFF'); // 4/20 = 0.2
    expect(ledger.tests.get('t')!.state).toBe('frozen');
    const trace: string[] = [];
    for (let i = 0; i < 20; i++) {
      ledger = run(ledger, 't', 'P'); // the F's fall out of the window after 16 passes
      const entry = ledger.tests.get('t')!;
      trace.push(`${[...entry.history].filter((c) => c === 'F').length}:${entry.state}`);
    }
    expect(trace).toEqual([
      ...Array<string>(16).fill('4:frozen'),
      '3:frozen', // 0.15, between the thresholds
      '2:frozen', // 0.10
      '1:active', // 0.05 = unfreeze_below
      '0:active',
    ]);
  });

  it('does not change state before min_runs outcomes', () => {
    const ledger = run(emptyLedger(), 't', 'PFPF'); // 0.5 over 4 < min_runs 5
    expect(ledger.tests.get('t')!.state).toBe('active');
    expect(run(ledger, 't', 'F').tests.get('t')!.state).toBe('frozen');
  });

  it('never freezes a test that failed every run: broken, not flaky', () => {
    const ledger = run(emptyLedger(), 't', 'F'.repeat(25));
    expect(ledger.tests.get('t')).toEqual({ state: 'active', history: 'F'.repeat(20) });
  });

  it('thaws a frozen test whose window becomes all failures', () => {
    let ledger = run(emptyLedger(), 't', 'PPPPF');
    expect(ledger.tests.get('t')!.state).toBe('frozen');
    ledger = run(ledger, 't', 'FFFF'); // PPPPFFFFF: 5/9, still flaky
    expect(ledger.tests.get('t')!.state).toBe('frozen');
    ledger = run(ledger, 't', 'F'.repeat(20));
    expect(ledger.tests.get('t')!.state).toBe('active');
  });

  it('cuts histories to the window and applies changed parameters to tests that did not run', () => {
    const ledger = ledgerOf({ old: { state: 'frozen', history: 'P'.repeat(30) } });
    const next = updateLedger(ledger, [], { ...params, window: 10 });
    expect(next.tests.get('old')).toEqual({ state: 'active', history: 'P'.repeat(10) });
  });

  it('leaves its input unchanged', () => {
    const ledger = ledgerOf({ a: { state: 'active', history: 'PPPP' } });
    const before = formatFlakeLedger(ledger);
    updateLedger(
      ledger,
      [
        { id: 'a', status: 'failed' },
        { id: 'b', status: 'passed' },
      ],
      params,
    );
    expect(formatFlakeLedger(ledger)).toBe(before);
  });
});

describe('isFrozen and the freeze budget', () => {
  const ledger = ledgerOf({
    f1: { state: 'frozen', history: 'PPPPF' },
    f2: { state: 'frozen', history: 'PPPPF' },
    a: { state: 'active', history: 'PPPPP' },
  });

  it('a test the ledger does not hold is never frozen', () => {
    expect(isFrozen(ledger, 'f1')).toBe(true);
    expect(isFrozen(ledger, 'a')).toBe(false);
    expect(isFrozen(ledger, 'new-test-from-the-patch')).toBe(false);
    expect(isFrozen(emptyLedger(), 'f1')).toBe(false);
  });

  it('holds at exactly the budget and fails past it, naming the frozen tests', () => {
    const ten = ['f1', ...Array.from({ length: 9 }, (_, i) => `h${i}`)];
    expect(checkFreezeBudget(ledger, ten, 0.1)).toEqual([]);
    const reasons = checkFreezeBudget(ledger, ['f2', ...ten], 0.1);
    expect(reasons).toEqual([
      {
        kind: 'custom',
        subkind: 'freeze-budget-exceeded',
        message:
          '2 of 11 hidden tests are frozen, over the freeze budget of 10%; fix or remove flaky tests: "f1", "f2"',
      },
    ]);
  });

  it('counts each hidden ID once, ignores frozen tests outside the hidden set, and holds with none', () => {
    expect(checkFreezeBudget(ledger, ['a', 'a', 'a', 'f1', 'b', 'c', 'd', 'e', 'g', 'h'], 0.1)).toHaveLength(
      1,
    );
    expect(checkFreezeBudget(ledger, ['a'], 0)).toEqual([]);
    expect(checkFreezeBudget(ledger, [], 0)).toEqual([]);
    expect(checkFreezeBudget(ledger, ['f1'], 0)).toHaveLength(1);
  });
});

describe('flake_ledger.json', () => {
  it('formats deterministically, sorted by UTF-8 bytes, and parses back', () => {
    const ledger = ledgerOf({
      '😀::t': { state: 'active', history: 'P' },
      '！::t': { state: 'frozen', history: 'PPPPF' },
      'b::"quoted"': { state: 'active', history: '' },
    });
    const text = formatFlakeLedger(ledger);
    expect(text).toBe(
      '{\n  "version": 1,\n  "tests": [\n' +
        '    {"id": "b::\\"quoted\\"", "state": "active", "history": ""},\n' +
        '    {"id": "！::t", "state": "frozen", "history": "PPPPF"},\n' +
        '    {"id": "😀::t", "state": "active", "history": "P"}\n' +
        '  ]\n}\n',
    );
    expect(parseFlakeLedger(text)).toEqual({ ok: true, value: ledger });
    expect(formatFlakeLedger(emptyLedger())).toBe('{\n  "version": 1,\n  "tests": []\n}\n');
    expect(parseFlakeLedger(formatFlakeLedger(emptyLedger()))).toEqual({ ok: true, value: emptyLedger() });
  });

  it('keeps a test whose ID is __proto__', () => {
    const result = parseFlakeLedger(
      '{"version":1,"tests":[{"id":"__proto__","state":"frozen","history":"PF"}]}',
    );
    expect(result.ok && isFrozen(result.value, '__proto__')).toBe(true);
  });

  it.each([
    ['{"tests":[]}', 'version: this reader knows version 1'],
    ['{"version":2,"tests":[]}', 'version: this reader knows version 1'],
    ['{"version":1}', 'tests: missing field'],
    ['{"version":1,"tests":[{"id":"a","state":"thawed","history":""}]}', 'tests[0].state: active or frozen'],
    [
      '{"version":1,"tests":[{"id":"a","state":"active","history":"PXF"}]}',
      'tests[0].history: only P (passed)',
    ],
    ['{"version":1,"tests":[{"id":"","state":"active","history":""}]}', 'tests[0].id: empty test ID'],
    [
      '{"version":1,"tests":[{"id":"a","state":"active","history":""},{"id":"a","state":"frozen","history":""}]}',
      'tests[1].id: test listed twice',
    ],
    [
      '{"version":1,"tests":[{"id":"a","state":"active","history":"","note":1}]}',
      'tests[0].note: unknown field',
    ],
    [
      `{"version":1,"tests":[{"id":"a","state":"active","history":"${'P'.repeat(1001)}"}]}`,
      'tests[0].history: at most',
    ],
  ])('refuses %s', (text, error) => {
    const result = parseFlakeLedger(text);
    expect(result.ok).toBe(false);
    expect((result.ok ? '' : result.error).startsWith(error)).toBe(true);
  });
});
