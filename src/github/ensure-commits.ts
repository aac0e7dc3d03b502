import { gitOk, runGit } from '../git/run-git.js';

/** A commit the gate needs is neither in the repository nor fetchable from `origin`. */
export class CommitsMissingError extends Error {}

/** The workflow's remote is GitHub over https; hardening allows only file:// unless told. */
const ALLOW_HTTPS = ['-c', 'protocol.https.allow=always'];
const FETCH = ['fetch', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', '--quiet', 'origin'];

async function hasCommit(repoDir: string, sha: string): Promise<boolean> {
  const result = await runGit(repoDir, ['cat-file', '-e', `${sha}^{commit}`]);
  return result.exitCode === 0;
}

async function missingOf(repoDir: string, shas: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const sha of new Set(shas)) if (!(await hasCommit(repoDir, sha))) missing.push(sha);
  return missing;
}

/**
 * Makes sure the base and head commits are in the repository, fetching them from `origin` as
 * objects when they are not (a fork's head is not in the checkout). Nothing is checked out and no
 * ref is written: the head is data for the gate to read. Tries the SHAs themselves, then the
 * PR's `refs/pull/<n>/head`, which GitHub serves for forks too.
 */
export async function ensureCommits(
  repoDir: string,
  shas: readonly string[],
  prNumber: number | undefined,
  log: (line: string) => void,
): Promise<void> {
  const inside = await runGit(repoDir, ['rev-parse', '--is-inside-work-tree', '--is-shallow-repository']);
  if (inside.exitCode !== 0) {
    throw new CommitsMissingError(
      `${repoDir} is not a git repository: check the repository out first (actions/checkout)`,
    );
  }
  if (inside.stdout.toString('utf8').split('\n')[1] === 'true') {
    log(
      'the repository is a shallow clone; the gate needs the merge base of base and head: check out with fetch-depth: 0',
    );
  }
  let missing = await missingOf(repoDir, shas);
  if (missing.length === 0) return;
  log(`fetching ${missing.join(', ')} from origin (as objects; nothing is checked out)`);
  await runGit(repoDir, [...ALLOW_HTTPS, ...FETCH, ...missing]);
  missing = await missingOf(repoDir, missing);
  if (missing.length > 0 && prNumber !== undefined) {
    await runGit(repoDir, [...ALLOW_HTTPS, ...FETCH, `refs/pull/${prNumber}/head`]);
    missing = await missingOf(repoDir, missing);
  }
  if (missing.length > 0) {
    throw new CommitsMissingError(
      `commit ${missing.join(', ')} is not in ${repoDir} and could not be fetched from origin`,
    );
  }
  // A fetched commit must be complete enough to diff: its tree must be readable.
  for (const sha of shas) await gitOk(repoDir, ['cat-file', '-t', `${sha}^{tree}`]);
}
