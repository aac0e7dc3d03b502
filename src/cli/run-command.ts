import { parseArgs } from 'node:util';
import { resolveCommit } from '../git/resolve-commit.js';
import type { GateMode, GateReport } from '../gate/report.js';
import { runGate, type GateRequest } from '../gate/run-gate.js';
import { safeLogLine } from '../report/escape-log.js';
import { countsAsPass, verdictTitle } from '../report/verdict-title.js';
import { serializeVerdict } from '../verdict/serialize.js';
import { usageError, type Command, type CommandResult } from './command.js';

const HELP = `usage: oracle-gate run --repo DIR --base REV --head REV --oracle DIR --oracle-hash H
                      [--mode grade|baseline] [--log FILE]

Runs the whole gate on a pull request's commits, as the action does:
  config           the inputs and oracle.json parse; the image is pinned by digest
  oracle-hash      the oracle directory hashes to H (oracle-gate hash DIR prints it)
  path-policy      the PR's diff (merge base of base and head, to head) touches no denied path;
                   hunks outside path_allow.txt are dropped
  sealed-fixtures  fixtures/manifest.json holds at the base commit and the patch keeps to it
  container        the pinned image, network off, applies the filtered diff at the base commit,
                   restores the existing suite, runs it and the hidden tests
  tests            every test passed (or is frozen by the flake ledger), exactly the tests in
                   tests.lock ran, and the freeze budget holds
The first Fail ends the run. Nothing in DIR is checked out at the head: the PR is read as data.

  --repo DIR         git repository holding both commits
  --base REV         the commit the PR merges into (its tip, as GitHub's merge would)
  --head REV         the PR's head (optional in baseline mode)
  --oracle DIR       the oracle directory
  --oracle-hash H    its pinned hash, h1:...
  --mode MODE        grade [default], or baseline: no diff; the existing suite must pass and
                     the hidden tests fail at the base, else the task is quarantined. Baseline
                     also writes tests.lock.proposed and flake_ledger.proposed.json next to the log
  --log FILE         the oracle log [a new temporary folder's oracle.log]

Standard output: the verdict as one line of compact oracle/1 JSON, then tests_hash=<sha256> on its
own line (left out only when no test ran). Standard error: progress, stage by stage, with timings.

Exit status: 0 Pass; 1 Fail; 2 bad usage (no verdict).`;

interface RunOptions {
  repo?: string;
  base?: string;
  head?: string;
  oracle?: string;
  'oracle-hash'?: string;
  mode?: string;
  log?: string;
}

/** The lines that close a run on standard error: where the log and the proposals are. */
function closingLines(report: GateReport): string[] {
  const lines = [`verdict: ${verdictTitle(report)}`];
  if (report.logPath) lines.push(`oracle log: ${report.logPath}`);
  if (report.proposals) {
    lines.push(`proposed tests.lock: ${report.proposals.testsLock}`);
    lines.push(`proposed flake ledger: ${report.proposals.flakeLedger}`);
  }
  return lines;
}

export const runCommand: Command = {
  name: 'run',
  summary: 'run the whole gate on a PR (config, hash, policy, fixtures, container, tests)',
  help: HELP,
  async run(args, io): Promise<CommandResult> {
    let values: RunOptions;
    try {
      ({ values } = parseArgs({
        args,
        options: {
          repo: { type: 'string' },
          base: { type: 'string' },
          head: { type: 'string' },
          oracle: { type: 'string' },
          'oracle-hash': { type: 'string' },
          mode: { type: 'string' },
          log: { type: 'string' },
        },
        allowPositionals: false,
        strict: true,
      }));
    } catch (e) {
      return usageError('run', (e as Error).message);
    }
    const mode = (values.mode ?? 'grade') as GateMode;
    if (mode !== 'grade' && mode !== 'baseline')
      return usageError('run', `--mode must be grade or baseline, not ${JSON.stringify(values.mode)}`);
    const required: (keyof RunOptions)[] = [
      'repo',
      'base',
      ...(mode === 'grade' ? ['head' as const] : []),
      'oracle',
      'oracle-hash',
    ];
    for (const name of required) if (!values[name]) return usageError('run', `--${name} is required`);
    if (values.log === '') return usageError('run', '--log must name a file');

    const repo = values.repo!;
    const base = await resolveCommit(repo, values.base!);
    if (!base.ok) return usageError('run', `--base: ${base.error}`);
    let headSha = '';
    if (values.head) {
      const head = await resolveCommit(repo, values.head);
      if (!head.ok) return usageError('run', `--head: ${head.error}`);
      headSha = head.sha;
    }

    const progress = (line: string) => io.progress(safeLogLine(line));
    const request: GateRequest = {
      repoDir: repo,
      baseSha: base.sha,
      headSha,
      oracleDir: values.oracle!,
      pinnedOracleHash: values['oracle-hash']!,
      mode,
      ...(values.log ? { logPath: values.log } : {}),
      progress,
    };
    const report = await runGate(request);
    for (const line of closingLines(report)) progress(line);
    const stdout =
      serializeVerdict(report.verdict) +
      '\n' +
      (report.testsHash !== undefined ? `tests_hash=${report.testsHash}\n` : '');
    return { exitCode: countsAsPass(report) ? 0 : 1, stdout };
  },
};
