import type { OracleDir } from '../oracle-dir/load.js';
import { defaultDenyRules } from './default-deny-rules.js';
import type { PathPolicy } from './evaluate-policy.js';

/**
 * The path policy an oracle directory sets: the always-on denies (workflows, the oracle itself
 * when it lies in the repository, the hidden tests' destination, sealed fixtures), then
 * path_deny.txt in file order, path_allow.txt, and oracle.json's opt-ins.
 */
export function pathPolicyFromOracle(
  oracle: Pick<OracleDir, 'config' | 'denyGlobs' | 'allowGlobs' | 'fixtures'>,
  oracleRepoPath: string | undefined,
): PathPolicy {
  const defaults = defaultDenyRules({
    ...(oracleRepoPath === undefined ? {} : { oracleRepoPath }),
    hiddenTestsDest: oracle.config.hidden_tests.dest,
    sealedPaths: oracle.fixtures ? [...oracle.fixtures.files.keys()] : [],
  });
  return {
    denyGlobs: [
      ...defaults,
      ...oracle.denyGlobs.map(({ glob, line }) => ({
        glob,
        rule: `deny glob ${glob} (path_deny.txt line ${line})`,
      })),
    ],
    allowGlobs: oracle.allowGlobs === null ? null : oracle.allowGlobs.map((entry) => entry.glob),
    allowSymlinks: oracle.config.policy.allow_symlinks,
    allowSubmodules: oracle.config.policy.allow_submodules,
    allowGitattributes: oracle.config.policy.allow_gitattributes,
  };
}
