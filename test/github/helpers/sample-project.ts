import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { hashOracleDir } from '../../../src/oracle-dir/hash.js';
import { fixturePath, readFixtureJson } from '../../helpers/fixtures.js';
import { payloadWithShas } from './temp-repo.js';

/**
 * The sample project (fixtures/sample-python, built by test/container/sample-repo.ts) as the
 * action's end-to-end tests need it: pinned oracle copies, extra commits, a fork's layout and the
 * event payload.
 */

const GIT_ENV = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  LC_ALL: 'C',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

/** git on a trusted test repository (these are our own fixtures, not the code under test). */
function git(dir: string, args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  return execFileSync('git', ['-C', dir, ...args], {
    env: { ...GIT_ENV, ...options.env },
    encoding: 'utf8',
    stdio: ['pipe', 'pipe', 'pipe'],
    ...(options.input !== undefined ? { input: options.input } : {}),
    maxBuffer: 64 * 1024 * 1024,
  }).trim();
}

export interface PinnedOracle {
  dir: string;
  /** hashOracleDir of the copy: the value to pin as `oracle-hash`. */
  hash: string;
}

/**
 * A copy of a fixture oracle directory (`sample-python/oracle` unless told) in `parent`, with its
 * `PLACEHOLDER` image replaced by `image` and `files` written over it (null removes one).
 */
export async function pinnedOracle(
  parent: string,
  image: string,
  options: { fixture?: string; files?: Record<string, string | null> } = {},
): Promise<PinnedOracle> {
  const dir = mkdtempSync(join(parent, 'oracle-'));
  cpSync(fixturePath(options.fixture ?? 'sample-python/oracle'), dir, { recursive: true });
  const configPath = join(dir, 'oracle.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
  if (config.image !== 'PLACEHOLDER') throw new Error(`${configPath}: image is not PLACEHOLDER`);
  writeFileSync(configPath, JSON.stringify({ ...config, image }, null, 2) + '\n');
  for (const [name, text] of Object.entries(options.files ?? {})) {
    const path = join(dir, name);
    if (text === null) rmSync(path, { recursive: true, force: true });
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
  }
  return { dir, hash: await hashOracleDir(dir) };
}

/**
 * A commit on `parent` with `files` written (null deletes), made with a temporary index so the
 * repository's work tree and HEAD stay as they are.
 */
export function commitOnto(
  repoDir: string,
  parent: string,
  files: Record<string, string | null>,
  message: string,
): string {
  const index = join(mkdtempSync(join(tmpdir(), 'og-index-')), 'index');
  const env = { GIT_INDEX_FILE: index };
  try {
    git(repoDir, ['read-tree', parent], { env });
    for (const [path, text] of Object.entries(files)) {
      if (text === null) {
        git(repoDir, ['update-index', '--force-remove', '--', path], { env });
        continue;
      }
      const blob = git(repoDir, ['hash-object', '-w', '--stdin'], { input: text });
      git(repoDir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], { env });
    }
    const tree = git(repoDir, ['write-tree'], { env });
    return git(repoDir, ['commit-tree', tree, '-p', parent, '-m', message]);
  } finally {
    rmSync(dirname(index), { recursive: true, force: true });
  }
}

/** Points branch `name` at `sha` (so that a clone carries the commit), leaving HEAD alone. */
export function setBranch(repoDir: string, name: string, sha: string): void {
  git(repoDir, ['update-ref', `refs/heads/${name}`, sha]);
}

/**
 * `git diff -U3` of two commits, read here with a regex rather than by the project's diff parser:
 * each hunk's path and its header's ranges (a count left out of a header is 1).
 */
export function diffHunks(
  repoDir: string,
  from: string,
  to: string,
  paths: readonly string[],
): { path: string; oldStart: number; oldLines: number; newStart: number; newLines: number }[] {
  const diff = git(repoDir, ['diff', '--no-renames', '--no-ext-diff', '-U3', from, to, '--', ...paths]);
  const hunks = [];
  let path = '';
  for (const line of diff.split('\n')) {
    const file = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line);
    if (file) path = file[2]!;
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (header) {
      hunks.push({
        path,
        oldStart: Number(header[1]),
        oldLines: Number(header[2] ?? 1),
        newStart: Number(header[3]),
        newLines: Number(header[4] ?? 1),
      });
    }
  }
  return hunks;
}

/**
 * A fork PR's layout: every branch of `repoDir` in a bare `origin`, and a checkout of `main` alone
 * (as actions/checkout leaves a pull_request_target run), so the PR head must be fetched.
 */
export function forkLayout(repoDir: string): { dir: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'og-fork-'));
  const origin = join(root, 'origin.git');
  const checkout = join(root, 'checkout');
  git(root, ['clone', '-q', '--bare', repoDir, origin]);
  git(root, ['clone', '-q', '--single-branch', '--branch', 'main', `file://${origin}`, checkout]);
  return { dir: checkout, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Whether the repository holds the object. */
export function hasObject(repoDir: string, sha: string): boolean {
  try {
    git(repoDir, ['cat-file', '-e', `${sha}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** A `pull_request` payload (same repository, or the fork fixture) for these commits. */
export function pullRequestPayload(baseSha: string, headSha: string, fork = false): unknown {
  return payloadWithShas(
    readFixtureJson(`github/${fork ? 'pull_request.fork.synchronize.json' : 'pull_request.opened.json'}`),
    baseSha,
    headSha,
  );
}

/** `LC_ALL=C sort -u | sha256sum` over the IDs: the tests_hash by coreutils, not by our code. */
export function coreutilsTestsHash(ids: readonly string[]): string {
  const sorted = execFileSync('sort', ['-u'], {
    input: ids.map((id) => `${id}\n`).join(''),
    env: { PATH: process.env.PATH, LC_ALL: 'C' },
  });
  return execFileSync('sha256sum', [], { input: sorted, encoding: 'utf8' }).split(' ')[0]!;
}

/**
 * The pytest IDs a test file of the fixtures defines (`<module>::<function>`), read from its
 * source: an independent list to hash, for files without parametrized tests or classes.
 */
export function pytestIds(module: string, source: string): string[] {
  return [...source.matchAll(/^def (test_\w+)\(/gm)].map((m) => `${module}::${m[1]}`);
}
