import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, sep } from 'node:path';
import { PolicyConfigError } from './path-rules.js';

/**
 * Where the oracle directory lies in the repository's working tree, as a repository path, or
 * undefined when it lies outside (symlinks resolved on both sides). An oracle that is the
 * repository itself, or holds it, cannot be kept out of the patch's reach: refused.
 */
export async function oracleRepoPath(repoDir: string, oracleDir: string): Promise<string | undefined> {
  const repo = await realpath(repoDir);
  const oracle = await realpath(oracleDir);
  const inside = relative(repo, oracle);
  if (inside === '' || !isOutside(relative(oracle, repo)))
    throw new PolicyConfigError(
      `the oracle directory ${oracleDir} is, or contains, the repository ${repoDir}`,
    );
  if (isOutside(inside)) return undefined;
  return inside.split(sep).join('/');
}

function isOutside(relativePath: string): boolean {
  return relativePath === '..' || relativePath.startsWith('..' + sep) || isAbsolute(relativePath);
}
