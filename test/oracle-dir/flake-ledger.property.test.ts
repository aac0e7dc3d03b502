import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TestStatus } from '../../src/gate/report.js';
import type { FlakeParams } from '../../src/oracle-dir/config.js';
import {
  checkFreezeBudget,
  emptyLedger,
  isFrozen,
  updateLedger,
  windowVerdict,
  type BaselineResult,
  type FlakeLedger,
  type FlakeState,
  type LedgerEntry,
} from '../../src/oracle-dir/flake-ledger.js';

// Parameters as oracle.json allows them: 1 <= min_runs <= window, 0 <= unfreeze_below <
// freeze_above <= 1. Rates on a coarse grid too, so windows land exactly on the thresholds.
const rate = fc.oneof(
  fc.integer({ min: 0, max: 20 }).map((n) => n / 20),
  fc.double({ min: 0, max: 1, noNaN: true }),
);
const paramsArb: fc.Arbitrary<FlakeParams> = fc
  .record({
    window: fc.integer({ min: 1, max: 25 }),
    minFraction: fc.double({ min: 0, max: 1, noNaN: true }),
    a: rate,
    b: rate,
  })
  .filter(({ a, b }) => a !== b)
  .map(({ window, minFraction, a, b }) => ({
    window,
    min_runs: Math.max(1, Math.ceil(minFraction * window)),
    unfreeze_below: Math.min(a, b),
    freeze_above: Math.max(a, b),
    freeze_budget: 0.1,
  }))
  .filter((p) => p.freeze_above > 0);

const outcome = fc.constantFrom<'P' | 'F'>('P', 'F');
const stateArb = fc.constantFrom<FlakeState>('active', 'frozen');
/** One baseline run's report of test `t`: an outcome, a skip, or not run at all. */
const runOfT = fc.oneof(
  outcome.map((o): BaselineResult[] => [{ id: 't', status: o === 'P' ? 'passed' : 'failed' }]),
  fc.constant<BaselineResult[]>([{ id: 't', status: 'skipped' }]),
  fc.constant<BaselineResult[]>([]),
);
const historyArb = (maxLength: number) => fc.array(outcome, { maxLength }).map((xs) => xs.join(''));

const single = (entry: LedgerEntry): FlakeLedger => ({ version: 1, tests: new Map([['t', entry]]) });
const entryAfter = (ledger: FlakeLedger, runs: readonly BaselineResult[][], params: FlakeParams) =>
  runs.reduce((l, r) => updateLedger(l, r, params), ledger).tests.get('t');

const failureRate = (history: string) => [...history].filter((c) => c === 'F').length / history.length;

describe('flake ledger properties', () => {
  it("a test's state never changes while its failure rate stays strictly between the thresholds", () => {
    fc.assert(
      fc.property(paramsArb, stateArb, historyArb(25), runOfT, (params, state, history, runResults) => {
        const before = { state, history: history.slice(-params.window) };
        const after = entryAfter(single(before), [runResults], params)!;
        const r = failureRate(after.history);
        const inBand = after.history.length > 0 && r > params.unfreeze_below && r < params.freeze_above;
        const tooFew = after.history.length < params.min_runs;
        if (inBand || tooFew) expect(after.state).toBe(before.state);
      }),
      { numRuns: 2000 },
    );
  });

  it('the state depends only on the window: outcomes older than the window never matter', () => {
    // Two entries in the same state whose histories agree on the last `window` outcomes (one also
    // holds older outcomes, as after a larger window) evolve identically under any runs.
    fc.assert(
      fc.property(
        paramsArb,
        stateArb,
        fc.array(outcome, { minLength: 25, maxLength: 25 }).map((xs) => xs.join('')),
        historyArb(25),
        fc.array(runOfT, { maxLength: 30 }),
        (params, state, recent, older, runs) => {
          // `recent` is at least a full window long, so `older` lies wholly outside it.
          const window = recent.slice(-params.window);
          const a = entryAfter(single({ state, history: older + window }), runs, params);
          const b = entryAfter(single({ state, history: window }), runs, params);
          if (runs.length > 0) expect(a).toEqual(b);
        },
      ),
    );
  });

  it('the state after any sequence is the verdict of the last decisive window, else the start state', () => {
    // The closed form of "depends only on the window": from an empty ledger, replay the windows
    // the updates produce; the most recent window outside the band (with enough runs) decides.
    fc.assert(
      fc.property(paramsArb, fc.array(runOfT, { maxLength: 60 }), (params, runs) => {
        const entry = entryAfter(emptyLedger(), runs, params);
        let outcomes = '';
        let expected: FlakeState = 'active';
        for (const runResults of runs) {
          const status = runResults[0]?.status;
          if (status === 'passed') outcomes += 'P';
          else if (status === 'failed') outcomes += 'F';
          else continue;
          const window = outcomes.slice(-params.window);
          const n = window.length;
          const r = failureRate(window);
          if (n >= params.min_runs) {
            if (r === 1 || r <= params.unfreeze_below) expected = 'active';
            else if (r >= params.freeze_above) expected = 'frozen';
          }
        }
        expect(entry?.state ?? 'active').toBe(expected);
        expect(entry?.history ?? '').toBe(outcomes.slice(-params.window));
      }),
    );
  });

  it('two different pasts end in the same state once a decisive window is reached', () => {
    fc.assert(
      fc.property(
        paramsArb,
        fc.array(runOfT, { maxLength: 30 }),
        fc.array(runOfT, { maxLength: 30 }),
        fc.array(outcome, { minLength: 1, maxLength: 25 }),
        (params, pastA, pastB, common) => {
          const commonRuns = common.map((o): BaselineResult[] => [
            { id: 't', status: o === 'P' ? 'passed' : 'failed' },
          ]);
          const a = entryAfter(emptyLedger(), [...pastA, ...commonRuns], params)!;
          const b = entryAfter(emptyLedger(), [...pastB, ...commonRuns], params)!;
          if (common.length >= params.window) {
            expect(a.history).toBe(b.history);
            if (windowVerdict(a.history, params) !== null) expect(a.state).toBe(b.state);
          }
        },
      ),
    );
  });

  it('a test absent from the ledger is never frozen, and one run cannot freeze a new test', () => {
    const id = fc.string({ maxLength: 8 });
    const ledgerArb = fc.array(fc.tuple(id, stateArb, historyArb(20))).map((rows): FlakeLedger => ({
      version: 1,
      tests: new Map(rows.map(([i, s, h]) => [i, { state: s, history: h }])),
    }));
    const status = fc.constantFrom<TestStatus>('passed', 'failed', 'error', 'skipped');
    fc.assert(
      fc.property(
        paramsArb,
        ledgerArb,
        id,
        fc.array(status, { maxLength: 5 }),
        (params, ledger, newId, statuses) => {
          fc.pre(!ledger.tests.has(newId));
          expect(isFrozen(ledger, newId)).toBe(false);
          const next = updateLedger(
            ledger,
            statuses.map((s) => ({ id: newId, status: s })),
            params,
          );
          expect(isFrozen(next, newId)).toBe(false);
        },
      ),
    );
  });

  it('histories never exceed the window', () => {
    fc.assert(
      fc.property(
        paramsArb,
        stateArb,
        historyArb(40),
        fc.array(runOfT, { maxLength: 10 }),
        (params, state, history, runs) => {
          const entry = entryAfter(single({ state, history }), runs, params);
          if (runs.length > 0) expect(entry!.history.length).toBeLessThanOrEqual(params.window);
        },
      ),
    );
  });

  it('the budget holds: the check passes exactly when frozen hidden tests are at most budget x total', () => {
    const idArb = fc.integer({ min: 0, max: 30 }).map((i) => `t${i}`);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(idArb, stateArb)),
        fc.array(idArb),
        fc.oneof(
          fc.integer({ min: 0, max: 20 }).map((n) => n / 20),
          fc.double({ min: 0, max: 1, noNaN: true }),
        ),
        (rows, hiddenIds, budget) => {
          const ledger: FlakeLedger = {
            version: 1,
            tests: new Map(rows.map(([i, s]) => [i, { state: s, history: '' }])),
          };
          const hidden = new Set(hiddenIds);
          const frozen = [...hidden].filter((i) => isFrozen(ledger, i)).length;
          const reasons = checkFreezeBudget(ledger, hiddenIds, budget);
          if (reasons.length === 0) expect(hidden.size === 0 || frozen / hidden.size <= budget).toBe(true);
          else {
            expect(frozen / hidden.size).toBeGreaterThan(budget);
            expect(reasons).toHaveLength(1);
            expect(reasons[0]!.subkind).toBe('freeze-budget-exceeded');
          }
        },
      ),
    );
  });
});
