import { DiffParseError, parseGitDiff } from '../diff/parse-git-diff.js';
import { PrRangeError, readRangeDiff, resolvePrRange } from '../diff/read-pr-diff.js';
import { GitError } from '../git/run-git.js';
import { deniedPathReason } from '../policy/denied-path-reason.js';
import { evaluatePolicy } from '../policy/evaluate-policy.js';
import { oracleRepoPath } from '../policy/oracle-location.js';
import { PolicyConfigError } from '../policy/path-rules.js';
import { pathPolicyFromOracle } from '../policy/policy-from-oracle.js';
import { CONFIG_INVALID } from './config-stage.js';
import { need, type GateRun } from './gate-run.js';
import { StageFailure, type StageOutcome } from './stage.js';

/** Base and head share no history: the head is not a change to the base's line. */
export const NO_MERGE_BASE = 'no-merge-base';
/** git could not produce the diff, or the parser refused it (the gate never guesses a diff). */
export const DIFF_UNREADABLE = 'diff-unreadable';

/**
 * Stage `path-policy` (DESIGN.md step 3, grade mode only): the PR's own change, from the merge
 * base of base and head to the head, read from git objects; every touch of a denied path is a
 * `denied-path` Fail listing each path and what the patch did to it; hunks of files outside the
 * allow-list are dropped and recorded. The filtered diff is what the container applies at the base.
 */
export async function pathPolicyStage(run: GateRun): Promise<StageOutcome> {
  const { repoDir } = run.request;
  const oracle = need(run.oracle, 'the oracle directory');
  const base = need(run.base, 'the base commit');
  const head = need(run.head, 'the head commit');

  let rules;
  try {
    rules = pathPolicyFromOracle(oracle, await oracleRepoPath(repoDir, oracle.dir));
  } catch (error) {
    if (error instanceof PolicyConfigError) throw new StageFailure(CONFIG_INVALID, error.message);
    throw error;
  }

  let files;
  try {
    const range = await resolvePrRange(repoDir, base, head);
    run.mergeBase = range.mergeBase;
    files = parseGitDiff(await readRangeDiff(repoDir, range));
  } catch (error) {
    if (error instanceof PrRangeError) throw new StageFailure(NO_MERGE_BASE, error.message);
    if (error instanceof DiffParseError || error instanceof GitError)
      throw new StageFailure(DIFF_UNREADABLE, `the PR's diff cannot be read: ${error.message}`);
    throw error;
  }

  const result = evaluatePolicy(files, rules);
  run.policy = result;
  if (result.dropped.length > 0) {
    const fileCount = new Set(result.dropped.map((h) => h.path)).size;
    run.notes.push(
      `${result.dropped.length} hunk(s) in ${fileCount} file(s) outside the allow-list were dropped from the diff`,
    );
  }
  if (result.denied.length > 0) return { reasons: [deniedPathReason(result.denied)] };
  if (result.filteredBytes === 0)
    run.notes.push('the filtered diff is empty: the patch changes nothing the policy lets through');
  return { reasons: [] };
}
