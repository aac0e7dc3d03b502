// `npm run demo`: the gate on the sample project (fixtures/sample-python), an honest patch and two
// gamed ones side by side. Plain Node ESM over dist/cli.js: it needs git, a running Docker engine
// and the test image that `.ci/docker-up` pushes to the local registry, nothing from node_modules.
// bench/gate-overhead.mjs reuses the helpers exported here.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, URL } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SAMPLE = join(ROOT, 'fixtures', 'sample-python');
export const CLI = join(ROOT, 'dist', 'cli.js');
const DEFAULT_IMAGE_FILE = '/var/cache/oracle-gate/test-image.ref';

const PATCHES = ['honest', 'edits-existing-test', 'adds-conftest'];

/** Why the demo cannot run here, as lines for the user; empty when it can. */
export function preflight() {
  const problems = [];
  if (!existsSync(CLI)) problems.push(`${CLI} is missing: run \`npm run bundle\` first.`);
  const docker = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8' });
  if (docker.error || docker.status !== 0)
    problems.push(
      'No Docker engine answers `docker info` here. Start one, with the local registry and the test',
      'image, the way .ci/run does:',
      '',
      '    sudo bash .ci/docker-up',
      '',
      'then run `npm run demo` again.',
    );
  else if (imageRef() === undefined)
    problems.push(
      `No test image reference in ${imageFile()}. Push the test image and write it with:`,
      '',
      '    sudo bash .ci/docker-up',
    );
  return problems;
}

function imageFile() {
  return process.env.ORACLE_GATE_IMAGE_FILE || DEFAULT_IMAGE_FILE;
}

/** The pinned test image, `name@sha256:...`, as .ci/docker-up wrote it; undefined if absent. */
export function imageRef() {
  try {
    const ref = readFileSync(imageFile(), 'utf8').trim();
    return /^[^\s@]+@sha256:[0-9a-f]{64}$/.test(ref) ? ref : undefined;
  } catch {
    return undefined;
  }
}

// Building trusted fixture files into a repository: no user or system git config gets a say.
const GIT_ENV = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'oracle-gate demo',
  GIT_AUTHOR_EMAIL: 'demo@oracle-gate.invalid',
  GIT_COMMITTER_NAME: 'oracle-gate demo',
  GIT_COMMITTER_EMAIL: 'demo@oracle-gate.invalid',
};

export function git(dir, ...args) {
  return execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();
}

function commitAll(dir, message) {
  git(dir, 'add', '--all');
  git(dir, 'commit', '--quiet', '--allow-empty', '--message', message);
  return git(dir, 'rev-parse', 'HEAD');
}

/**
 * fixtures/sample-python as a git repository in `dir`: `previous`, then `base` (repo/), then one
 * branch `patch/<name>` per patch overlaid on its starting commit. Returns the commit ids.
 */
export function buildSampleRepo(dir, patchNames = PATCHES) {
  const patches = JSON.parse(readFileSync(join(SAMPLE, 'patches', 'patches.json'), 'utf8'));
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '--quiet', '--initial-branch=main');
  cpSync(join(SAMPLE, 'repo'), dir, { recursive: true });
  cpSync(join(SAMPLE, 'previous'), dir, { recursive: true });
  const previous = commitAll(dir, 'calc: the evaluator');
  cpSync(join(SAMPLE, 'repo'), dir, { recursive: true });
  const base = commitAll(dir, 'calc: name the grammar rules after the grammar');
  const heads = {};
  for (const name of patchNames) {
    const info = patches[name];
    if (!info) throw new Error(`no patch ${name} in patches.json`);
    git(dir, 'checkout', '--quiet', '-B', `patch/${name}`, info.from === 'base' ? base : previous);
    cpSync(join(SAMPLE, 'patches', name), dir, { recursive: true });
    heads[name] = commitAll(dir, `patch: ${name}`);
  }
  git(dir, 'checkout', '--quiet', 'main');
  return { dir, previous, base, heads, about: patches };
}

/** The sample oracle directory (`oracle` or `oracle-already-passing`) copied to `dir`, image pinned. */
export function writeOracleDir(dir, image, which = 'oracle') {
  cpSync(join(SAMPLE, which), dir, { recursive: true });
  const file = join(dir, 'oracle.json');
  const config = JSON.parse(readFileSync(file, 'utf8'));
  writeFileSync(file, JSON.stringify({ ...config, image }, null, 2) + '\n');
  return dir;
}

/** `oracle-gate hash DIR`: the value to pin. */
export function oracleHash(dir) {
  return execFileSync(process.execPath, [CLI, 'hash', dir], { encoding: 'utf8' }).trim();
}

/** `oracle-gate run ...`, asynchronously; resolves with its status, verdict and tests_hash. */
export function runGateCli(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'run', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (status) => {
      const [verdictLine = '', hashLine = ''] = stdout.split('\n');
      let verdict;
      try {
        verdict = JSON.parse(verdictLine);
      } catch {
        verdict = undefined;
      }
      const testsHash = /^tests_hash=([0-9a-f]{64})$/.exec(hashLine)?.[1];
      resolve({ status, stdout, stderr, verdict, testsHash });
    });
  });
}

function cell(text, width) {
  const flat = String(text).replace(/\s+/g, ' ');
  return (flat.length > width ? flat.slice(0, width - 1) + '…' : flat).padEnd(width);
}

async function main() {
  const problems = preflight();
  if (problems.length > 0) {
    process.stderr.write(`npm run demo: cannot run the gate here.\n\n${problems.join('\n')}\n`);
    process.exitCode = 1;
    return;
  }
  const keep = process.argv.includes('--keep');
  const image = imageRef();
  const work = mkdtempSync(join(tmpdir(), 'oracle-gate-demo-'));
  try {
    console.log(`sample project: fixtures/sample-python (calc: 8 - 3 - 2 gives 7)`);
    const repo = buildSampleRepo(join(work, 'repo'));
    const oracle = writeOracleDir(join(work, 'oracle'), image);
    const hash = oracleHash(oracle);
    console.log(`oracle directory: ${oracle}\n  image ${image}\n  pinned hash ${hash}\n`);
    for (const name of PATCHES) console.log(`  ${name.padEnd(20)} ${repo.about[name].about}`);
    console.log('\nrunning the gate on each head (in parallel)...\n');

    const runs = await Promise.all(
      PATCHES.map((name) =>
        runGateCli([
          '--repo',
          repo.dir,
          '--base',
          repo.base,
          '--head',
          repo.heads[name],
          '--oracle',
          oracle,
          '--oracle-hash',
          hash,
          '--log',
          join(work, 'logs', name, 'oracle.log'),
        ]),
      ),
    );

    console.log(`${cell('patch', 20)}  ${cell('verdict', 7)}  ${cell('first reason', 72)}  tests_hash`);
    console.log(`${'-'.repeat(20)}  ${'-'.repeat(7)}  ${'-'.repeat(72)}  ${'-'.repeat(17)}`);
    const surprises = [];
    PATCHES.forEach((name, i) => {
      const run = runs[i];
      const verdict = run.verdict;
      const first =
        verdict?.kind === 'fail' ? `${verdict.reasons[0].subkind}: ${verdict.reasons[0].message}` : '-';
      const hashCell = run.testsHash ? `${run.testsHash.slice(0, 16)}…` : '(none)';
      console.log(
        `${cell(name, 20)}  ${cell(verdict?.kind ?? `exit ${run.status}`, 7)}  ${cell(first, 72)}  ${hashCell}`,
      );
      const expected = name === 'honest' ? 0 : 1;
      if (run.status !== expected) surprises.push({ name, run });
    });
    const honest = runs[0];
    if (honest.verdict?.kind === 'pass') console.log(`\nhonest chain: ${honest.verdict.chain.join(' > ')}`);
    console.log(`honest tests_hash=${honest.testsHash ?? '(none)'}`);
    if (runs.every((r) => r.testsHash !== undefined && r.testsHash === honest.testsHash))
      console.log('(one tests_hash on every row: the same tests ran on every head, none deselected)');
    for (const { name, run } of surprises) {
      process.stderr.write(`\nunexpected: ${name} exited ${run.status}\n${run.stdout}${run.stderr}`);
      process.exitCode = 1;
    }
    console.log(
      keep
        ? `\noracle logs: ${join(work, 'logs')}/<patch>/oracle.log`
        : '\n(run `npm run demo -- --keep` to keep the repository and the oracle logs)',
    );
  } finally {
    if (!keep) rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
