// The report folder watch (src/container/report-folder-watch.ts): what it costs on a normal run,
// and how far past its limits PR code gets before the kill.
//
//   node_modules/.bin/node bench/report-watch.mjs [--runs 5] [--seconds 10] [--no-docker]
//
// 1. One walk, median of many, of report folders of a few shapes: a normal run's (the status file
//    and one JUnit report per suite), 64 reports per suite (the most the host reads), 10,000
//    entries (the entry limit, walked to the end), a 65 MiB file (the byte limit), a 32-deep chain.
//    With a walk every 100 ms, the CPU share is walk / (walk + 100 ms).
// 2. The watch on a normal run's folder for --seconds: walks made and the CPU time this process
//    spent, against the same time idle.
// 3. With Docker (the test image that .ci/docker-up pushes), --runs grade runs of the sample
//    project whose existing suite fills the report folder as fast as it can: `dd` toward 1 GiB,
//    and 100,000 small files from python. Reports the folder at the walk that stopped the run and
//    at the kill (du and find, from the progress line said once the container is gone), and the
//    run's duration. Each writer stops itself (1 GiB, 100,000 files), so a broken watch cannot
//    fill the disk.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { buildSampleRepo, git, imageRef, SAMPLE } from '../scripts/demo.mjs';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '10' },
    'no-docker': { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const seconds = Number(values.seconds);

const MiB = 1024 * 1024;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const fmtBytes = (n) => (n >= MiB ? `${(n / MiB).toFixed(1)} MiB` : `${(n / 1024).toFixed(1)} KiB`);

const work = mkdtempSync(join(tmpdir(), 'og-bench-watch-'));
try {
  const bundle = async (entry, out) => {
    await build({
      entryPoints: [fileURLToPath(import.meta.resolve(entry))],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: join(work, out),
      loader: { '.sh': 'text' },
      logLevel: 'warning',
    });
    return import(join(work, out));
  };
  const watchModule = await bundle('../src/container/report-folder-watch.ts', 'watch.mjs');
  const { walkReportFolder, watchReportFolder, REPORT_FOLDER_LIMITS } = watchModule;

  // 1. One walk.
  const folder = (name, fill) => {
    const dir = join(work, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'status'), 'harness protocol=1\n'.repeat(12));
    fill(dir);
    return dir;
  };
  const junit = '<testsuite>' + '<testcase classname="t" name="x"/>'.repeat(100) + '</testsuite>';
  const shapes = [
    [
      'normal run (status + 1 report per suite)',
      folder('normal', (d) => {
        for (const s of ['existing', 'hidden']) {
          mkdirSync(join(d, s));
          writeFileSync(join(d, s, 'junit.xml'), junit);
        }
      }),
    ],
    [
      '64 reports per suite',
      folder('many-reports', (d) => {
        for (const s of ['existing', 'hidden']) {
          mkdirSync(join(d, s));
          for (let i = 0; i < 64; i++) writeFileSync(join(d, s, `r${i}.xml`), junit);
        }
      }),
    ],
    [
      `${REPORT_FOLDER_LIMITS.maxEntries} entries (the entry limit)`,
      folder('at-entry-limit', (d) => {
        mkdirSync(join(d, 'hidden'));
        for (let i = 0; i < REPORT_FOLDER_LIMITS.maxEntries - 2; i++)
          writeFileSync(join(d, 'hidden', `f${i}`), 'x');
      }),
    ],
    [
      '65 MiB in one file (the byte limit)',
      folder('at-byte-limit', (d) => {
        writeFileSync(join(d, 'big'), '');
        truncateSync(join(d, 'big'), REPORT_FOLDER_LIMITS.maxBytes - 4096 * 2);
      }),
    ],
    [
      `${REPORT_FOLDER_LIMITS.maxDepth}-deep chain`,
      folder('deep', (d) => {
        mkdirSync(join(d, ...Array.from({ length: REPORT_FOLDER_LIMITS.maxDepth - 1 }, () => 'd')), {
          recursive: true,
        });
      }),
    ],
  ];
  console.log(`report folder watch: node ${process.version}, ${tmpdir()}`);
  console.log('1. one walk (median)');
  for (const [label, dir] of shapes) {
    for (let i = 0; i < 5; i++) walkReportFolder(dir); // warm the dentry cache
    const times = [];
    const deadline = performance.now() + 2000;
    let totals;
    while (times.length < 20 || (performance.now() < deadline && times.length < 2000)) {
      const t0 = performance.now();
      totals = walkReportFolder(dir);
      times.push(performance.now() - t0);
    }
    const ms = median(times);
    const share = (100 * ms) / (ms + 100);
    console.log(
      `   ${label.padEnd(44)} ${ms.toFixed(3).padStart(8)} ms   ${String(totals.entries).padStart(6)} entries ${fmtBytes(totals.bytes).padStart(10)}   CPU at 100 ms: ${share.toFixed(2)} %${totals.blocked ? ' BLOCKED' : ''}`,
    );
  }

  // 2. The watch on a normal folder, against idle.
  const cpuOver = async (ms, during) => {
    const c0 = process.cpuUsage();
    const stop = during();
    await sleep(ms);
    const extra = await stop();
    const c = process.cpuUsage(c0);
    return { cpuMs: (c.user + c.system) / 1000, ...extra };
  };
  const idle = await cpuOver(seconds * 1000, () => async () => ({}));
  const watched = await cpuOver(seconds * 1000, () => {
    const watch = watchReportFolder(shapes[0][1], { onBreach: () => {} });
    return async () => {
      await watch.stop();
      return { walks: watch.walks, walkMs: watch.walkMs };
    };
  });
  console.log(`2. the watch on a normal run's folder for ${seconds} s`);
  console.log(
    `   ${watched.walks} walks, ${(watched.walkMs / watched.walks).toFixed(3)} ms each (wall); CPU ${watched.cpuMs.toFixed(1)} ms against ${idle.cpuMs.toFixed(1)} ms idle: ` +
      `${((watched.cpuMs - idle.cpuMs) / seconds).toFixed(2)} ms of CPU per second of run`,
  );

  // 3. The overrun, through the real engine.
  const image = imageRef();
  if (values['no-docker'] || image === undefined) {
    console.log(`3. skipped (${values['no-docker'] ? '--no-docker' : 'no test image: run .ci/docker-up'})`);
  } else {
    const { runOracleContainer } = await bundle('../src/container/run-oracle-container.ts', 'run.mjs');
    const repo = buildSampleRepo(join(work, 'repo'), ['honest']);
    const mergeBase = git(repo.dir, 'merge-base', repo.base, repo.heads.honest);
    const diff = execFileSync('git', [
      '-C',
      repo.dir,
      'diff',
      '--binary',
      '--full-index',
      '--no-renames',
      '--no-ext-diff',
      '--no-textconv',
      '--src-prefix=a/',
      '--dst-prefix=b/',
      mergeBase,
      repo.heads.honest,
    ]);
    const raw = JSON.parse(readFileSync(join(SAMPLE, 'oracle', 'oracle.json'), 'utf8'));
    const config = {
      image,
      existingSuite: raw.existing_suite,
      hiddenTests: raw.hidden_tests,
      env: raw.env,
      timeoutSeconds: 120,
      limits: raw.limits,
      sourceDateEpoch: raw.source_date_epoch,
      user: raw.user,
    };
    const writers = {
      'dd toward 1 GiB':
        'dd if=/dev/zero of="$ORACLE_REPORT_DIR/fill" bs=1M count=1024 2>/dev/null; sleep 600',
      '100,000 small files': String.raw`python3 -c '
import os
d = os.path.join(os.environ["ORACLE_REPORT_DIR"], "many")
os.mkdir(d)
for i in range(100000):
    with open(os.path.join(d, "%06d.xml" % i), "wb") as f:
        f.write(b"<testsuite/>\n")
'; sleep 600`,
    };
    console.log(
      `3. the overrun: ${runs} runs per writer, memory limit ${config.limits.memory}, limits ${fmtBytes(REPORT_FOLDER_LIMITS.maxBytes)} / ${REPORT_FOLDER_LIMITS.maxEntries} entries`,
    );
    for (const [label, command] of Object.entries(writers)) {
      const rows = [];
      for (let i = 0; i < runs; i++) {
        const tmpRoot = join(work, `tmp-${label.length}-${i}`);
        mkdirSync(tmpRoot);
        chmodSync(tmpRoot, 0o755);
        let held;
        const result = await runOracleContainer({
          mode: 'grade',
          config: { ...config, existingSuite: { ...config.existingSuite, command } },
          repoDir: repo.dir,
          baseSha: repo.base,
          diff,
          hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
          tmpRoot,
          progress: (line) => {
            if (!/killed and removed: the report folder/.test(line)) return;
            const [run] = readdirSync(tmpRoot);
            const reports = join(tmpRoot, run, 'reports');
            held = {
              bytes: Number(execFileSync('du', ['-s', '-b', reports], { encoding: 'utf8' }).split('\t')[0]),
              entries: execFileSync('find', [reports, '-mindepth', '1', '-printf', '.'], {
                maxBuffer: 64 * MiB,
              }).length,
            };
          },
        });
        const subkinds = result.reasons.map((r) => r.subkind).join(',');
        if (subkinds !== 'report-invalid' || held === undefined)
          throw new Error(`${label}: expected a report-invalid kill, got ${subkinds}`);
        rows.push({
          seen: result.reportFolderBreach.totals,
          held,
          runMs: result.timings.find((t) => t.step === 'run')?.ms ?? NaN,
        });
        rmSync(tmpRoot, { recursive: true, force: true });
      }
      const m = (pick) => median(rows.map(pick));
      const max = (pick) => Math.max(...rows.map(pick));
      console.log(`   ${label}`);
      console.log(
        `     at the walk that stopped it: median ${fmtBytes(m((r) => r.seen.bytes))}, ${m((r) => r.seen.entries)} entries`,
      );
      console.log(
        `     at the kill (container gone): median ${fmtBytes(m((r) => r.held.bytes))} (max ${fmtBytes(max((r) => r.held.bytes))}), ` +
          `median ${m((r) => r.held.entries)} entries (max ${max((r) => r.held.entries)})`,
      );
      console.log(`     run step (start to container removed): median ${m((r) => r.runMs)} ms`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
