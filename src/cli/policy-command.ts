import { parseArgs } from 'node:util';
import { DiffParseError } from '../diff/parse-git-diff.js';
import { PrRangeError } from '../diff/read-pr-diff.js';
import { GitError } from '../git/run-git.js';
import { loadOracleDir } from '../oracle-dir/load.js';
import { deniedPathReason } from '../policy/denied-path-reason.js';
import { PolicyConfigError } from '../policy/path-rules.js';
import { runPrPathPolicy } from '../policy/pr-path-policy.js';
import { EXIT_USAGE, usageError, type Command } from './command.js';

export const policyCommand: Command = {
  name: 'policy',
  summary: "check a PR's diff against the oracle's path policy and print what it touches, denies and drops",
  help: `usage: oracle-gate policy --repo DIR --base REV --head REV --oracle DIR

Takes the PR's diff (git diff --binary --full-index --no-renames, from the merge base of base and
head to head, read from git objects: nothing is checked out) and applies the oracle directory's path
policy: the default denies (.github/**, the oracle if it lies in the repository, hidden_tests.dest,
sealed fixtures), path_deny.txt, path_allow.txt and oracle.json's "policy" opt-ins.

Prints one JSON object on one line:
  base, head, mergeBase   the commits, as full ids
  touched                 [{path, change}] every path the patch touches
  deniedTouches           [{path, change, rule}] touches of denied paths
  droppedHunks            [{path, oldStart, oldLines, newStart, newLines, reason}] outside the allow-list
  diffSha256, diffBytes   of the filtered diff, the one the container would apply
  failReason              the gate's denied-path Fail reason, when there is a denied touch
Paths that are not printable UTF-8 appear in git's quoted form ("a\\377b").

Exit status: 0 no denied path touched; 1 a denied path touched; 2 bad usage, or an oracle
directory, repository or diff the policy cannot be computed for (one line on standard error).`,
  async run(args) {
    let values: { repo?: string; base?: string; head?: string; oracle?: string };
    try {
      ({ values } = parseArgs({
        args,
        options: {
          repo: { type: 'string' },
          base: { type: 'string' },
          head: { type: 'string' },
          oracle: { type: 'string' },
        },
        allowPositionals: false,
        strict: true,
      }));
    } catch (e) {
      return usageError('policy', (e as Error).message);
    }
    for (const name of ['repo', 'base', 'head', 'oracle'] as const)
      if (!values[name]) return usageError('policy', `--${name} is required`);
    const { repo, base, head, oracle } = values as Required<typeof values>;

    const loaded = await loadOracleDir(oracle);
    if (!loaded.ok) return usageError('policy', `oracle directory: ${loaded.error}`);
    try {
      const { range, result } = await runPrPathPolicy(repo, base, head, loaded.value);
      const report = {
        base: range.base,
        head: range.head,
        mergeBase: range.mergeBase,
        touched: result.touched,
        deniedTouches: result.denied,
        droppedHunks: result.dropped,
        diffSha256: result.filteredSha256,
        diffBytes: result.filteredBytes,
        ...(result.denied.length > 0 ? { failReason: deniedPathReason(result.denied) } : {}),
      };
      return { exitCode: result.denied.length > 0 ? 1 : 0, stdout: JSON.stringify(report) + '\n' };
    } catch (e) {
      if (
        e instanceof PolicyConfigError ||
        e instanceof PrRangeError ||
        e instanceof DiffParseError ||
        e instanceof GitError
      )
        return { exitCode: EXIT_USAGE, stderr: `oracle-gate policy: ${e.message}\n` };
      if ((e as NodeJS.ErrnoException).code === 'ENOENT')
        return usageError('policy', `no such directory: ${(e as NodeJS.ErrnoException).path ?? repo}`);
      throw e;
    }
  },
};
