import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitOk } from '../../src/git/run-git.js';
import type { OracleRunConfig } from '../../src/container/run-config.js';
import { fixturePath } from '../helpers/fixtures.js';

/**
 * Builds fixtures/sample-python into a git repository in a temporary folder: commit `previous`
 * (repo/ overlaid with previous/), commit `base` (repo/), and one branch `patch/<name>` per
 * patches/<name>/ overlaid on its `from` commit. These are trusted fixture files, so building
 * them with a work tree on the host is fine; the code under test never checks out a head.
 */
export interface SampleRepo {
  dir: string;
  previous: string;
  base: string;
  heads: Record<string, string>;
  /** `git diff --binary --full-index --no-renames` from the merge base of base and the patch's head. */
  diff(patch: string): Promise<Buffer>;
  remove(): Promise<void>;
}

export interface PatchInfo {
  from: 'base' | 'previous';
  about: string;
}

export const SAMPLE = fixturePath('sample-python');

export async function samplePatches(): Promise<Record<string, PatchInfo>> {
  return JSON.parse(await readFile(join(SAMPLE, 'patches', 'patches.json'), 'utf8')) as Record<
    string,
    PatchInfo
  >;
}

/** `git -c` arguments naming the fixtures' committer. */
export const IDENTITY = ['-c', 'user.name=oracle-gate tests', '-c', 'user.email=tests@oracle-gate.invalid'];

/** Commits the whole work tree of `dir`; returns the commit's id. */
export async function commitAll(dir: string, message: string): Promise<string> {
  await gitOk(dir, ['add', '--all']);
  await gitOk(dir, [...IDENTITY, 'commit', '--quiet', '--allow-empty', '--message', message]);
  return (await gitOk(dir, ['rev-parse', 'HEAD'])).toString().trim();
}

export async function buildSampleRepo(): Promise<SampleRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'og-sample-'));
  await gitOk(dir, ['init', '--quiet', '--initial-branch=main']);
  await cp(join(SAMPLE, 'repo'), dir, { recursive: true });
  await cp(join(SAMPLE, 'previous'), dir, { recursive: true });
  const previous = await commitAll(dir, 'calc: the evaluator');
  await cp(join(SAMPLE, 'repo'), dir, { recursive: true });
  const base = await commitAll(dir, 'calc: name the grammar rules after the grammar');
  const heads: Record<string, string> = {};
  for (const [name, info] of Object.entries(await samplePatches())) {
    await gitOk(dir, ['checkout', '--quiet', '-B', `patch/${name}`, info.from === 'base' ? base : previous]);
    await cp(join(SAMPLE, 'patches', name), dir, { recursive: true });
    heads[name] = await commitAll(dir, `patch: ${name}`);
  }
  await gitOk(dir, ['checkout', '--quiet', 'main']);
  return {
    dir,
    previous,
    base,
    heads,
    async diff(patch) {
      const head = heads[patch];
      if (head === undefined) throw new Error(`no patch ${patch}`);
      const mergeBase = (await gitOk(dir, ['merge-base', base, head])).toString().trim();
      return gitOk(dir, [
        'diff',
        '--binary',
        '--full-index',
        '--no-renames',
        '--no-ext-diff',
        '--no-textconv',
        '--src-prefix=a/',
        '--dst-prefix=b/',
        mergeBase,
        head,
      ]);
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** fixtures/sample-python/<oracle>/oracle.json mapped onto the container layer's config. */
export async function sampleConfig(image: string, oracle = 'oracle'): Promise<OracleRunConfig> {
  const raw = JSON.parse(await readFile(join(SAMPLE, oracle, 'oracle.json'), 'utf8')) as {
    existing_suite?: { command: string; paths: string[] };
    hidden_tests: { command: string; dest: string };
    env: Record<string, string>;
    timeout_seconds: number;
    limits: { memory: string; cpus: number; pids: number };
    source_date_epoch: number;
    user: string;
  };
  return {
    image,
    ...(raw.existing_suite !== undefined ? { existingSuite: raw.existing_suite } : {}),
    hiddenTests: raw.hidden_tests,
    env: raw.env,
    timeoutSeconds: raw.timeout_seconds,
    limits: raw.limits,
    sourceDateEpoch: raw.source_date_epoch,
    user: raw.user,
  };
}
