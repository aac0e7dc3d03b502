import { hashOracleDir, OracleHashError } from '../oracle-dir/hash.js';
import { need, type GateRun } from './gate-run.js';
import { StageFailure, type StageOutcome } from './stage.js';

export const ORACLE_HASH_MISMATCH = 'oracle-hash-mismatch';
/** The directory holds something the hash refuses (a symlink, a FIFO, ...), or cannot be read. */
export const ORACLE_UNHASHABLE = 'oracle-unhashable';

/**
 * Stage `oracle-hash` (DESIGN.md step 2): the oracle directory's Hash1 equals the pinned one.
 * The computed hash is kept either way, so the report can show what to pin after a deliberate
 * change.
 */
export async function oracleHashStage(run: GateRun): Promise<StageOutcome> {
  const oracle = need(run.oracle, 'the oracle directory');
  let computed: string;
  try {
    computed = await hashOracleDir(oracle.dir);
  } catch (error) {
    if (error instanceof OracleHashError)
      throw new StageFailure(ORACLE_UNHASHABLE, `the oracle directory cannot be hashed: ${error.message}`);
    throw error;
  }
  run.oracleHash = computed;
  const pinned = run.request.pinnedOracleHash;
  if (computed !== pinned)
    throw new StageFailure(
      ORACLE_HASH_MISMATCH,
      `the oracle directory hashes to ${computed}, but the pinned oracle hash is ${pinned}: ` +
        'the oracle changed since it was pinned (review the change, then pin the new hash)',
    );
  return { reasons: [] };
}
