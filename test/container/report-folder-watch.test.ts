import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  diskFree,
  formatBytes,
  pastLimits,
  REPORT_FOLDER_LIMITS,
  reportFolderBreach,
  walkReportFolder,
  watchReportFolder,
  type ReportFolderBreach,
  type ReportFolderLimits,
  type ReportFolderTotals,
} from '../../src/container/report-folder-watch.js';
import { judgeRun, type RunEvidence } from '../../src/results/judge-run.js';
import { runAsOtherUser } from './as-other-user.js';
import { tempDirs } from './temp-dirs.js';

const tempDir = tempDirs('og-report-watch-');
const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const SMALL: ReportFolderLimits = { maxBytes: 1 * MiB, maxEntries: 100, maxDepth: 8, maxDiskFreeLoss: 0.5 };

/** What a normal run leaves: the status file and one JUnit report per suite. */
function normalReports(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'status'), 'harness protocol=1\n');
  for (const suite of ['existing', 'hidden']) {
    mkdirSync(join(dir, suite));
    writeFileSync(join(dir, suite, 'junit.xml'), '<testsuite>'.padEnd(5000, ' ') + '</testsuite>');
  }
  return dir;
}

describe('the report folder limits', () => {
  it('are both suites’ JUnit read budgets plus 1 MiB, 10,000 entries, 32 levels, half the free disk', () => {
    expect(REPORT_FOLDER_LIMITS).toEqual({
      maxBytes: 65 * MiB,
      maxEntries: 10_000,
      maxDepth: 32,
      maxDiskFreeLoss: 0.5,
    });
  });

  it('write sizes the way a maintainer reads them', () => {
    expect(formatBytes(900)).toBe('900 bytes');
    expect(formatBytes(64 * 1024)).toBe('64 KiB');
    expect(formatBytes(65 * MiB)).toBe('65 MiB');
    expect(formatBytes(1.5 * 1024 * MiB)).toBe('1.5 GiB');
    expect(formatBytes(MiB + 1)).toBe('1 MiB');
  });
});

describe('the decision from a walk’s totals', () => {
  const within: ReportFolderTotals = { bytes: 65 * MiB, entries: 10_000, depth: 32 };

  it('lets a folder exactly at every limit go on', () => {
    expect(reportFolderBreach(within)).toBeUndefined();
    expect(reportFolderBreach({ bytes: 0, entries: 0, depth: 0 })).toBeUndefined();
  });

  it('stops a folder one byte past the byte limit, saying what to do', () => {
    expect(reportFolderBreach({ ...within, bytes: 65 * MiB + 1 })?.message).toBe(
      'the suites wrote more than 65 MiB into the report folder (/oracle/reports); the run was stopped. ' +
        '$ORACLE_REPORT_DIR is for JUnit reports; write other artefacts under /tmp, a size-limited tmpfs',
    );
  });

  it('stops a folder with one entry too many, or one level too deep', () => {
    expect(reportFolderBreach({ ...within, entries: 10_001 })?.message).toMatch(
      /^the suites created more than 10000 files and folders in the report folder \(\/oracle\/reports\); the run was stopped\./,
    );
    expect(reportFolderBreach({ ...within, depth: 33 })?.message).toMatch(
      /^the suites nested folders more than 32 deep in the report folder \(\/oracle\/reports\); the run was stopped\./,
    );
  });

  it('stops a folder the host could not read to the end, naming only the error and the depth', () => {
    const breach = reportFolderBreach({
      bytes: 10,
      entries: 2,
      depth: 1,
      blocked: { code: 'EACCES', depth: 2 },
    });
    expect(breach?.message).toBe(
      'the host could not check the size of the report folder (/oracle/reports): an entry 2 level(s) down ' +
        'could not be read (EACCES), so it could hide any amount of data; the run was stopped. ' +
        'The suites must leave the folders they make there readable',
    );
  });

  it('lets the run use up to half the disk’s free space, and stops it past that, naming both figures', () => {
    const disk = (freeNow: number) => ({
      bytes: 20 * 1024,
      entries: 5,
      depth: 2,
      disk: { freeAtStart: 10 * GiB, freeNow },
    });
    expect(reportFolderBreach(disk(5 * GiB))).toBeUndefined();
    expect(reportFolderBreach(disk(12 * GiB))).toBeUndefined();
    expect(reportFolderBreach(disk(5 * GiB - 1))?.message).toBe(
      "free space on the runner's disk that holds the report folder (/oracle/reports) fell from 10 GiB to 5 GiB " +
        'while the suites ran, though the folder holds only 20 KiB: the suites may be writing to files they deleted ' +
        'and keep open; the run was stopped before the disk fills up',
    );
  });

  it('names the byte limit first when several are passed, and carries the totals', () => {
    const totals = { bytes: 2 * 65 * MiB, entries: 20_000, depth: 40, blocked: { code: 'EIO', depth: 3 } };
    const breach = reportFolderBreach(totals);
    expect(breach?.message).toMatch(/^the suites wrote more than 65 MiB/);
    expect(breach?.totals).toBe(totals);
  });

  it('stops exactly when a walk may stop early, and never un-stops as totals grow (property)', () => {
    const totals = fc.record(
      {
        bytes: fc.nat({ max: 200 * MiB }),
        entries: fc.nat({ max: 30_000 }),
        depth: fc.nat({ max: 100 }),
        blocked: fc.record({ code: fc.constantFrom('EACCES', 'ENAMETOOLONG', 'EIO'), depth: fc.nat(64) }),
        disk: fc.record({ freeAtStart: fc.nat({ max: 100 * GiB }), freeNow: fc.nat({ max: 100 * GiB }) }),
      },
      { requiredKeys: ['bytes', 'entries', 'depth'] },
    );
    const growth = fc.record({ bytes: fc.nat(), entries: fc.nat(), depth: fc.nat() });
    fc.assert(
      fc.property(totals, growth, (t, g) => {
        const breach = reportFolderBreach(t);
        expect(breach !== undefined).toBe(pastLimits(t, REPORT_FOLDER_LIMITS));
        const grown = {
          ...t,
          ...(t.disk !== undefined
            ? { disk: { ...t.disk, freeNow: Math.max(0, t.disk.freeNow - g.bytes) } }
            : {}),
          bytes: t.bytes + g.bytes,
          entries: t.entries + g.entries,
          depth: t.depth + g.depth,
        };
        if (breach !== undefined) expect(reportFolderBreach(grown)).toBeDefined();
      }),
    );
  });
});

describe('walking the report folder', () => {
  it('adds up a normal run’s folder: five entries, three levels of nothing to worry about', async () => {
    const totals = walkReportFolder(normalReports());
    expect(totals.entries).toBe(5);
    expect(totals.depth).toBe(2);
    expect(totals.blocked).toBeUndefined();
    // Two 5 KiB reports, the status file and two folders, in whole blocks.
    expect(totals.bytes).toBeGreaterThanOrEqual(2 * 5011 + 19);
    expect(totals.bytes).toBeLessThan(64 * 1024);
    expect(reportFolderBreach(totals)).toBeUndefined();
  });

  it('finds an empty folder empty', async () => {
    expect(walkReportFolder(tempDir())).toEqual({ bytes: 0, entries: 0, depth: 0 });
  });

  it('counts a sparse file at its apparent size: 1 GiB that takes no disk is still no report', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'hidden'));
    writeFileSync(join(dir, 'hidden', 'junit.xml'), '');
    truncateSync(join(dir, 'hidden', 'junit.xml'), 1024 * MiB);
    const totals = walkReportFolder(dir);
    expect(totals.bytes).toBeGreaterThanOrEqual(1024 * MiB);
    expect(reportFolderBreach(totals)?.message).toMatch(/more than 65 MiB/);
  });

  it('measures files whose names are not UTF-8 or hold newlines, and stops once past the limit', async () => {
    const dir = tempDir();
    const bytes = Buffer.alloc(MiB, 0x61);
    // Decoded as text, \xff would become U+FFFD and the lstat would miss the file.
    writeFileSync(Buffer.concat([Buffer.from(`${dir}/`), Buffer.from([0xff, 0xfe])]), bytes);
    writeFileSync(join(dir, 'a\nb'), bytes);
    const totals = walkReportFolder(dir, SMALL);
    expect(totals.blocked).toBeUndefined();
    expect(totals.bytes).toBeGreaterThan(SMALL.maxBytes);
    expect(totals.entries).toBeLessThanOrEqual(2);
  });

  it('follows no link: a link to a large host file or to a folder counts as the link alone', async () => {
    const outside = tempDir();
    writeFileSync(join(outside, 'big'), Buffer.alloc(2 * MiB));
    for (let i = 0; i < 200; i += 1) writeFileSync(join(outside, `f${i}`), '');
    const dir = tempDir();
    symlinkSync(join(outside, 'big'), join(dir, 'junit.xml'));
    symlinkSync(outside, join(dir, 'hidden'));
    symlinkSync('/', join(dir, 'root'));
    const totals = walkReportFolder(dir, SMALL);
    expect(totals).toMatchObject({ entries: 3, depth: 1 });
    expect(totals.bytes).toBeLessThan(4096);
  });

  it('lstat’s a FIFO without opening it (a read would block)', async () => {
    const dir = tempDir();
    expect(spawnSync('mkfifo', [join(dir, 'junit.xml')]).status).toBe(0);
    expect(walkReportFolder(dir)).toEqual({ bytes: 0, entries: 1, depth: 1 });
  });

  it('stops at the first entry past the entry limit, without listing the rest', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'hidden'));
    for (let i = 0; i < 2000; i += 1) writeFileSync(join(dir, 'hidden', `r${i}.xml`), '');
    const totals = walkReportFolder(dir, SMALL);
    expect(totals.entries).toBe(SMALL.maxEntries + 1);
    expect(reportFolderBreach(totals, SMALL)?.message).toMatch(/more than 100 files and folders/);
  });

  it('walks a deep chain without recursion and stops one level past the depth limit', async () => {
    const dir = tempDir();
    // 1000 levels of one-letter folders: a recursive walk would be 1000 frames; the path fits PATH_MAX.
    mkdirSync(join(dir, ...Array.from({ length: 1000 }, () => 'd')), { recursive: true });
    const totals = walkReportFolder(dir);
    expect(totals).toMatchObject({ depth: REPORT_FOLDER_LIMITS.maxDepth + 1, entries: 33 });
    expect(reportFolderBreach(totals)?.message).toMatch(/nested folders more than 32 deep/);
  });

  it('reports a path too long for the host as blocked, since what lies below it cannot be measured', async () => {
    const dir = tempDir();
    // Built with relative paths (each chdir keeps them short), as PR code would: 20 names of 255 bytes.
    const name = 'n'.repeat(255);
    const made = spawnSync(process.execPath, [
      '-e',
      'process.chdir(process.argv[1]); for (let i = 0; i < 20; i++) { require("node:fs").mkdirSync(process.argv[2]); process.chdir(process.argv[2]); }',
      dir,
      name,
    ]);
    expect(made.status).toBe(0);
    const totals = walkReportFolder(dir, { ...REPORT_FOLDER_LIMITS, maxDepth: 64 });
    expect(totals.blocked?.code).toBe('ENAMETOOLONG');
    expect(reportFolderBreach(totals)?.message).toMatch(/could not be read \(ENAMETOOLONG\)/);
  });

  it('reports a missing folder as blocked: the watch never passes what it could not see', async () => {
    const totals = walkReportFolder(join(tempDir(), 'gone'));
    expect(totals.blocked).toEqual({ code: 'ENOENT', depth: 0 });
  });

  it('skips entries that vanish mid-walk and never throws while the folder churns', async () => {
    const dir = tempDir();
    // Another process creates and removes files and whole folders as fast as it can.
    const churn = spawn(process.execPath, [
      '-e',
      `const fs = require('node:fs'); const d = process.argv[1];
       for (;;) {
         for (let i = 0; i < 50; i++) { fs.mkdirSync(d + '/s' + i, { recursive: true }); fs.writeFileSync(d + '/s' + i + '/f', 'x'); fs.writeFileSync(d + '/t' + i, 'x'); }
         for (let i = 0; i < 50; i++) { fs.rmSync(d + '/s' + i, { recursive: true, force: true }); fs.rmSync(d + '/t' + i, { force: true }); }
       }`,
      dir,
    ]);
    try {
      // Wait for the churn to start, then walk for a second while it runs.
      for (let waited = 0; walkReportFolder(dir).entries === 0 && waited < 200; waited += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      let walks = 0;
      let midChurn = 0;
      const end = performance.now() + 1000;
      while (performance.now() < end) {
        const totals = walkReportFolder(dir);
        expect(totals.blocked).toBeUndefined();
        walks += 1;
        // All 50 folders with their file and all 50 files is 150 entries; anything between 0 and
        // that is a walk that met the churn half way.
        if (totals.entries > 0 && totals.entries < 150) midChurn += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(walks).toBeGreaterThan(10);
      expect(midChurn).toBeGreaterThan(0);
    } finally {
      churn.kill('SIGKILL');
    }
  });

  it('as an unprivileged host user, reports a folder the suites made unreadable as blocked', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    mkdirSync(join(dir, 'hidden', 'secret'), { recursive: true });
    writeFileSync(join(dir, 'hidden', 'secret', 'fill'), Buffer.alloc(2 * MiB));
    chmodSync(join(dir, 'hidden'), 0o755);
    chmodSync(join(dir, 'hidden', 'secret'), 0o700);
    const run = await runAsOtherUser(
      `import { walkReportFolder } from './src/container/report-folder-watch.ts';
       process.stdout.write(JSON.stringify(walkReportFolder(process.argv[2])));`,
      [dir],
    );
    expect(run.stderr).toBe('');
    const totals = JSON.parse(run.stdout) as ReportFolderTotals;
    expect(totals.blocked).toEqual({ code: 'EACCES', depth: 2 });
    expect(reportFolderBreach(totals)?.message).toMatch(
      /an entry 2 level\(s\) down could not be read \(EACCES\)/,
    );
  });
});

describe('the free space', () => {
  it('is what an unprivileged user may still write on the folder’s file system, or undefined', () => {
    const dir = tempDir();
    const free = diskFree(dir);
    expect(free).toBeGreaterThan(0);
    // df's figure, in 1K blocks (other writers on the machine move it a little).
    const df = spawnSync('df', ['--output=avail', '-B1', dir], { encoding: 'utf8' });
    const available = Number(df.stdout.trim().split('\n')[1]);
    expect(Math.abs((free ?? 0) - available)).toBeLessThan(GiB);
    expect(diskFree(join(dir, 'gone'))).toBeUndefined();
  });
});

describe('the watch', () => {
  it('stops at once when the folder grows past a limit, and reports it once', async () => {
    const dir = normalReports();
    const seen: ReportFolderBreach[] = [];
    const watch = watchReportFolder(dir, { limits: SMALL, intervalMs: 5, onBreach: (b) => seen.push(b) });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen).toEqual([]);
    writeFileSync(join(dir, 'hidden', 'fill'), Buffer.alloc(2 * MiB));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.message).toMatch(/more than 1 MiB/);
    const walks = watch.walks;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(watch.walks).toBe(walks);
    expect(await watch.stop()).toBe(seen[0]);
  });

  it('walks until stopped on a folder within its limits, then stops without a breach', async () => {
    const dir = normalReports();
    const watch = watchReportFolder(dir, { intervalMs: 5, onBreach: () => expect.unreachable() });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await watch.stop()).toBeUndefined();
    const walks = watch.walks;
    expect(walks).toBeGreaterThan(1);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(watch.walks).toBe(walks);
  });

  it('stops the run once half the disk’s free space at its start is gone, though the folder stays small', async () => {
    const dir = normalReports();
    const free = [10 * GiB, 9 * GiB, 7 * GiB, 4 * GiB];
    const seen: ReportFolderBreach[] = [];
    const watch = watchReportFolder(dir, {
      intervalMs: 1,
      onBreach: (b) => seen.push(b),
      freeSpace: () => free.shift() ?? 1,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const breach = await watch.stop();
    expect(seen).toEqual([breach]);
    expect(watch.walks).toBe(3);
    expect(breach?.totals.disk).toEqual({ freeAtStart: 10 * GiB, freeNow: 4 * GiB });
    expect(breach?.message).toMatch(
      /fell from 10 GiB to 4 GiB while the suites ran, though the folder holds only/,
    );
  });

  it('goes on without the disk check where the free space cannot be read', async () => {
    const watch = watchReportFolder(normalReports(), {
      intervalMs: 1,
      onBreach: () => expect.unreachable(),
      freeSpace: () => undefined,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await watch.stop()).toBeUndefined();
  });

  it('fails closed when a walk throws', async () => {
    const seen: ReportFolderBreach[] = [];
    const watch = watchReportFolder(tempDir(), {
      onBreach: (b) => seen.push(b),
      walk: () => Promise.reject(Object.assign(new Error('boom'), { code: 'EIO' })),
    });
    expect((await watch.stop())?.message).toMatch(/could not be read \(EIO\)/);
    expect(seen).toHaveLength(1);
  });

  it('has no walk left running after stop()', async () => {
    let running = 0;
    let most = 0;
    const watch = watchReportFolder(tempDir(), {
      intervalMs: 1,
      onBreach: () => expect.unreachable(),
      walk: async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 3));
        running -= 1;
        return { bytes: 0, entries: 0, depth: 0 };
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    await watch.stop();
    expect(running).toBe(0);
    expect(most).toBe(1);
  });
});

describe('judging a run the watch stopped', () => {
  const message =
    'the suites wrote more than 65 MiB into the report folder (/oracle/reports); the run was stopped.';
  const notRead = { kind: 'invalid', error: 'not read' } as const;
  const evidence = (extra: Partial<RunEvidence>): RunEvidence => ({
    mode: 'grade',
    timedOut: false,
    timeoutSeconds: 900,
    exitCode: null,
    oomKilled: false,
    memoryLimit: '2g',
    reportFolderOverLimit: message,
    existing: { report: notRead },
    hidden: { report: notRead },
    ...extra,
  });

  it('is a Fail report-invalid of the container stage, with the watch’s message', () => {
    const judged = judgeRun(evidence({}));
    expect(judged.containerReasons).toEqual([{ kind: 'custom', subkind: 'report-invalid', message }]);
    expect(judged.testReasons).toEqual([]);
    expect(judged.exitReason).toBe('report-folder-over-limit');
  });

  it('is still report-invalid when the harness exited 0 and the last look found the folder too big', () => {
    const judged = judgeRun(evidence({ exitCode: 0 }));
    expect(judged.containerReasons.map((r) => r.subkind)).toEqual(['report-invalid']);
  });

  it('gives way to a timeout, which killed the run first', () => {
    const judged = judgeRun(evidence({ timedOut: true }));
    expect(judged.containerReasons.map((r) => r.subkind)).toEqual(['timeout']);
  });

  it('quarantines a baseline run', () => {
    const judged = judgeRun(evidence({ mode: 'baseline' }));
    expect(judged.quarantined).toBe(true);
    expect(judged.containerReasons).toEqual([
      { kind: 'custom', subkind: 'quarantined', message: `baseline run: ${message}` },
    ]);
  });
});
