import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, realpath, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { GateMode } from '../gate/report.js';
import type { FailReason } from '../verdict/schema.js';
import { SUBKIND } from '../results/fail-subkinds.js';
import { judgeRun, type Judgement, type RunEvidence, type SuiteEvidence } from '../results/judge-run.js';
import { readRegularFile, readSuiteReports } from '../results/read-reports.js';
import { dockerCreateArgs } from './create-args.js';
import { dockerCli, runDocker, stderrTail, type DockerCli, type DockerResult } from './docker-cli.js';
import { HARNESS_EXIT, harnessExitReason, parseStatusFile, type StatusRecord } from './harness-protocol.js';
import { HARNESS_SCRIPT } from './harness-script.js';
import { copyHiddenTests, HiddenTestsError } from './hidden-tests-copy.js';
import { buildMirror } from './mirror.js';
import { makeReadableByAll } from './readable-tree.js';
import { ensurePinnedImage } from './pinned-image.js';
import { removeRunFolder, type ReportFolderOwner } from './remove-run-folder.js';
import {
  formatBytes,
  reportFolderBreach,
  walkReportFolder,
  watchReportFolder,
  type ReportFolderBreach,
} from './report-folder-watch.js';
import { restorePathspecs, validateRunConfig, type OracleRunConfig } from './run-config.js';

/**
 * Stage 5 and 6 of the gate, end to end: build the mirror, make sure the pinned image is there,
 * run the harness in a hardened container under a wall-clock limit, read back its status and
 * JUnit reports, and judge them. It never throws for anything a run can meet (bad config, no
 * engine, a hostile patch, a timeout): each is a FailReason in the result. The container is
 * removed on every path, and its temporary folders with it. While it runs, a watch on the report
 * folder (the one host folder it can write) kills it as soon as the suites write past that
 * folder's limits, so PR code cannot fill the runner's disk there.
 */
export interface OracleRunRequest {
  mode: GateMode;
  config: OracleRunConfig;
  /** A git repository holding the base commit (read as data; nothing is checked out). */
  repoDir: string;
  /** Full SHA of the commit the diff is applied to. */
  baseSha: string;
  /**
   * The filtered diff (grade mode only; baseline runs without one): whole, or as its chunks in
   * order (the path policy's filteredChunks), written out without being joined into one copy.
   */
  diff?: Buffer | readonly Buffer[];
  /** The oracle's `tests/` folder on the host (snapshotted into the run's folder, then mounted). */
  hiddenTestsDir: string;
  /** Test IDs the flake ledger has frozen: their failure alone does not fail the gate. */
  frozen?: ReadonlySet<string>;
  docker?: DockerCli;
  pullTimeoutMs?: number;
  /** Where the per-run temporary folder goes [os.tmpdir()]; must be visible to the engine. */
  tmpRoot?: string;
  progress?: (line: string) => void;
  /** The harness text [the bundled src/container/harness.sh]. */
  harnessScript?: string;
}

export interface StepTiming {
  step: string;
  ms: number;
}

export interface OracleRunResult extends Omit<Judgement, 'exitReason'> {
  mode: GateMode;
  /** containerReasons then testReasons: empty means this layer passes. */
  reasons: FailReason[];
  exitReason: Judgement['exitReason'] | 'not-run';
  /** The pinned reference, `name@sha256:...`, and the image ID that ran. */
  imageRef?: string;
  imageId?: string;
  imagePulled?: boolean;
  mirrorCommit?: string;
  baseTree?: string;
  diffSha256?: string;
  diffBytes?: number;
  containerName?: string;
  containerExitCode: number | null;
  timedOut: boolean;
  oomKilled: boolean;
  /**
   * Set when the report folder passed its limits (src/container/report-folder-watch.ts), during
   * the run (the container was killed at once) or at its end; the reports were then not read.
   */
  reportFolderBreach?: ReportFolderBreach;
  /** The harness's status file, parsed (untrusted once PR code ran). */
  harnessStatus: StatusRecord[];
  /** The container's output, capped (head and tail kept). Untrusted. */
  stdout: string;
  stderr: string;
  /** The exact `docker create` argument array. */
  dockerArgs: string[];
  timings: StepTiming[];
}

const STATUS_MAX_BYTES = 64 * 1024;
const OUTPUT_HEAD = 4 * 1024 * 1024;
const OUTPUT_TAIL = 1024 * 1024;

function failReason(subkind: string, message: string): FailReason {
  return { kind: 'custom', subkind, message };
}

/**
 * The result of a run that never started a container: `reasons` are why, and they are the
 * container stage's own unless `containerReasons` says otherwise (the gate log passes `[]`).
 */
export function notRunResult(
  mode: GateMode,
  reasons: FailReason[],
  extra: Partial<OracleRunResult> = {},
): OracleRunResult {
  return {
    mode,
    reasons,
    containerReasons: reasons,
    testReasons: [],
    exitReason: 'not-run',
    outcomes: [],
    hiddenIds: [],
    quarantined: false,
    notes: [],
    containerExitCode: null,
    timedOut: false,
    oomKilled: false,
    harnessStatus: [],
    stdout: '',
    stderr: '',
    dockerArgs: [],
    timings: [],
    ...extra,
  };
}

function notRun(mode: GateMode, reason: FailReason, extra: Partial<OracleRunResult> = {}): OracleRunResult {
  return notRunResult(mode, [reason], extra);
}

async function checkHiddenDir(dir: string): Promise<string | { error: string }> {
  try {
    const real = await realpath(dir);
    if (!(await stat(real)).isDirectory())
      return { error: `the hidden tests folder ${dir} is not a directory` };
    return real;
  } catch {
    return { error: `the hidden tests folder ${dir} does not exist` };
  }
}

/** The job folder the harness reads: its settings as plain files, one value each. */
async function writeJob(
  dir: string,
  request: OracleRunRequest,
  mirrorCommit: string,
  pathspecs: readonly string[],
): Promise<void> {
  await mkdir(dir, { mode: 0o755 });
  const file = (name: string, content: string | Buffer | Iterable<Buffer>) =>
    writeFile(join(dir, name), content, { mode: 0o644 });
  const { config } = request;
  await Promise.all([
    file('harness.sh', request.harnessScript ?? HARNESS_SCRIPT),
    file('mode', request.mode),
    file('base', mirrorCommit),
    file('hidden-dest', config.hiddenTests.dest),
    file('hidden-command', config.hiddenTests.command),
    ...(config.existingSuite !== undefined
      ? [
          file('existing-command', config.existingSuite.command),
          file('restore-pathspecs', pathspecs.join('\n')),
        ]
      : []),
    ...(request.mode === 'grade' && request.diff !== undefined
      ? [file('diff.patch', diffChunks(request.diff))]
      : []),
  ]);
  await makeReadableByAll(dir);
}

function diffChunks(diff: Buffer | readonly Buffer[]): readonly Buffer[] {
  return Buffer.isBuffer(diff) ? [diff] : diff;
}

function describeDiff(chunks: readonly Buffer[]): { diffSha256: string; diffBytes: number } {
  const hash = createHash('sha256');
  let diffBytes = 0;
  for (const chunk of chunks) {
    hash.update(chunk);
    diffBytes += chunk.length;
  }
  return { diffSha256: hash.digest('hex'), diffBytes };
}

function suiteEvidence(
  records: readonly StatusRecord[],
  suite: string,
  report: SuiteEvidence['report'],
): SuiteEvidence {
  const mine = records.filter((r) => r.kind === 'suite' && r.fields.name === suite);
  if (mine.length !== 1) {
    return {
      report,
      statusProblem: mine.length === 0 ? 'no record of the suite' : `recorded ${mine.length} times`,
    };
  }
  const fields = (mine[0] as StatusRecord).fields;
  const rc = fields.rc ?? '';
  if (!/^[0-9]{1,3}$/.test(rc) || (fields.report !== 'present' && fields.report !== 'missing')) {
    return { report, statusProblem: 'a malformed record' };
  }
  return { report, exitCode: Number(rc), harnessSawReport: fields.report === 'present' };
}

/** The harness's one-line account of the step that failed: git apply's error, or its own. */
function failedStepDetail(records: readonly StatusRecord[], withStep: boolean): string | undefined {
  const failed = records.filter((r) => r.kind === 'step' && r.fields.rc !== '0');
  const last = failed[failed.length - 1];
  if (last === undefined) return undefined;
  const detail = last.fields.detail ?? 'failed';
  return withStep ? `${last.fields.name ?? 'step'}: ${detail}` : detail;
}

function harnessTimings(records: readonly StatusRecord[]): StepTiming[] {
  return records
    .filter((r) => (r.kind === 'step' || r.kind === 'suite') && /^[0-9]{1,9}$/.test(r.fields.ms ?? ''))
    .map((r) => ({ step: `harness:${r.fields.name ?? r.kind}`, ms: Number(r.fields.ms) }));
}

export async function runOracleContainer(request: OracleRunRequest): Promise<OracleRunResult> {
  const { mode, config } = request;
  const progress = request.progress ?? (() => {});
  const problems = validateRunConfig(config);
  if (mode === 'grade' && request.diff === undefined) problems.push('grade mode needs the filtered diff');
  if (mode === 'baseline' && request.diff !== undefined) problems.push('baseline mode runs without a diff');
  if (problems.length > 0) return notRun(mode, failReason(SUBKIND.configInvalid, problems.join('; ')));
  const hiddenDir = await checkHiddenDir(request.hiddenTestsDir);
  if (typeof hiddenDir !== 'string') return notRun(mode, failReason(SUBKIND.configInvalid, hiddenDir.error));
  const specs = restorePathspecs(config.existingSuite?.paths ?? []);
  if ('error' in specs) return notRun(mode, failReason(SUBKIND.configInvalid, specs.error));

  const diffInfo = request.diff === undefined ? {} : describeDiff(diffChunks(request.diff));
  const cli = request.docker ?? dockerCli();
  const timings: StepTiming[] = [];
  const timed = async <T>(step: string, work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      timings.push({ step, ms: Math.round(performance.now() - started) });
    }
  };

  const root = await mkdtemp(join(request.tmpRoot ?? tmpdir(), 'oracle-gate-'));
  // Set once a container may have written into the report folder: who can open it up for removal.
  let reportsOwner: ReportFolderOwner | undefined;
  const paths = {
    job: join(root, 'job'),
    mirror: join(root, 'mirror.git'),
    hidden: join(root, 'hidden'),
    reports: join(root, 'reports'),
  };
  try {
    // The mirror, the image and the hidden tests' snapshot do not depend on each other.
    const [mirror, image, copied] = await Promise.all([
      timed('mirror', () =>
        buildMirror(request.repoDir, request.baseSha, paths.mirror).then(
          async (m) => {
            await makeReadableByAll(paths.mirror);
            return m;
          },
          (error: Error) => error,
        ),
      ),
      timed('image', () => ensurePinnedImage(cli, config.image, { pullTimeoutMs: request.pullTimeoutMs })),
      timed('hidden-tests', () =>
        copyHiddenTests(hiddenDir, paths.hidden).then(
          () => undefined,
          (error: Error) => error,
        ),
      ),
    ]);
    if (copied !== undefined) {
      const why = copied instanceof HiddenTestsError ? copied.message : `cannot read them: ${copied.message}`;
      return notRun(mode, failReason(SUBKIND.configInvalid, why), { ...diffInfo, timings });
    }
    if (mirror instanceof Error) {
      return notRun(
        mode,
        failReason(SUBKIND.mirrorFailed, `cannot build the base mirror: ${mirror.message}`),
        {
          ...diffInfo,
          timings,
        },
      );
    }
    if (!image.ok) return notRun(mode, image.reason, { ...diffInfo, timings, mirrorCommit: mirror.commit });
    progress(
      `container: base tree ${mirror.tree.slice(0, 12)} mirrored; image ${image.ref.ref} ${image.pulled ? 'pulled' : 'present'} (${image.imageId.slice(0, 19)})`,
    );
    const known = {
      ...diffInfo,
      imageRef: image.ref.ref,
      imageId: image.imageId,
      imagePulled: image.pulled,
      mirrorCommit: mirror.commit,
      baseTree: mirror.tree,
    };

    await timed('job', async () => {
      await writeJob(paths.job, request, mirror.commit, specs.pathspecs);
      await mkdir(paths.reports);
      await chmod(paths.reports, 0o777); // the container's user is not the host's
    });

    const name = `oracle-gate-${randomBytes(8).toString('hex')}`;
    const dockerArgs = dockerCreateArgs({ name, imageId: image.imageId, config, hostPaths: paths });
    reportsOwner = {
      cli,
      imageId: image.imageId,
      user: config.user,
      reports: paths.reports,
      name: `${name}-cleanup`,
    };
    const created = await timed('create', () => runDocker(cli, dockerArgs, { timeoutMs: 120_000 }));
    if (created.exitCode !== 0) {
      await runDocker(cli, ['rm', '--force', name], { timeoutMs: 60_000 });
      return notRun(
        mode,
        failReason(SUBKIND.containerFailed, `docker create failed: ${stderrTail(created)}`),
        {
          ...known,
          dockerArgs,
          timings,
        },
      );
    }

    let run: DockerResult | undefined;
    let stoppedBy: 'timeout' | 'report-folder' | undefined;
    let breach: ReportFolderBreach | undefined;
    let state = { exitCode: null as number | null, oomKilled: false };
    try {
      progress(`container: ${name} running (wall-clock limit ${config.timeoutSeconds} s)`);
      const limitMs = config.timeoutSeconds * 1000;
      let stopping: Promise<unknown> | undefined;
      const stop = (why: NonNullable<typeof stoppedBy>) => {
        if (stopping !== undefined) return;
        stoppedBy = why;
        stopping = runDocker(cli, ['kill', name], { timeoutMs: 30_000 }).then(() =>
          runDocker(cli, ['rm', '--force', name], { timeoutMs: 60_000 }),
        );
      };
      const timer = setTimeout(() => stop('timeout'), limitMs);
      const watch = watchReportFolder(paths.reports, {
        onBreach: (found) => {
          breach = found;
          stop('report-folder');
        },
      });
      run = await timed('run', () =>
        runDocker(cli, ['start', '--attach', name], {
          // Past the limit the container is killed; this only bounds a CLI that hangs after that.
          timeoutMs: limitMs + 60_000,
          headBytes: OUTPUT_HEAD,
          tailBytes: OUTPUT_TAIL,
        }),
      );
      clearTimeout(timer);
      await watch.stop();
      await stopping;
      if (stoppedBy === undefined) {
        // The engine's record of the exit, rather than the attached CLI's, is the one to trust.
        const inspected = await timed('inspect', () =>
          runDocker(
            cli,
            ['inspect', '--format', '{{.State.ExitCode}} {{.State.OOMKilled}} {{.State.Status}}', name],
            {
              timeoutMs: 60_000,
            },
          ),
        );
        const [code, oom, status] = inspected.stdout.trim().split(' ');
        if (inspected.exitCode === 0 && status === 'exited' && /^[0-9]{1,3}$/.test(code ?? '')) {
          state = { exitCode: Number(code), oomKilled: oom === 'true' };
        }
      }
    } finally {
      const removed = await timed('remove', () =>
        runDocker(cli, ['rm', '--force', name], { timeoutMs: 60_000 }),
      );
      if (removed.exitCode !== 0 && !/No such container/i.test(removed.stderr)) {
        progress(`container: could not remove ${name}: ${stderrTail(removed)}`);
      }
    }
    const timedOut = stoppedBy === 'timeout';
    // The container is gone, so this last look sees all it wrote, whatever the watch missed
    // between two walks: nothing past the limits is ever read.
    breach ??= reportFolderBreach(await timed('report-folder', async () => walkReportFolder(paths.reports)));
    progress(
      timedOut
        ? `container: ${name} passed its ${config.timeoutSeconds} s limit; killed and removed`
        : stoppedBy === 'report-folder' && breach !== undefined
          ? `container: ${name} killed and removed: the report folder passed its limits (${formatBytes(breach.totals.bytes)} in ${breach.totals.entries} entries at the check)`
          : `container: harness exited ${state.exitCode ?? 'abnormally'}`,
    );

    const notRead = { kind: 'invalid', error: 'not read: the report folder passed its limits' } as const;
    const collected = await timed('collect', async () => {
      if (breach !== undefined) return { records: [], existingReport: notRead, hiddenReport: notRead };
      const statusText = await readRegularFile(join(paths.reports, 'status'), STATUS_MAX_BYTES).then(
        (b) => b.toString('utf8'),
        () => '',
      );
      const records = parseStatusFile(statusText);
      const [existingReport, hiddenReport] = await Promise.all([
        readSuiteReports(join(paths.reports, 'existing')),
        readSuiteReports(join(paths.reports, 'hidden')),
      ]);
      return { records, existingReport, hiddenReport };
    });
    const { records } = collected;
    const evidence: RunEvidence = {
      mode,
      timedOut,
      timeoutSeconds: config.timeoutSeconds,
      exitCode: state.exitCode,
      oomKilled: state.oomKilled,
      memoryLimit: config.limits.memory,
      ...(breach !== undefined ? { reportFolderOverLimit: breach.message } : {}),
      hidden: suiteEvidence(records, 'hidden', collected.hiddenReport),
      ...(config.existingSuite !== undefined
        ? { existing: suiteEvidence(records, 'existing', collected.existingReport) }
        : {}),
    };
    if (state.exitCode === HARNESS_EXIT.patchDoesNotApply || state.exitCode === HARNESS_EXIT.harnessError) {
      const detail = failedStepDetail(records, state.exitCode === HARNESS_EXIT.harnessError);
      if (detail !== undefined) evidence.detail = detail;
    } else if (
      stoppedBy === undefined &&
      harnessExitReason(state.exitCode) === undefined &&
      run !== undefined
    ) {
      // Not the harness's exit: the engine's or the CLI's words say why.
      evidence.detail = stderrTail(run);
    }
    const judgement = judgeRun(evidence, request.frozen ?? new Set());
    return {
      ...judgement,
      ...known,
      mode,
      reasons: [...judgement.containerReasons, ...judgement.testReasons],
      containerName: name,
      containerExitCode: state.exitCode,
      timedOut,
      oomKilled: state.oomKilled,
      ...(breach !== undefined ? { reportFolderBreach: breach } : {}),
      harnessStatus: records,
      stdout: run?.stdout ?? '',
      stderr: run?.stderr ?? '',
      dockerArgs,
      timings: [...timings, ...harnessTimings(records)],
    };
  } catch (error) {
    // A bug or an environment fault we did not foresee: fail closed, with what we know.
    return notRun(
      mode,
      failReason(SUBKIND.containerFailed, `the oracle run failed: ${(error as Error).message}`),
      {
        ...diffInfo,
        timings,
      },
    );
  } finally {
    const removal = await removeRunFolder(root, reportsOwner);
    if (!removal.removed) progress(`container: could not remove the run's folder ${root}: ${removal.error}`);
  }
}
