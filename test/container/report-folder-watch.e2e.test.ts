import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, cpSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOracleContainer, type OracleRunResult } from '../../src/container/run-oracle-container.js';
import type { OracleRunConfig } from '../../src/container/run-config.js';
import { formatBytes, REPORT_FOLDER_LIMITS } from '../../src/container/report-folder-watch.js';
import { OTHER_UID, runAsOtherUser } from './as-other-user.js';
import { buildSampleRepo, SAMPLE, sampleConfig, type SampleRepo } from './sample-repo.js';
import { tempDirs } from './temp-dirs.js';

const tempDir = tempDirs('og-report-fill-');

/**
 * PR code that fills the report folder, the one host folder the container can write, through the
 * real engine: the host's watch kills the container once the folder passes its limits (or the
 * disk under it loses half its free space to a file deleted but kept open), the run is a Fail
 * report-invalid, and nothing is left behind. Every writer stops itself (at 1 GiB, 100,000 files,
 * 700 MiB) and then sleeps, so a broken watch can neither fill the disk nor pass: the wall-clock
 * limit would end the run as a timeout.
 */
let repo: SampleRepo;
let config: OracleRunConfig;

beforeAll(async () => {
  repo = await buildSampleRepo();
  config = { ...(await sampleConfig(inject('testImage'))), timeoutSeconds: 90 };
});
afterAll(() => repo.remove());

const FILL_BYTES = String.raw`python3 -c '
import os, time
chunk = b"x" * (1 << 20)
with open(os.path.join(os.environ["ORACLE_REPORT_DIR"], "fill"), "wb", buffering=0) as f:
    for i in range(1, 1025):
        f.write(chunk)
        if i % 64 == 0:
            print("wrote %d MiB" % i, flush=True)
print("the writer stopped itself at 1 GiB", flush=True)
time.sleep(600)
'`;

const FILL_FILES = String.raw`python3 -c '
import os, time
d = os.path.join(os.environ["ORACLE_REPORT_DIR"], "many")
os.mkdir(d)
for i in range(100000):
    with open(os.path.join(d, "%06d.xml" % i), "wb") as f:
        f.write(b"<testsuite/>\n")
print("the writer stopped itself at 100000 files", flush=True)
time.sleep(600)
'`;

interface Held {
  bytes: number;
  entries: number;
}

/** What the report folder holds, measured by du and find, while the run's folder still exists. */
function measure(tmpRoot: string): Held | undefined {
  const runs = readdirSync(tmpRoot).filter((n) => n.startsWith('oracle-gate-'));
  if (runs.length !== 1) return undefined;
  const reports = join(tmpRoot, runs[0] as string, 'reports');
  const bytes = Number(execFileSync('du', ['-s', '-b', reports]).toString().split('\t')[0]);
  const entries = execFileSync('find', [reports, '-mindepth', '1', '-printf', '.'], {
    maxBuffer: 16 * 1024 * 1024,
  }).length;
  return { bytes, entries };
}

async function fillRun(
  command: string,
  tmpRoot = tempDir(),
  overrides: Partial<OracleRunConfig> = {},
): Promise<{ result: OracleRunResult; held?: Held; tmpRoot: string }> {
  let held: Held | undefined;
  const result = await runOracleContainer({
    mode: 'grade',
    config: { ...config, ...overrides, existingSuite: { command, paths: config.existingSuite?.paths ?? [] } },
    repoDir: repo.dir,
    baseSha: repo.base,
    diff: await repo.diff('honest'),
    hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    tmpRoot,
    // Said once the container is gone and before its folder is removed: the moment to measure.
    progress: (line) => {
      if (/killed and removed: the report folder/.test(line)) held = measure(tmpRoot);
    },
  });
  return { result, tmpRoot, ...(held !== undefined ? { held } : {}) };
}

function containersNamed(name: string): string {
  return execFileSync('docker', ['ps', '--all', '--quiet', '--filter', `name=^${name}`])
    .toString()
    .trim();
}

function expectGone(result: OracleRunResult, tmpRoot: string): void {
  expect(result.containerName).toMatch(/^oracle-gate-[0-9a-f]{16}$/);
  // Neither the run's container nor a cleanup container is left.
  expect(containersNamed(result.containerName ?? '')).toBe('');
  expect(readdirSync(tmpRoot)).toEqual([]);
}

describe('a suite that fills the report folder', () => {
  it('writing a file toward 1 GiB is killed past 65 MiB: Fail report-invalid, nothing left', async () => {
    const { result, held, tmpRoot } = await fillRun(FILL_BYTES);
    expect(result.reasons).toEqual([
      {
        kind: 'custom',
        subkind: 'report-invalid',
        message:
          'the suites wrote more than 65 MiB into the report folder (/oracle/reports); the run was stopped. ' +
          '$ORACLE_REPORT_DIR is for JUnit reports; write other artefacts under /tmp, a size-limited tmpfs',
      },
    ]);
    expect(result.exitReason).toBe('report-folder-over-limit');
    expect(result.timedOut).toBe(false);
    expect(result.containerExitCode).toBeNull();
    expect(result.outcomes).toEqual([]);
    expect(result.reportFolderBreach?.totals.bytes).toBeGreaterThan(REPORT_FOLDER_LIMITS.maxBytes);
    expect(result.stdout).toMatch(/==== oracle-harness: existing suite ====/);
    expect(held?.bytes).toBeGreaterThan(REPORT_FOLDER_LIMITS.maxBytes);
    expect(held?.bytes).toBeLessThanOrEqual(1024 * 1024 * 1024 + 64 * 1024);
    expectGone(result, tmpRoot);
    console.info(
      `report folder at the kill: ${formatBytes(held?.bytes ?? 0)} (limit ${formatBytes(REPORT_FOLDER_LIMITS.maxBytes)}; ` +
        `${formatBytes(result.reportFolderBreach?.totals.bytes ?? 0)} at the walk that stopped it)`,
    );
  }, 180_000);

  it('creating 100,000 small files is killed past 10,000 entries: Fail report-invalid, nothing left', async () => {
    const { result, held, tmpRoot } = await fillRun(FILL_FILES);
    expect(result.reasons.map((r) => r.subkind)).toEqual(['report-invalid']);
    expect(result.reasons[0]?.message).toMatch(
      /^the suites created more than 10000 files and folders in the report folder \(\/oracle\/reports\); the run was stopped\./,
    );
    expect(result.exitReason).toBe('report-folder-over-limit');
    expect(result.reportFolderBreach?.totals.entries).toBe(REPORT_FOLDER_LIMITS.maxEntries + 1);
    expect(held?.entries).toBeGreaterThan(REPORT_FOLDER_LIMITS.maxEntries);
    expect(held?.entries).toBeLessThanOrEqual(100_003);
    expectGone(result, tmpRoot);
    console.info(
      `report folder at the kill: ${held?.entries} entries (limit ${REPORT_FOLDER_LIMITS.maxEntries}), ${formatBytes(held?.bytes ?? 0)}`,
    );
  }, 180_000);

  it('that exits before a walk sees it is still refused by the last look, and its reports are not read', async () => {
    // 80 MiB written and the suite gone in well under a second, past a JUnit report that passes.
    const burst = String.raw`python3 -c '
import os
d = os.environ["ORACLE_REPORT_DIR"]
open(os.path.join(d, "junit.xml"), "w").write("<testsuite><testcase classname=\"t\" name=\"ok\"/></testsuite>")
with open(os.path.join(d, "fill"), "wb") as f:
    f.write(b"x" * (80 << 20))
'`;
    const { result, tmpRoot } = await fillRun(burst);
    expect(result.reasons.map((r) => r.subkind)).toEqual(['report-invalid']);
    expect(result.reasons[0]?.message).toMatch(/^the suites wrote more than 65 MiB/);
    expect(result.outcomes).toEqual([]);
    expect(readdirSync(tmpRoot)).toEqual([]);
  }, 180_000);

  it('holding a deleted file open is killed once half the disk’s free space is gone, though the folder stays empty', async () => {
    // The run's folder on a 768 MiB tmpfs of its own: the writer stops itself at 700 MiB (and
    // holds the file open), which is past half of what is free there but cannot fill it.
    const disk = tempDir();
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=768m,mode=1777', 'tmpfs', disk]);
    try {
      const unlinked = String.raw`python3 -c '
import os, time
p = os.path.join(os.environ["ORACLE_REPORT_DIR"], "fill")
f = open(p, "wb", buffering=0)
os.unlink(p)
for i in range(700):
    f.write(b"x" * (1 << 20))
print("the writer stopped itself at 700 MiB", flush=True)
time.sleep(600)
'`;
      // The tmpfs pages count against the container's memory: give it room past the 700 MiB.
      const { result, held, tmpRoot } = await fillRun(unlinked, disk, {
        limits: { ...config.limits, memory: '2g' },
      });
      expect(result.reasons.map((r) => r.subkind)).toEqual(['report-invalid']);
      expect(result.reasons[0]?.message).toMatch(
        /^free space on the runner's disk that holds the report folder \(\/oracle\/reports\) fell from [0-9.]+ MiB to [0-9.]+ MiB while the suites ran, though the folder holds only [0-9.]+ KiB: the suites may be writing to files they deleted and keep open; the run was stopped before the disk fills up$/,
      );
      expect(result.exitReason).toBe('report-folder-over-limit');
      const seen = result.reportFolderBreach?.totals.disk;
      expect(seen?.freeAtStart).toBeGreaterThan(700 * 1024 * 1024);
      expect(seen?.freeNow).toBeLessThan((seen?.freeAtStart ?? 0) / 2);
      // Nothing of it was in the folder: no walk could have seen it.
      expect(held?.bytes).toBeLessThan(1024 * 1024);
      expectGone(result, tmpRoot);
      console.info(
        `disk free at the walk that stopped it: ${formatBytes(seen?.freeNow ?? 0)} of ${formatBytes(seen?.freeAtStart ?? 0)}`,
      );
    } finally {
      execFileSync('umount', [disk]);
    }
  }, 180_000);

  it('as an unprivileged host user, leaves nothing behind though the suite locked a folder (mode 000) before the kill', async () => {
    // GitHub's runner is uid 1001, the oracle user 1000: without the owner's chmod the host could
    // not delete a thing the suite wrote.
    const lockAndFill = String.raw`mkdir -p "$ORACLE_REPORT_DIR/locked/in" && echo x > "$ORACLE_REPORT_DIR/locked/in/f" &&
      chmod 000 "$ORACLE_REPORT_DIR/locked" && mkdir "$ORACLE_REPORT_DIR/sticky" && chmod 1777 "$ORACLE_REPORT_DIR/sticky" && ${FILL_BYTES.replaceAll(
        'os.environ["ORACLE_REPORT_DIR"], "fill"',
        'os.environ["ORACLE_REPORT_DIR"], "sticky", "fill"',
      )}`;
    const work = tempDir();
    chmodSync(work, 0o755);
    const tmpRoot = join(work, 'tmp');
    execFileSync('mkdir', ['-m', '1777', tmpRoot]);
    const diffFile = join(work, 'diff.patch');
    writeFileSync(diffFile, await repo.diff('honest'));
    // The repository as the runner's checkout would be: the host user's own (git refuses others').
    chmodSync(repo.dir, 0o755);
    execFileSync('chown', ['-R', `${OTHER_UID}:${OTHER_UID}`, repo.dir]);
    chownSync(work, OTHER_UID, OTHER_UID);
    // The hidden tests where that user can read them: the clone may lie under /root.
    const hidden = join(work, 'hidden');
    cpSync(join(SAMPLE, 'oracle', 'tests'), hidden, { recursive: true });
    execFileSync('chown', ['-R', `${OTHER_UID}:${OTHER_UID}`, hidden]);
    const request = {
      mode: 'grade',
      config: {
        ...config,
        existingSuite: { command: lockAndFill, paths: config.existingSuite?.paths ?? [] },
      },
      repoDir: repo.dir,
      baseSha: repo.base,
      hiddenTestsDir: hidden,
      tmpRoot,
    };
    let run;
    try {
      run = await runAsOtherUser(
        `import { readFileSync, readdirSync } from 'node:fs';
       import { runOracleContainer } from './src/container/run-oracle-container.ts';
       const request = JSON.parse(process.argv[2]);
       const lines = [];
       const result = await runOracleContainer({ ...request, diff: readFileSync(process.argv[3]), progress: (l) => lines.push(l) });
       process.stdout.write(JSON.stringify({ reasons: result.reasons, name: result.containerName, left: readdirSync(request.tmpRoot), lines }));`,
        [JSON.stringify(request), diffFile],
      );
    } finally {
      execFileSync('chown', ['-R', '0:0', repo.dir]);
    }
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as {
      reasons: { subkind: string }[];
      name: string;
      left: string[];
      lines: string[];
    };
    expect(out.reasons.map((r) => r.subkind)).toEqual(['report-invalid']);
    expect(out.lines.filter((l) => /could not remove/.test(l))).toEqual([]);
    expect(out.left).toEqual([]);
    expect(containersNamed(out.name)).toBe('');
  }, 180_000);
});
