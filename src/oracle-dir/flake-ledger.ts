import { z } from 'zod';
import type { TestStatus } from '../gate/report.js';
import { parseChecked, type Checked } from '../json/parse-checked.js';
import type { FailReason } from '../verdict/schema.js';
import type { FlakeParams } from './config.js';

/**
 * The flake ledger, `flake_ledger.json`: per test, its recent baseline outcomes and whether it is
 * frozen (its failure alone does not fail the gate). Format, version 1:
 *
 *   { "version": 1,
 *     "tests": [ { "id": "tests.test_api::test_retry", "state": "frozen", "history": "PPFPPFPPPP" } ] }
 *
 * `history` is the outcomes oldest first, `P` passed and `F` failed or errored (skips are not
 * recorded), at most `window` long after an update. `tests` is sorted by the UTF-8 bytes of `id`
 * when written, one entry a line, so a baseline's proposal reads well as a diff.
 *
 * The update (two thresholds, hysteresis). After appending a run's outcomes, with n outcomes in
 * the window and failure rate r = F/n, a window is decisive when n >= min_runs and
 *   - r >= freeze_above and the window holds a pass: the test is flaky, state `frozen`;
 *   - r <= unfreeze_below: the test is healthy, state `active`;
 *   - the window holds no pass: the test is broken, not flaky, state `active`.
 * Otherwise (fewer than min_runs outcomes, or r strictly between the thresholds) the state stays.
 * The third rule is this implementation's, beyond DESIGN.md: a test that fails every run (a hidden
 * test the base commit cannot pass, say) would otherwise freeze, and then its failure could no
 * longer fail a patch that does not do the task.
 *
 * Precisely what "depends only on the window" means here: an entry's next state is a function of
 * its previous state and its new window; outcomes older than the window never matter. A decisive
 * window fixes the state whatever came before; hence the state after any sequence of runs is the
 * verdict of the most recent decisive window, or `active` if there was none.
 */

export type FlakeState = 'active' | 'frozen';

export interface LedgerEntry {
  state: FlakeState;
  /** Outcomes oldest first: `P` passed, `F` failed or errored. */
  history: string;
}

export interface FlakeLedger {
  version: 1;
  tests: ReadonlyMap<string, LedgerEntry>;
}

/** One test's result in a baseline run (a TestOutcome fits). */
export interface BaselineResult {
  id: string;
  status: TestStatus;
}

const MAX_HISTORY = 1000;

export const FlakeLedgerSchema = z
  .strictObject({
    version: z.literal(1, 'this reader knows version 1'),
    tests: z
      .array(
        z.strictObject({
          id: z.string().min(1, 'empty test ID').max(65536, 'test ID longer than 65536 characters'),
          state: z.enum(['active', 'frozen'], 'active or frozen'),
          history: z
            .string()
            .regex(/^[PF]*$/, 'only P (passed) and F (failed) outcomes')
            .max(MAX_HISTORY, `at most ${MAX_HISTORY} outcomes`),
        }),
      )
      .superRefine((tests, ctx) => {
        const seen = new Set<string>();
        tests.forEach((test, i) => {
          if (seen.has(test.id))
            ctx.addIssue({ code: 'custom', path: [i, 'id'], message: 'test listed twice', input: test.id });
          seen.add(test.id);
        });
      }),
  })
  .transform((ledger): FlakeLedger => ({
    version: 1,
    tests: new Map(ledger.tests.map((t) => [t.id, { state: t.state, history: t.history }])),
  }));

export function parseFlakeLedger(text: string): Checked<FlakeLedger> {
  return parseChecked(FlakeLedgerSchema, text);
}

export function emptyLedger(): FlakeLedger {
  return { version: 1, tests: new Map() };
}

const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The file text: deterministic, one test a line, sorted by the UTF-8 bytes of the ID. */
export function formatFlakeLedger(ledger: FlakeLedger): string {
  const ids = [...ledger.tests.keys()].sort(byUtf8);
  const lines = ids.map((id) => {
    const entry = ledger.tests.get(id)!;
    return `    {"id": ${JSON.stringify(id)}, "state": "${entry.state}", "history": "${entry.history}"}`;
  });
  return `{\n  "version": 1,\n  "tests": [${lines.length ? '\n' + lines.join(',\n') + '\n  ' : ''}]\n}\n`;
}

type FlakeThresholds = Pick<FlakeParams, 'min_runs' | 'freeze_above' | 'unfreeze_below'>;

/** The state a window decides on its own, or null when it leaves the previous state in force. */
export function windowVerdict(history: string, params: FlakeThresholds): FlakeState | null {
  const n = history.length;
  if (n < params.min_runs || n === 0) return null;
  let failures = 0;
  for (const outcome of history) if (outcome === 'F') failures++;
  if (failures === n) return 'active'; // broken, not flaky
  const rate = failures / n;
  if (rate <= params.unfreeze_below) return 'active';
  if (rate >= params.freeze_above) return 'frozen';
  return null;
}

/** One run's outcome per test: F if any report of it failed or errored, else P if any passed. */
function runOutcomes(results: readonly BaselineResult[]): Map<string, 'P' | 'F'> {
  const outcomes = new Map<string, 'P' | 'F'>();
  for (const { id, status } of results) {
    if (status === 'failed' || status === 'error') outcomes.set(id, 'F');
    else if (status === 'passed' && !outcomes.has(id)) outcomes.set(id, 'P');
  }
  return outcomes;
}

/**
 * Records one baseline run. Every entry's history is cut to the last `window` outcomes and its
 * state recomputed (so a changed window or threshold takes effect); tests new to the ledger start
 * `active`. Pure: the input ledger is not changed.
 */
export function updateLedger(
  ledger: FlakeLedger,
  results: readonly BaselineResult[],
  params: Pick<FlakeParams, 'window' | 'min_runs' | 'freeze_above' | 'unfreeze_below'>,
): FlakeLedger {
  const outcomes = runOutcomes(results);
  const tests = new Map<string, LedgerEntry>();
  const ids = new Set([...ledger.tests.keys(), ...outcomes.keys()]);
  for (const id of ids) {
    const previous = ledger.tests.get(id) ?? { state: 'active', history: '' };
    const history = (previous.history + (outcomes.get(id) ?? '')).slice(-params.window);
    tests.set(id, { state: windowVerdict(history, params) ?? previous.state, history });
  }
  return { version: 1, tests };
}

/** Frozen tests' failures alone do not fail the gate. A test the ledger does not hold is never frozen. */
export function isFrozen(ledger: FlakeLedger, id: string): boolean {
  return ledger.tests.get(id)?.state === 'frozen';
}

/**
 * The freeze budget: at most `budget` (a fraction) of the hidden tests may be frozen, else the
 * oracle is over-frozen and the gate fails (`freeze-budget-exceeded`). With no hidden tests there
 * is nothing frozen and the budget holds.
 */
export function checkFreezeBudget(
  ledger: FlakeLedger,
  hiddenIds: Iterable<string>,
  budget: number,
): FailReason[] {
  const hidden = [...new Set(hiddenIds)];
  const frozen = hidden.filter((id) => isFrozen(ledger, id)).sort(byUtf8);
  if (hidden.length === 0 || frozen.length / hidden.length <= budget) return [];
  const shown = frozen.slice(0, 10).map((id) => JSON.stringify(id));
  const more = frozen.length > 10 ? ` and ${frozen.length - 10} more` : '';
  return [
    {
      kind: 'custom',
      subkind: 'freeze-budget-exceeded',
      message:
        `${frozen.length} of ${hidden.length} hidden tests are frozen, over the freeze budget of ` +
        `${+(budget * 100).toFixed(4)}%; fix or remove flaky tests: ${shown.join(', ')}${more}`,
    },
  ];
}
