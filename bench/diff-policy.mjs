// Benchmark: parse + path policy + filter of a large PR diff, against `git apply --check --stat`
// on the same diff, side by side in one run.
//
//   node_modules/.bin/node bench/diff-policy.mjs [--files 100000] [--runs 3] [--keep]
//
// Writes a base tree of `--files` small text files (1000 directories) in a temporary directory and
// a diff against it as git writes one (full blob ids, two hunks per modified file): 60% of the
// files modified (10 changed lines each), 30% added (10 lines), 10% deleted (10 lines), so about
// 10 changed lines a file, 1,000,000 for 100,000 files. Each measured run is a fresh process:
// ours is diff-policy.worker.ts bundled with esbuild (allow-all keeps everything, allow-half drops
// half the files through path_allow.txt globs; `chunks` keeps the filtered diff as views of the
// parsed one, as the gate writes it to the container's mount, `joined` also makes it one Buffer),
// git's runs in the base tree. Reports medians and peak RSS (ours from the kernel's maxRSS, git's
// from /usr/bin/time when it is installed).
// Targets: ours no slower than git; peak memory under 3x the diff's size.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  closeSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '3' },
    keep: { type: 'boolean', default: false },
  },
});
const fileCount = Number(values.files);
const runs = Number(values.runs);
const TIME = '/usr/bin/time';

const blobId = (content) =>
  createHash('sha1')
    .update(`blob ${Buffer.byteLength(content)}\0`)
    .update(content)
    .digest('hex');
const NULL_ID = '0'.repeat(40);

const line = (file, k, tag = '') => `line ${k} of file ${file}${tag}, some text to give it width\n`;
const baseContent = (i, lines) => Array.from({ length: lines }, (_, k) => line(i, k)).join('');

/** A modified file: lines 4-5 and 18-19 (1-based) each replaced by three lines: two hunks, 10 changed lines. */
function modifiedSection(path, i) {
  const old = Array.from({ length: 24 }, (_, k) => line(i, k));
  const now = [...old];
  now.splice(17, 2, line(i, 17, ' edited'), line(i, 18, ' edited'), line(i, 18, ' added'));
  now.splice(3, 2, line(i, 3, ' edited'), line(i, 4, ' edited'), line(i, 4, ' added'));
  const hunk = (oldFrom, newFrom, oldIdx, newLines) =>
    `@@ -${oldFrom},8 +${newFrom},9 @@\n` +
    old
      .slice(oldIdx - 3, oldIdx)
      .map((l) => ' ' + l)
      .join('') +
    old
      .slice(oldIdx, oldIdx + 2)
      .map((l) => '-' + l)
      .join('') +
    newLines.map((l) => '+' + l).join('') +
    old
      .slice(oldIdx + 2, oldIdx + 5)
      .map((l) => ' ' + l)
      .join('');
  return (
    `diff --git a/${path} b/${path}\n` +
    `index ${blobId(old.join(''))}..${blobId(now.join(''))} 100644\n` +
    `--- a/${path}\n+++ b/${path}\n` +
    hunk(1, 1, 3, now.slice(3, 6)) +
    hunk(15, 16, 17, now.slice(18, 21))
  );
}

function addedSection(path, i) {
  const content = baseContent(i, 10);
  return (
    `diff --git a/${path} b/${path}\nnew file mode 100644\n` +
    `index ${NULL_ID}..${blobId(content)}\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,10 @@\n` +
    content.replace(/^(?=.)/gm, '+')
  );
}

function deletedSection(path, i) {
  const content = baseContent(i, 10);
  return (
    `diff --git a/${path} b/${path}\ndeleted file mode 100644\n` +
    `index ${blobId(content)}..${NULL_ID}\n--- a/${path}\n+++ /dev/null\n@@ -1,10 +0,0 @@\n` +
    content.replace(/^(?=.)/gm, '-')
  );
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mb = (bytes) => (bytes / 1024 ** 2).toFixed(1);

const work = mkdtempSync(join(tmpdir(), 'og-bench-diff-'));
try {
  const worker = join(work, 'worker.mjs');
  await build({
    entryPoints: [fileURLToPath(import.meta.resolve('./diff-policy.worker.ts'))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: worker,
    logLevel: 'warning',
  });

  const base = join(work, 'base');
  const diffFile = join(work, 'pr.diff');
  process.stderr.write(`generating ${fileCount} files and their diff in ${work}\n`);
  const out = openSync(diffFile, 'w');
  let changedLines = 0;
  const paths = [];
  for (let i = 0; i < fileCount; i++) {
    const dir = `d${String(i % 1000).padStart(3, '0')}`;
    paths.push(`${dir}/f${String(i).padStart(6, '0')}.txt`);
  }
  paths.sort(); // git writes sections in path order
  const made = new Set();
  for (let i = 0; i < fileCount; i++) {
    const path = paths[i];
    const kind = i % 10 < 6 ? 'modified' : i % 10 < 9 ? 'added' : 'deleted';
    const dir = path.slice(0, path.indexOf('/'));
    if (!made.has(dir)) mkdirSync(join(base, dir), { recursive: true });
    made.add(dir);
    if (kind === 'modified') writeFileSync(join(base, path), baseContent(i, 24));
    if (kind === 'deleted') writeFileSync(join(base, path), baseContent(i, 10));
    const section =
      kind === 'modified'
        ? modifiedSection(path, i)
        : kind === 'added'
          ? addedSection(path, i)
          : deletedSection(path, i);
    changedLines += 10;
    writeSync(out, section);
  }
  closeSync(out);
  const diffBytes = Number(spawnSync('stat', ['-c', '%s', diffFile], { encoding: 'utf8' }).stdout.trim());
  process.stderr.write(`diff: ${mb(diffBytes)} MiB, ${changedLines} changed lines\n`);

  const timed = (command, args, cwd) => {
    const withTime = existsSync(TIME);
    const start = performance.now();
    const result = spawnSync(withTime ? TIME : command, withTime ? ['-f', '%M', command, ...args] : args, {
      cwd,
      encoding: 'utf8',
      maxBuffer: 1024 ** 3,
    });
    const ms = performance.now() - start;
    if (result.status !== 0)
      throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr.slice(-2000)}`);
    const maxRssKb = withTime ? Number(result.stderr.trim().split('\n').at(-1)) : NaN;
    return { ms, maxRssKb, stdout: result.stdout };
  };

  // One untimed run of each warms the page cache.
  timed('git', ['apply', '--check', '--stat', diffFile], base);
  timed(process.execPath, [worker, diffFile, 'allow-all', 'chunks'], work);

  const rows = [];
  for (const [variant, output] of [
    ['allow-all', 'joined'],
    ['allow-half', 'chunks'],
    ['allow-half', 'joined'],
  ]) {
    const samples = [];
    for (let r = 0; r < runs; r++) {
      const run = timed(process.execPath, [worker, diffFile, variant, output], work);
      samples.push({ wallMs: run.ms, ...JSON.parse(run.stdout) });
    }
    const last = samples.at(-1);
    rows.push({
      name: `oracle-gate parse+policy+filter (${variant}, ${output})`,
      computeMs: median(samples.map((s) => s.totalMs)),
      wallMs: median(samples.map((s) => s.wallMs)),
      maxRssKb: Math.max(...samples.map((s) => s.maxRssKb)),
      runtimeRssKb: Math.max(...samples.map((s) => s.rssBeforeKb)),
      note: `${last.files} files, ${last.hunks} hunks, ${last.dropped} dropped, filtered ${mb(last.filteredBytes)} MiB; parse ${median(samples.map((s) => s.parseMs)).toFixed(0)} ms, policy+filter ${median(samples.map((s) => s.policyMs)).toFixed(0)} ms`,
    });
  }
  const gitSamples = [];
  for (let r = 0; r < runs; r++)
    gitSamples.push(timed('git', ['apply', '--check', '--stat', diffFile], base));
  rows.push({
    name: 'git apply --check --stat',
    computeMs: NaN,
    wallMs: median(gitSamples.map((s) => s.ms)),
    maxRssKb: Math.max(...gitSamples.map((s) => s.maxRssKb)),
    runtimeRssKb: NaN,
    note: `git ${spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout.trim()}`,
  });

  const gitWall = rows.at(-1).wallMs;
  console.log(
    `\ndiff-policy benchmark: ${fileCount} files, ${changedLines} changed lines, diff ${mb(diffBytes)} MiB, ${runs} runs (medians)`,
  );
  console.log(
    'what'.padEnd(56) +
      'compute s'.padStart(10) +
      'process s'.padStart(10) +
      'vs git'.padStart(8) +
      'peak RSS MiB'.padStart(14) +
      'RSS/diff'.padStart(10) +
      'above runtime/diff'.padStart(20),
  );
  for (const row of rows) {
    const rss = row.maxRssKb * 1024;
    console.log(
      row.name.padEnd(56) +
        (Number.isNaN(row.computeMs) ? '-' : (row.computeMs / 1000).toFixed(2)).padStart(10) +
        (row.wallMs / 1000).toFixed(2).padStart(10) +
        `${(row.wallMs / gitWall).toFixed(2)}x`.padStart(8) +
        (Number.isNaN(rss) ? '?' : mb(rss)).padStart(14) +
        (Number.isNaN(rss) ? '?' : `${(rss / diffBytes).toFixed(2)}x`).padStart(10) +
        (Number.isNaN(row.runtimeRssKb)
          ? '-'
          : `${((rss - row.runtimeRssKb * 1024) / diffBytes).toFixed(2)}x`
        ).padStart(20),
    );
    console.log(`  ${row.note}`);
  }
  console.log(
    '\n"process s" is the whole process (node start-up and reading the diff included, as git\'s);' +
      '\n"above runtime" is peak RSS less what the node process held before reading the diff.',
  );
} finally {
  if (values.keep) process.stderr.write(`kept ${work}\n`);
  else rmSync(work, { recursive: true, force: true });
}
