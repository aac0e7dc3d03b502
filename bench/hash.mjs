// Benchmark: the oracle hash against `find | sort | xargs sha256sum` on the same generated tree.
//
//   node_modules/.bin/node bench/hash.mjs [--gib 1] [--files 10000] [--runs 5]
//
// Generates a tree of random bytes in a temporary directory (removed at the end), warms the page
// cache with one untimed run of each, then alternates timed runs and reports medians. Target: our
// throughput at least 0.9 of coreutils'.
import { spawnSync } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';

const { values } = parseArgs({
  options: {
    gib: { type: 'string', default: '1' },
    files: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '5' },
  },
});
const totalBytes = Math.round(Number(values.gib) * 1024 ** 3);
const fileCount = Number(values.files);
const runs = Number(values.runs);

const work = mkdtempSync(join(tmpdir(), 'og-bench-hash-'));
try {
  // The module under test, bundled so this script runs with plain node.
  const moduleFile = join(work, 'hash.mjs');
  await build({
    entryPoints: [fileURLToPath(import.meta.resolve('../src/oracle-dir/hash.ts'))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile: moduleFile,
    logLevel: 'warning',
  });
  const { hashOracleDir } = await import(moduleFile);

  const tree = join(work, 'tree');
  process.stderr.write(`generating ${fileCount} files, ${totalBytes} bytes in ${tree}\n`);
  const perFile = Math.floor(totalBytes / fileCount);
  const chunk = Buffer.allocUnsafe(perFile + 2 * fileCount);
  randomFillSync(chunk);
  for (let i = 0; i < fileCount; i++) {
    const dir = join(tree, `d${String(i % 100).padStart(2, '0')}`, i % 7 === 0 ? 'with space' : 'plain');
    mkdirSync(dir, { recursive: true });
    const size = i === fileCount - 1 ? totalBytes - perFile * (fileCount - 1) : perFile;
    // Each file a different slice, so no two hash alike.
    writeFileSync(join(dir, `f${i}.bin`), chunk.subarray(i, i + size));
  }

  const ours = async () => {
    const t = performance.now();
    await hashOracleDir(tree);
    return (performance.now() - t) / 1000;
  };
  const coreutils = () => {
    const t = performance.now();
    // A fixed script; the tree is a positional argument, never interpolated.
    const r = spawnSync(
      'sh',
      [
        '-c',
        'cd -- "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum >/dev/null',
        'sh',
        tree,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    if (r.status !== 0) throw new Error(`coreutils pipeline exited ${r.status}`);
    return (performance.now() - t) / 1000;
  };

  await ours();
  coreutils();
  const oursTimes = [];
  const coreTimes = [];
  for (let i = 0; i < runs; i++) {
    oursTimes.push(await ours());
    coreTimes.push(coreutils());
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const mib = totalBytes / 1024 ** 2;
  const oursMedian = median(oursTimes);
  const coreMedian = median(coreTimes);
  const fmt = (s) => `${s.toFixed(3)} s, ${(mib / s).toFixed(0)} MiB/s`;
  console.log(
    `tree: ${fileCount} files, ${mib.toFixed(0)} MiB; ${runs} runs each after one warm-up; medians`,
  );
  console.log(
    `hashOracleDir:              ${fmt(oursMedian)}  (runs: ${oursTimes.map((s) => s.toFixed(3)).join(' ')})`,
  );
  console.log(
    `find|sort|xargs sha256sum:  ${fmt(coreMedian)}  (runs: ${coreTimes.map((s) => s.toFixed(3)).join(' ')})`,
  );
  const ratio = coreMedian / oursMedian;
  console.log(
    `throughput ratio (ours / coreutils): ${ratio.toFixed(2)}  target >= 0.90: ${ratio >= 0.9 ? 'met' : 'NOT met'}`,
  );
  process.exitCode = ratio >= 0.9 ? 0 : 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
