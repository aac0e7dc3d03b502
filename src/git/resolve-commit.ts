import { runGit } from './run-git.js';

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * A revision as the full id of the commit it names (`git rev-parse --verify REV^{commit}`), or
 * an error message: a tree, a blob, an unknown name or a repository that is not one are refused.
 */
export async function resolveCommit(
  repoDir: string,
  rev: string,
): Promise<{ ok: true; sha: string } | { ok: false; error: string }> {
  if (rev === '' || rev.includes('\0') || rev.startsWith('-'))
    return { ok: false, error: `${JSON.stringify(rev)} is not a revision` };
  const result = await runGit(repoDir, [
    'rev-parse',
    '--verify',
    '--quiet',
    '--end-of-options',
    `${rev}^{commit}`,
  ]);
  const sha = result.stdout.toString('latin1').trim();
  if (result.exitCode !== 0 || !OBJECT_ID.test(sha)) {
    const why = /not a git repository|cannot change to/i.test(result.stderr)
      ? `${repoDir} is not a git repository`
      : `${JSON.stringify(rev)} is not a commit in ${repoDir}`;
    return { ok: false, error: why };
  }
  return { ok: true, sha };
}
