import { checkFreezeBudget } from '../oracle-dir/flake-ledger.js';
import { checkTestsLock } from '../oracle-dir/tests-lock.js';
import type { FailReason } from '../verdict/schema.js';
import { need, type GateRun } from './gate-run.js';
import type { StageOutcome } from './stage.js';

export const NO_TESTS_LOCK_NOTE = 'no tests.lock: the tests-changed check was skipped';

/**
 * Stage `tests` (DESIGN.md step 6): the suites' results as the container layer judged them
 * (failures not excused by a frozen test; forged, missing or disagreeing reports; in baseline
 * mode, a task to quarantine); then, in grade mode, tests.lock: exactly the locked hidden tests
 * ran and passed (`tests-changed`); then the freeze budget over the hidden tests.
 */
export async function testsStage(run: GateRun): Promise<StageOutcome> {
  const oracle = need(run.oracle, 'the oracle directory');
  const result = need(run.container, 'the oracle run');
  const reasons: FailReason[] = [...result.testReasons];

  if (run.request.mode === 'grade') {
    if (oracle.testsLock === null) run.notes.push(NO_TESTS_LOCK_NOTE);
    else reasons.push(...checkTestsLock(oracle.testsLock, result.outcomes));
  }

  if (oracle.flakeLedger !== null) {
    const hidden = new Set([...result.hiddenIds, ...(oracle.testsLock ?? [])]);
    reasons.push(...checkFreezeBudget(oracle.flakeLedger, hidden, oracle.config.flake.freeze_budget));
  }
  return { reasons };
}
