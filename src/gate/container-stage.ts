import type { FlakeLedger } from '../oracle-dir/flake-ledger.js';
import { need, type GateRun } from './gate-run.js';
import type { StageOutcome } from './stage.js';

/** The IDs the flake ledger has frozen: their failure alone does not fail the gate. */
export function frozenIds(ledger: FlakeLedger | null): ReadonlySet<string> {
  const frozen = new Set<string>();
  for (const [id, entry] of ledger?.tests ?? []) if (entry.state === 'frozen') frozen.add(id);
  return frozen;
}

/**
 * Stage `container` (DESIGN.md step 5): the pinned image runs the harness over a mirror of the
 * base commit, the filtered diff (grade mode) and the hidden tests. Its Fail reasons are the run's
 * own (engine, image, mirror, patch does not apply, timeout, harness error; in baseline mode a
 * run that could not judge the task quarantines it); the suites' results are the next stage's.
 */
export async function containerStage(run: GateRun): Promise<StageOutcome> {
  const oracle = need(run.oracle, 'the oracle directory');
  const config = need(run.runConfig, 'the run config');
  const grade = run.request.mode === 'grade';
  const frozen = frozenIds(oracle.flakeLedger);
  const result = await run.deps.runOracleContainer({
    mode: run.request.mode,
    config,
    repoDir: run.request.repoDir,
    baseSha: need(run.base, 'the base commit'),
    ...(grade ? { diff: need(run.policy, 'the path policy').filteredChunks } : {}),
    hiddenTestsDir: need(oracle.testsDir ?? undefined, 'the hidden tests folder'),
    frozen,
    progress: (line) => run.progress(line),
  });
  run.container = result;
  return { reasons: result.containerReasons };
}
