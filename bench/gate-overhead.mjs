// The gate's overhead over a bare `docker run` of the same work, on the sample project.
//
//   node bench/gate-overhead.mjs [runs]      (default 9; `npm run bundle` first)
//
// In one process, alternating so drift hits both alike, with the image present:
//   gate: `node dist/cli.js run` on the honest patch, the whole gate (config, oracle hash, policy,
//         fixtures, the container with its mirror, job folder, two fresh checkouts and the diff
//         applied in each, tests judged, oracle log written), from process start to exit;
//   bare: `docker run --rm` of the same image with the same hardening flags and limits, running the
//         same two suite commands in a plain checkout of the patched tree (hidden tests copied in)
//         mounted read-only: what a CI job would do without the gate.
// Reports the medians, the overhead (gate - bare) in seconds and the ratio gate / bare, and the
// gate's median per stage from its progress lines. Target: under one second of overhead.
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import {
  buildSampleRepo,
  CLI,
  imageRef,
  oracleHash,
  preflight,
  SAMPLE,
  writeOracleDir,
} from '../scripts/demo.mjs';

const RUNS = Number(process.argv[2] ?? 9);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('usage: node bench/gate-overhead.mjs [runs]');

const problems = preflight();
if (problems.length > 0) {
  process.stderr.write(`${problems.join('\n')}\n`);
  process.exit(1);
}

function timed(command, args) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (status) => resolve({ ms: performance.now() - started, status, stdout, stderr }));
  });
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

const image = imageRef();
const work = mkdtempSync(join(tmpdir(), 'oracle-gate-bench-'));
try {
  const repo = buildSampleRepo(join(work, 'repo'), ['honest']);
  const oracleDir = writeOracleDir(join(work, 'oracle'), image);
  const hash = oracleHash(oracleDir);
  const config = JSON.parse(readFileSync(join(oracleDir, 'oracle.json'), 'utf8'));

  // The plain checkout for the bare run: the patched tree, hidden tests copied in, readable by uid 1000.
  const checkout = join(work, 'checkout');
  mkdirSync(checkout);
  execFileSync('tar', ['-x', '-C', checkout], {
    input: execFileSync('git', ['-C', repo.dir, 'archive', '--format=tar', repo.heads.honest], {
      maxBuffer: 64 * 1024 * 1024,
    }),
  });
  cpSync(join(SAMPLE, 'oracle', 'tests'), join(checkout, config.hidden_tests.dest), { recursive: true });
  execFileSync('chmod', ['-R', 'a+rX', checkout]);

  const { memory, cpus, pids } = config.limits;
  const tmpfs = (path) => `${path}:rw,exec,nosuid,nodev,size=${memory},mode=1777`;
  const env = {
    TZ: 'UTC',
    LC_ALL: 'C.UTF-8',
    PYTHONHASHSEED: '0',
    SOURCE_DATE_EPOCH: String(config.source_date_epoch),
    HOME: '/tmp',
    ...config.env,
  };
  const script = [
    'cd /work/repo',
    'mkdir -p /reports/existing /reports/hidden',
    `ORACLE_REPORT_DIR=/reports/existing sh -c '${config.existing_suite.command.replaceAll("'", "'\\''")}'`,
    'e=$?',
    `ORACLE_REPORT_DIR=/reports/hidden sh -c '${config.hidden_tests.command.replaceAll("'", "'\\''")}'`,
    'h=$?',
    '[ $e -eq 0 ] && [ $h -eq 0 ]',
  ].join('\n');
  const bareArgs = (reports) => [
    'run',
    '--rm',
    '--pull',
    'never',
    '--log-driver',
    'none',
    '--network',
    'none',
    '--read-only',
    '--cap-drop',
    'ALL',
    '--security-opt',
    'no-new-privileges',
    '--ipc',
    'private',
    '--pids-limit',
    String(pids),
    '--memory',
    memory,
    '--memory-swap',
    memory,
    '--cpus',
    String(cpus),
    '--ulimit',
    'core=0',
    '--user',
    config.user,
    '--hostname',
    'oracle',
    '--tmpfs',
    tmpfs('/tmp'),
    '--tmpfs',
    tmpfs('/work'),
    '--mount',
    `type=bind,source=${checkout},target=/work/repo,readonly`,
    '--mount',
    `type=bind,source=${reports},target=/reports`,
    ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    '--entrypoint',
    '/bin/sh',
    image,
    '-c',
    script,
  ];
  const gateArgs = (log) => [
    CLI,
    'run',
    '--repo',
    repo.dir,
    '--base',
    repo.base,
    '--head',
    repo.heads.honest,
    '--oracle',
    oracleDir,
    '--oracle-hash',
    hash,
    '--log',
    log,
  ];

  const gate = [];
  const bare = [];
  const stages = new Map();
  for (let i = 0; i <= RUNS; i++) {
    const reports = join(work, `reports-${i}`);
    mkdirSync(reports);
    chmodSync(reports, 0o777);
    const b = await timed('docker', bareArgs(reports));
    if (b.status !== 0) throw new Error(`the bare run failed (${b.status}):\n${b.stdout}${b.stderr}`);
    const g = await timed(process.execPath, gateArgs(join(work, `log-${i}`, 'oracle.log')));
    if (g.status !== 0) throw new Error(`the gate failed (${g.status}):\n${g.stdout}${g.stderr}`);
    if (i === 0) continue; // warm-up: page cache, the CLI's first start
    bare.push(b.ms);
    gate.push(g.ms);
    for (const [, id, ms] of g.stderr.matchAll(/^stage ([a-z-]+): pass in (\d+) ms/gm)) {
      stages.set(id, [...(stages.get(id) ?? []), Number(ms)]);
    }
  }

  const gateMs = median(gate);
  const bareMs = median(bare);
  const overhead = (gateMs - bareMs) / 1000;
  const fmt = (ms) => `${(ms / 1000).toFixed(3)} s`;
  console.log(`gate overhead on fixtures/sample-python (honest patch), ${RUNS} runs each, medians`);
  console.log(
    `  docker ${execFileSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8' }).trim()}, node ${process.version}, image ${image}`,
  );
  console.log(
    `  gate (node dist/cli.js run, process start to exit)  ${fmt(gateMs)}   [min ${fmt(Math.min(...gate))}, max ${fmt(Math.max(...gate))}]`,
  );
  console.log(
    `  bare docker run, same image, flags and commands     ${fmt(bareMs)}   [min ${fmt(Math.min(...bare))}, max ${fmt(Math.max(...bare))}]`,
  );
  console.log(
    `  overhead                                             ${overhead.toFixed(3)} s   (target < 1 s: ${overhead < 1 ? 'met' : 'NOT met'})`,
  );
  console.log(`  ratio gate / bare                                    ${(gateMs / bareMs).toFixed(2)}`);
  console.log('  gate stages (median ms): ' + [...stages].map(([id, v]) => `${id} ${median(v)}`).join(', '));
} finally {
  rmSync(work, { recursive: true, force: true });
}
