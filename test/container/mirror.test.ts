import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gitOk } from '../../src/git/run-git.js';
import { buildMirror } from '../../src/container/mirror.js';
import { buildSampleRepo, type SampleRepo } from './sample-repo.js';
import { tempDirs } from './temp-dirs.js';

const tempDir = tempDirs('og-mirror-');

let repo: SampleRepo;
beforeAll(async () => {
  repo = await buildSampleRepo();
});
afterAll(() => repo.remove());

const git = async (dir: string, ...args: string[]) => (await gitOk(dir, args)).toString().trim();

describe('buildMirror', () => {
  it('holds one parentless commit with the base tree, one ref, and nothing else', async () => {
    const dir = join(tempDir(), 'mirror.git');
    const mirror = await buildMirror(repo.dir, repo.base, dir);
    expect(mirror.tree).toBe(await git(repo.dir, 'rev-parse', `${repo.base}^{tree}`));
    expect(await git(dir, 'rev-parse', `${mirror.commit}^{tree}`)).toBe(mirror.tree);
    expect(await git(dir, 'rev-list', '--all')).toBe(mirror.commit);
    expect(await git(dir, 'rev-list', '--parents', '-n', '1', mirror.commit)).toBe(mirror.commit);
    expect(await git(dir, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/base');
    expect(await git(dir, 'config', '--list', '--local')).not.toMatch(/remote\./);
  });

  it('holds exactly the objects the base tree reaches, so no PR head, branch or older commit can be mined', async () => {
    const dir = join(tempDir(), 'mirror.git');
    const mirror = await buildMirror(repo.dir, repo.base, dir);
    const reachable = (
      await git(repo.dir, 'rev-list', '--objects', '--no-object-names', `${repo.base}^{tree}`)
    ).split('\n');
    const held = (await git(dir, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)')).split(
      '\n',
    );
    expect(new Set(held)).toEqual(new Set([...reachable, mirror.commit]));
    for (const head of Object.values(repo.heads)) {
      await expect(gitOk(dir, ['cat-file', '-e', head])).rejects.toThrow();
    }
    await expect(gitOk(dir, ['cat-file', '-e', repo.previous])).rejects.toThrow();
  });

  it('gives the same commit for the same base tree', async () => {
    const a = await buildMirror(repo.dir, repo.base, join(tempDir(), 'm.git'));
    const b = await buildMirror(repo.dir, repo.base, join(tempDir(), 'm.git'));
    expect(a.commit).toBe(b.commit);
  });

  it('takes only a full commit SHA, never a revision expression', async () => {
    const dir = join(tempDir(), 'm.git');
    await expect(buildMirror(repo.dir, 'main', dir)).rejects.toThrow(/full commit SHA/);
    await expect(buildMirror(repo.dir, '--output=/tmp/x', dir)).rejects.toThrow(/full commit SHA/);
    await expect(buildMirror(repo.dir, 'f'.repeat(40), dir)).rejects.toThrow();
  });
});
