import { gitOk, runGit } from '../git/run-git.js';
import { resolveCommit } from '../git/resolve-commit.js';

/** The three commits of a PR's diff, as full object ids. */
export interface PrRange {
  base: string;
  head: string;
  mergeBase: string;
}

export class PrRangeError extends Error {}

/**
 * Resolves base and head to commits (refusing anything that is not one: a tree, a blob, an
 * unknown name) and finds their merge base, the commit the PR's own change starts from.
 */
export async function resolvePrRange(repoDir: string, base: string, head: string): Promise<PrRange> {
  const resolvedBase = await resolveCommitOf(repoDir, base, 'base');
  const resolvedHead = await resolveCommitOf(repoDir, head, 'head');
  const result = await runGit(repoDir, ['merge-base', resolvedBase, resolvedHead]);
  const mergeBase = result.stdout.toString('latin1').trim();
  if (result.exitCode !== 0 || !/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(mergeBase))
    throw new PrRangeError(
      `base ${resolvedBase} and head ${resolvedHead} have no common ancestor: the head is not a branch of the base's history`,
    );
  return { base: resolvedBase, head: resolvedHead, mergeBase };
}

async function resolveCommitOf(repoDir: string, rev: string, role: string): Promise<string> {
  const resolved = await resolveCommit(repoDir, rev);
  if (!resolved.ok) throw new PrRangeError(`the ${role} ${resolved.error}`);
  return resolved.sha;
}

/**
 * Every option that fixes the patch format, whatever the repository's config says (run-git.ts
 * already ignores global/system config and forces quoted paths and plain colours): no external
 * diff or textconv program, explicit prefixes, full blob ids and binary patches so `git apply`
 * can use it, no rename or copy detection, and the knobs that would change hunks or hide files
 * (context, algorithm, order file, submodule format and ignoring, blank-line suppression) pinned.
 */
export const PR_DIFF_OPTIONS = [
  '--binary',
  '--full-index',
  '--no-renames',
  '--no-ext-diff',
  '--no-textconv',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '--no-color',
  '--no-relative',
  '--unified=3',
  '--inter-hunk-context=0',
  '--diff-algorithm=myers',
  '--indent-heuristic',
  '--ignore-submodules=none',
  '--submodule=short',
  '-O/dev/null',
] as const;

/** Config read by `git diff` that no command-line option overrides. */
const PR_DIFF_CONFIG = ['-c', 'diff.suppressBlankEmpty=false', '-c', 'core.bigFileThreshold=512m'] as const;

export interface ReadPrDiffOptions {
  /** Refuse a diff larger than this (default: run-git.ts's 2 GiB). */
  maxBytes?: number;
}

/**
 * The PR's own change as git's patch bytes: from the merge base of base and head to the head.
 * Reads git objects only; nothing is checked out.
 */
export async function readPrDiff(
  repoDir: string,
  baseSha: string,
  headSha: string,
  options: ReadPrDiffOptions = {},
): Promise<Buffer> {
  const range = await resolvePrRange(repoDir, baseSha, headSha);
  return readRangeDiff(repoDir, range, options);
}

export async function readRangeDiff(
  repoDir: string,
  range: PrRange,
  options: ReadPrDiffOptions = {},
): Promise<Buffer> {
  return gitOk(
    repoDir,
    [...PR_DIFF_CONFIG, 'diff', ...PR_DIFF_OPTIONS, range.mergeBase, range.head, '--'],
    options,
  );
}
