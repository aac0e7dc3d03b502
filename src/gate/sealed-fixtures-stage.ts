import { checkSealedFixtures } from '../oracle-dir/sealed-fixtures.js';
import { readSealedFixtureBase } from '../oracle-dir/sealed-fixtures-base.js';
import { need, type GateRun } from './gate-run.js';
import type { StageOutcome } from './stage.js';

/**
 * Stage `sealed-fixtures` (DESIGN.md step 4): with fixtures/manifest.json, every listed file
 * matches its hash at the base commit, the patch touches none, and after the patch no file under
 * a sealed root is unlisted. Without a manifest there is nothing to check: a pass, noted, and not
 * attested. In baseline mode the patch touches nothing, so only the base commit is checked.
 */
export async function sealedFixturesStage(run: GateRun): Promise<StageOutcome> {
  const oracle = need(run.oracle, 'the oracle directory');
  const base = need(run.base, 'the base commit');
  if (oracle.fixtures === null) {
    run.notes.push('no fixtures/manifest.json: there are no sealed fixtures to check');
    return { reasons: [], attested: false };
  }
  const touched = run.request.mode === 'grade' ? need(run.policy, 'the path policy').touched : [];
  const baseState = await readSealedFixtureBase(run.request.repoDir, base, oracle.fixtures);
  return { reasons: checkSealedFixtures({ manifest: oracle.fixtures, base: baseState, touched }) };
}
