import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitError, gitOk, runGit } from '../../src/git/run-git.js';

function repoWithHostileConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'og-git-'));
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args]);
  git('init', '-q');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 't');
  writeFileSync(join(dir, 'a.txt'), 'one\n');
  git('add', '.');
  git('commit', '-qm', 'one');
  writeFileSync(join(dir, 'a.txt'), 'two\n');
  writeFileSync(join(dir, '.gitattributes'), 'a.txt diff=evil\n');
  const marker = join(dir, 'pwned');
  git('config', 'diff.evil.command', `sh -c 'touch ${marker}'`);
  git('config', 'diff.evil.textconv', `sh -c 'touch ${marker}; cat'`);
  git('config', 'diff.noprefix', 'true');
  git('add', '.');
  git('commit', '-qm', 'two');
  return dir;
}

describe('runGit', () => {
  it('keeps repository config from running programs or changing the diff format', async () => {
    const dir = repoWithHostileConfig();
    const out = await gitOk(dir, ['diff', '--no-ext-diff', '--no-textconv', 'HEAD~1', 'HEAD', '--', 'a.txt']);
    expect(out.toString()).toContain('--- a/a.txt');
    expect(out.toString()).toContain('+two');
    expect(() => execFileSync('test', ['-e', join(dir, 'pwned')])).toThrow();
  });

  it('returns the exit code and stderr of a failing command, and gitOk throws GitError', async () => {
    const dir = repoWithHostileConfig();
    const result = await runGit(dir, ['rev-parse', '--verify', 'no-such-ref^{commit}']);
    expect(result.exitCode).not.toBe(0);
    await expect(gitOk(dir, ['rev-parse', '--verify', 'no-such-ref^{commit}'])).rejects.toBeInstanceOf(
      GitError,
    );
  });

  it('refuses output past maxBytes', async () => {
    const dir = repoWithHostileConfig();
    await expect(gitOk(dir, ['log', '-p'], { maxBytes: 10 })).rejects.toThrow(/larger than 10 bytes/);
  });
});
