import type { FileChange } from '../diff/file-change.js';
import { parseGitDiff } from '../diff/parse-git-diff.js';
import { readRangeDiff, resolvePrRange, type PrRange, type ReadPrDiffOptions } from '../diff/read-pr-diff.js';
import type { OracleDir } from '../oracle-dir/load.js';
import { evaluatePolicy, type PolicyResult } from './evaluate-policy.js';
import { oracleRepoPath } from './oracle-location.js';
import { pathPolicyFromOracle } from './policy-from-oracle.js';

export interface PrPathPolicy {
  range: PrRange;
  files: FileChange[];
  result: PolicyResult;
}

/**
 * The gate's path-policy step end to end, for the CLI's `policy` and the gate alike: the PR's diff
 * from git (merge base to head, nothing checked out), parsed, and judged by the oracle's policy.
 * Throws PrRangeError, GitError, DiffParseError or PolicyConfigError (each a Fail to the gate).
 */
export async function runPrPathPolicy(
  repoDir: string,
  base: string,
  head: string,
  oracle: OracleDir,
  options: ReadPrDiffOptions = {},
): Promise<PrPathPolicy> {
  const policy = pathPolicyFromOracle(oracle, await oracleRepoPath(repoDir, oracle.dir));
  const range = await resolvePrRange(repoDir, base, head);
  const files = parseGitDiff(await readRangeDiff(repoDir, range, options));
  return { range, files, result: evaluatePolicy(files, policy) };
}
