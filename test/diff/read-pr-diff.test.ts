import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseGitDiff } from '../../src/diff/parse-git-diff.js';
import { PrRangeError, readPrDiff, resolvePrRange } from '../../src/diff/read-pr-diff.js';
import { git, importCommits, initRepo, scratch, type Entry } from './helpers/git-fixture.js';

const area = scratch('read-pr-diff');
afterAll(() => area.cleanup());

const file = (path: string, content: string, mode: Entry['mode'] = '100644'): Entry => ({
  path: Buffer.from(path),
  mode,
  content: Buffer.from(content),
});

const lines = (n: number, change = -1) =>
  Array.from({ length: n }, (_, i) => (i === change ? 'changed' : i % 7 === 0 ? '' : `line ${i}`)).join(
    '\n',
  ) + '\n';

/** fork -> head (the PR) and fork -> base (the base branch moved on). */
function prRepository(bare: boolean): string {
  const dir = initRepo(area.dir('repo'), bare);
  const fork = [
    file('src/app.py', lines(40)),
    file('sub', '1'.repeat(40), '160000'),
    file('a', 'first\n'),
    file('z', 'last\n'),
  ];
  importCommits(dir, [
    { ref: 'refs/heads/fork', entries: fork },
    {
      ref: 'refs/heads/head',
      parent: 'refs/heads/fork',
      entries: [
        file('src/app.py', lines(40, 20)),
        file('sub', '2'.repeat(40), '160000'),
        file('a', 'first\nsecond\n'),
        file('z', 'last\nmore\n'),
        file('big.bin', '\0'.repeat(100)),
      ],
    },
    { ref: 'refs/heads/base', parent: 'refs/heads/fork', entries: [...fork, file('base-only.txt', 'x\n')] },
  ]);
  return dir;
}

describe('readPrDiff', () => {
  it('diffs from the merge base to the head: the base branch moving on is not part of the PR', async () => {
    const dir = prRepository(true);
    const range = await resolvePrRange(dir, 'refs/heads/base', 'refs/heads/head');
    expect(range.mergeBase).toBe(git(dir, ['rev-parse', 'refs/heads/fork']).toString().trim());
    const files = parseGitDiff(await readPrDiff(dir, 'refs/heads/base', 'refs/heads/head'));
    expect(files.map((f) => f.path.text)).toEqual(['a', 'big.bin', 'src/app.py', 'sub', 'z']);
  });

  it('writes the same bytes whatever the repository config and attributes say, and runs no program', async () => {
    const clean = prRepository(true);
    const expected = await readPrDiff(clean, 'refs/heads/base', 'refs/heads/head');

    const hostile = prRepository(false);
    const marker = join(hostile, 'pwned');
    const run = `sh -c 'touch ${marker}'`;
    const config: [string, string][] = [
      ['diff.external', run],
      ['diff.evil.command', run],
      ['diff.evil.textconv', `sh -c 'touch ${marker}; cat'`],
      ['diff.noprefix', 'true'],
      ['diff.mnemonicPrefix', 'true'],
      ['diff.relative', 'true'],
      ['color.ui', 'always'],
      ['color.diff', 'always'],
      ['diff.suppressBlankEmpty', 'true'],
      ['diff.context', '0'],
      ['diff.interHunkContext', '10'],
      ['diff.algorithm', 'patience'],
      ['diff.indentHeuristic', 'false'],
      ['diff.submodule', 'log'],
      ['diff.ignoreSubmodules', 'all'],
      ['diff.orderFile', join(hostile, 'order')],
      ['diff.renames', 'copies'],
      ['core.quotePath', 'false'],
      ['core.bigFileThreshold', '1'],
      ['core.fsmonitor', run],
    ];
    for (const [key, value] of config) git(hostile, ['config', key, value]);
    writeFileSync(join(hostile, 'order'), 'z\nsub\n');
    writeFileSync(join(hostile, '.gitattributes'), '* diff=evil\n');

    const actual = await readPrDiff(hostile, 'refs/heads/base', 'refs/heads/head');
    expect(actual.toString('latin1')).toBe(expected.toString('latin1'));
    expect(existsSync(marker)).toBe(false);
    expect(actual.toString()).toContain('+Subproject commit ' + '2'.repeat(40));
    expect(actual.toString()).toContain('\n \n'); // empty context lines keep their space
  });

  it('checks nothing out', async () => {
    const dir = prRepository(false);
    const before = readdirSync(dir).sort();
    await readPrDiff(dir, 'refs/heads/base', 'refs/heads/head');
    expect(readdirSync(dir).sort()).toEqual(before);
    expect(git(dir, ['symbolic-ref', 'HEAD']).toString().trim()).toBe('refs/heads/main');
  });

  it.each([
    ['an unknown name', 'no-such-branch'],
    ['a tree', 'refs/heads/base^{tree}'],
    ['a blob', 'refs/heads/base:a'],
    ['an option', '--output=/tmp/og-read-pr-diff-pwned'],
    ['an empty string', ''],
  ])('refuses %s as base or head', async (_what, rev) => {
    const dir = prRepository(true);
    await expect(readPrDiff(dir, rev, 'refs/heads/head')).rejects.toThrow(PrRangeError);
    await expect(readPrDiff(dir, 'refs/heads/base', rev)).rejects.toThrow(
      /is not a commit|is not a revision/,
    );
    expect(existsSync('/tmp/og-read-pr-diff-pwned')).toBe(false);
  });

  it('refuses a head with no common ancestor', async () => {
    const dir = prRepository(true);
    importCommits(dir, [{ ref: 'refs/heads/orphan', entries: [file('x', 'y\n')] }]);
    await expect(readPrDiff(dir, 'refs/heads/base', 'refs/heads/orphan')).rejects.toThrow(
      /no common ancestor/,
    );
  });
});
