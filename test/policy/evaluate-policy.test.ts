import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { parseGitDiff } from '../../src/diff/parse-git-diff.js';
import { readPrDiff } from '../../src/diff/read-pr-diff.js';
import { defaultDenyRules } from '../../src/policy/default-deny-rules.js';
import { evaluatePolicy, type PathPolicy } from '../../src/policy/evaluate-policy.js';
import { PolicyConfigError } from '../../src/policy/path-rules.js';
import {
  applyToTree,
  importCommits,
  initRepo,
  scratch,
  treeOf,
  type Entry,
} from '../diff/helpers/git-fixture.js';

const diff = (...lines: string[]) => Buffer.from(lines.map((l) => l + '\n').join(''), 'latin1');
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const Z = '0'.repeat(40);

/** Sections in git's shape, by what they do, for a path written as git would (quoted or not). */
const modified = (p: string, mode = '100644') => [
  `diff --git a/${p} b/${p}`,
  `index ${A}..${B} ${mode}`,
  `--- a/${p}`,
  `+++ b/${p}`,
  '@@ -1,2 +1,2 @@',
  ' keep',
  '-old',
  '+new',
  '@@ -10 +10 @@',
  '-x',
  '+y',
];
const q = (prefix: string, p: string) => (p.startsWith('"') ? `"${prefix}${p.slice(1)}` : `${prefix}${p}`);
const added = (p: string, mode = '100644') => [
  `diff --git ${q('a/', p)} ${q('b/', p)}`,
  `new file mode ${mode}`,
  `index ${Z}..${A}`,
  '--- /dev/null',
  `+++ ${q('b/', p)}`,
  '@@ -0,0 +1 @@',
  '+content',
];
const deleted = (p: string, mode = '100644') => [
  `diff --git a/${p} b/${p}`,
  `deleted file mode ${mode}`,
  `index ${A}..${Z}`,
  `--- a/${p}`,
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-content',
];
const chmod = (p: string) => [`diff --git a/${p} b/${p}`, 'old mode 100644', 'new mode 100755'];
const binary = (p: string) => [
  `diff --git a/${p} b/${p}`,
  `index ${A}..${B} 100644`,
  'GIT binary patch',
  'literal 5',
  'McmZQzOv=my00M6TI{*Lx',
  '',
  'literal 0',
  'HcmV?d00001',
  '',
];
const renamed = (from: string, to: string) => [
  `diff --git a/${from} b/${to}`,
  'similarity index 90%',
  `rename from ${from}`,
  `rename to ${to}`,
  `index ${A}..${B} 100644`,
  `--- a/${from}`,
  `+++ b/${to}`,
  '@@ -3 +3 @@',
  '-a',
  '+b',
];
const copied = (from: string, to: string) => [
  `diff --git a/${from} b/${to}`,
  'similarity index 90%',
  `copy from ${from}`,
  `copy to ${to}`,
  `index ${A}..${B} 100644`,
  `--- a/${from}`,
  `+++ b/${to}`,
  '@@ -3 +3 @@',
  '-a',
  '+b',
];

const OPEN: PathPolicy = {
  denyGlobs: [],
  allowGlobs: null,
  allowSymlinks: false,
  allowSubmodules: false,
  allowGitattributes: false,
};

const evaluate = (sections: string[][], policy: Partial<PathPolicy> = {}) =>
  evaluatePolicy(parseGitDiff(diff(...sections.flat())), { ...OPEN, ...policy });

describe('touched paths', () => {
  it('lists every path with what the patch did to it; a rename touches both paths, a copy only its new one', () => {
    const result = evaluate([
      added('n'),
      deleted('d'),
      modified('m'),
      chmod('x'),
      renamed('r1', 'r2'),
      copied('c1', 'c2'),
    ]);
    expect(result.touched).toEqual([
      { path: 'n', change: 'added' },
      { path: 'd', change: 'deleted' },
      { path: 'm', change: 'modified' },
      { path: 'x', change: 'mode-changed' },
      { path: 'r1', change: 'renamed' },
      { path: 'r2', change: 'renamed' },
      { path: 'c2', change: 'copied' },
    ]);
    expect(result.denied).toEqual([]);
    expect(result.dropped).toEqual([]);
  });

  it('shows names that are not plain text in git quoted form', () => {
    const result = evaluate([added('"new\\nline\\377"')]);
    expect(result.touched).toEqual([{ path: '"new\\nline\\377"', change: 'added' }]);
  });
});

describe('deny rules', () => {
  it.each([
    ['added', added('.github/workflows/ci.yml')],
    ['deleted', deleted('.github/workflows/ci.yml')],
    ['modified', modified('.github/workflows/ci.yml')],
    ['mode-changed', chmod('.github/workflows/ci.yml')],
  ] as const)('a deny glob denies a path the patch %s', (change, section) => {
    const result = evaluate([section, modified('src/ok.py')], { denyGlobs: ['.github/**'] });
    expect(result.denied).toEqual([
      { path: '.github/workflows/ci.yml', change, rule: 'deny glob .github/**' },
    ]);
    expect(result.deniedFiles).toHaveLength(1);
    expect(result.filteredDiff.toString()).toContain('src/ok.py');
    expect(result.filteredDiff.toString()).not.toContain('.github');
  });

  it('a rename is denied from either end; a copy only at its new path', () => {
    const deny = { denyGlobs: ['tests/**'] };
    expect(evaluate([renamed('tests/t.py', 'src/t.py')], deny).denied).toEqual([
      { path: 'tests/t.py', change: 'renamed', rule: 'deny glob tests/**' },
    ]);
    expect(evaluate([renamed('src/t.py', 'tests/t.py')], deny).denied).toEqual([
      { path: 'tests/t.py', change: 'renamed', rule: 'deny glob tests/**' },
    ]);
    expect(evaluate([copied('tests/t.py', 'src/t.py')], deny).denied).toEqual([]);
    expect(evaluate([copied('src/t.py', 'tests/t.py')], deny).denied).toHaveLength(1);
  });

  it('globs match with dot: true, and a deny rule covers what is under a directory it matches', () => {
    const result = evaluate(
      [
        modified('a/.hidden/conftest.py'),
        modified('oracle/x'),
        modified('pkg/__snapshots__/s.snap'),
        modified('vendor/lib/x.js'),
      ],
      { denyGlobs: ['**/conftest.py', 'oracle/', '**/__snapshots__', 'vendor'] },
    );
    expect(result.denied.map((d) => d.rule)).toEqual([
      'deny glob **/conftest.py',
      'deny glob oracle/',
      'deny glob **/__snapshots__',
      'deny glob vendor',
    ]);
  });

  it('globs are anchored at the root: a trailing slash means what is under it, no matchBase', () => {
    expect(evaluate([modified('oracle')], { denyGlobs: ['oracle/'] }).denied).toEqual([]);
    expect(evaluate([modified('deep/oracle/x')], { denyGlobs: ['oracle'] }).denied).toEqual([]);
    expect(evaluate([modified('deep/x.txt')], { denyGlobs: ['*.txt'] }).denied).toEqual([]);
    expect(evaluate([modified('x.txt')], { denyGlobs: ['*.txt'] }).denied).toHaveLength(1);
  });

  it('reports the first matching rule, in the order given', () => {
    const result = evaluate([modified('tests/test_a.py')], { denyGlobs: ['tests/**', '**/test_*.py'] });
    expect(result.denied).toEqual([
      { path: 'tests/test_a.py', change: 'modified', rule: 'deny glob tests/**' },
    ]);
  });

  it('a deny wins over the allow-list', () => {
    const result = evaluate([modified('src/conftest.py')], {
      denyGlobs: ['**/conftest.py'],
      allowGlobs: ['src/**'],
    });
    expect(result.denied).toHaveLength(1);
    expect(result.dropped).toEqual([]);
  });

  it('a non-UTF-8 name: a literal glob cannot match it, a wildcard does', () => {
    const name = '"tests/caf\\351.py"';
    expect(evaluate([added(name)], { denyGlobs: ['tests/café.py'] }).denied).toEqual([]);
    expect(evaluate([added(name)], { denyGlobs: ['tests/caf?.py'] }).denied).toEqual([
      { path: '"tests/caf\\351.py"', change: 'added', rule: 'deny glob tests/caf?.py' },
    ]);
  });

  it('a ? in a deny glob matches a character outside the BMP (fail closed)', () => {
    const emoji = '"tests/test_\\360\\237\\230\\200.py"';
    expect(evaluate([added(emoji)], { denyGlobs: ['tests/test_?.py'] }).denied).toHaveLength(1);
    expect(evaluate([added(emoji)], { allowGlobs: ['tests/test_?.py'] }).dropped).toHaveLength(1);
  });

  it('paths no git tree should hold are denied as unsafe', () => {
    for (const p of ['a/../b', './a', 'a//b', '.git/config', 'x/.GIT/hooks/pre-commit'])
      expect(evaluate([modified(p)]).denied).toEqual([{ path: p, change: 'modified', rule: 'unsafe path' }]);
  });

  it('rejects a glob that cannot name a repository path', () => {
    for (const glob of ['', '/', '/abs'])
      expect(() => evaluate([modified('x')], { denyGlobs: [glob] })).toThrow(PolicyConfigError);
    expect(() => evaluate([modified('x')], { allowGlobs: ['/abs'] })).toThrow(PolicyConfigError);
  });
});

describe('symlink, submodule and .gitattributes rules and their opt-ins', () => {
  const symlinkChange = [
    'diff --git a/link b/link',
    `index ${A}..${B} 120000`,
    '--- a/link',
    '+++ b/link',
    '@@ -1 +1 @@',
    '-target',
    '\\ No newline at end of file',
    '+/etc/passwd',
    '\\ No newline at end of file',
  ];
  const gitlinkChange = [
    'diff --git a/sub b/sub',
    `index ${A}..${B} 160000`,
    '--- a/sub',
    '+++ b/sub',
    '@@ -1 +1 @@',
    `-Subproject commit ${A}`,
    `+Subproject commit ${B}`,
  ];

  it('a created or re-pointed symlink is denied unless allowSymlinks; deleting one is fine', () => {
    expect(evaluate([added('link', '120000')]).denied).toEqual([
      { path: 'link', change: 'added', rule: 'symlink' },
    ]);
    expect(evaluate([symlinkChange]).denied).toEqual([{ path: 'link', change: 'modified', rule: 'symlink' }]);
    expect(evaluate([deleted('link', '120000')]).denied).toEqual([]);
    expect(evaluate([added('link', '120000'), symlinkChange], { allowSymlinks: true }).denied).toEqual([]);
  });

  it('any gitlink change or .gitmodules change is denied unless allowSubmodules', () => {
    expect(evaluate([gitlinkChange]).denied).toEqual([
      { path: 'sub', change: 'modified', rule: 'submodule' },
    ]);
    expect(evaluate([added('sub', '160000')]).denied).toHaveLength(1);
    expect(evaluate([deleted('sub', '160000')]).denied).toHaveLength(1);
    expect(evaluate([modified('.gitmodules')]).denied).toEqual([
      { path: '.gitmodules', change: 'modified', rule: 'submodule' },
    ]);
    expect(evaluate([gitlinkChange, modified('.gitmodules')], { allowSubmodules: true }).denied).toEqual([]);
  });

  it('any .gitattributes at any depth is denied unless allowGitattributes', () => {
    for (const section of [
      added('.gitattributes'),
      deleted('src/.gitattributes'),
      modified('a/b/.gitattributes'),
    ])
      expect(evaluate([section]).denied.map((d) => d.rule)).toEqual(['.gitattributes']);
    expect(evaluate([modified('not.gitattributes')]).denied).toEqual([]);
    expect(evaluate([added('.gitattributes')], { allowGitattributes: true }).denied).toEqual([]);
  });

  it('an opt-in does not lift a deny glob', () => {
    expect(
      evaluate([added('.github/link', '120000')], { allowSymlinks: true, denyGlobs: ['.github/**'] }).denied,
    ).toHaveLength(1);
  });

  it('a rename or copy whose mode the diff does not give could be a symlink or submodule: denied', () => {
    const pureCopy = ['diff --git a/x b/y', 'similarity index 100%', 'copy from x', 'copy to y'];
    expect(evaluate([pureCopy]).denied.map((d) => d.rule)).toEqual([
      'unknown file mode (could be a symlink or submodule)',
    ]);
    expect(evaluate([pureCopy], { allowSymlinks: true, allowSubmodules: true }).denied).toEqual([]);
  });
});

describe('the allow-list', () => {
  it('without path_allow.txt everything is kept', () => {
    const bytes = diff(...modified('a'), ...added('b'));
    const result = evaluatePolicy(parseGitDiff(bytes), OPEN);
    expect(result.filteredDiff).toBe(bytes); // the very same bytes, not a copy
    expect(result.filteredSha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it('drops files outside it, recording every hunk with its ranges', () => {
    const result = evaluate([modified('src/a.py'), modified('docs/x.md')], { allowGlobs: ['src/**'] });
    expect(result.dropped).toEqual([
      {
        path: 'docs/x.md',
        oldStart: 1,
        oldLines: 2,
        newStart: 1,
        newLines: 2,
        reason: 'outside the allow-list',
      },
      {
        path: 'docs/x.md',
        oldStart: 10,
        oldLines: 1,
        newStart: 10,
        newLines: 1,
        reason: 'outside the allow-list',
      },
    ]);
    expect(result.filteredDiff.toString()).toBe(diff(...modified('src/a.py')).toString());
    expect(result.filteredSha256).toBe(createHash('sha256').update(result.filteredDiff).digest('hex'));
  });

  it('a file without hunks is one record with all ranges 0 and what it was', () => {
    const result = evaluate(
      [added('new-empty', '100644').slice(0, 3), deleted('gone').slice(0, 3), chmod('x'), binary('img.png')],
      { allowGlobs: [] },
    );
    expect(result.dropped).toEqual([
      {
        path: 'new-empty',
        oldStart: 0,
        oldLines: 0,
        newStart: 0,
        newLines: 0,
        reason: 'outside the allow-list (empty file added)',
      },
      {
        path: 'gone',
        oldStart: 0,
        oldLines: 0,
        newStart: 0,
        newLines: 0,
        reason: 'outside the allow-list (empty file deleted)',
      },
      {
        path: 'x',
        oldStart: 0,
        oldLines: 0,
        newStart: 0,
        newLines: 0,
        reason: 'outside the allow-list (mode 100644 -> 100755)',
      },
      {
        path: 'img.png',
        oldStart: 0,
        oldLines: 0,
        newStart: 0,
        newLines: 0,
        reason: 'outside the allow-list (binary file modified)',
      },
    ]);
    expect(result.filteredDiff.length).toBe(0);
  });

  it('new and deleted files outside it are dropped with their hunk ranges', () => {
    const result = evaluate([added('docs/new.md'), deleted('docs/old.md')], { allowGlobs: ['src/**'] });
    expect(result.dropped.map((d) => [d.path, d.oldStart, d.oldLines, d.newStart, d.newLines])).toEqual([
      ['docs/new.md', 0, 0, 1, 1],
      ['docs/old.md', 1, 1, 0, 0],
    ]);
  });

  it('a rename is kept only when both of its paths are allowed', () => {
    expect(evaluate([renamed('src/a', 'src/b')], { allowGlobs: ['src/**'] }).dropped).toEqual([]);
    expect(
      evaluate([renamed('lib/a', 'src/b')], { allowGlobs: ['src/**'] }).dropped.map((d) => d.reason),
    ).toEqual(['outside the allow-list: lib/a']);
    expect(
      evaluate([renamed('src/a', 'lib/b')], { allowGlobs: ['src/**'] }).dropped.map((d) => d.path),
    ).toEqual(['lib/b']);
  });

  it('an allow glob matches the path itself only: a directory name does not allow what is under it', () => {
    expect(evaluate([modified('src/deep/x.py')], { allowGlobs: ['src/**'] }).dropped).toEqual([]);
    expect(evaluate([modified('src/deep/x.py')], { allowGlobs: ['src/'] }).dropped).toEqual([]);
    expect(evaluate([modified('src/deep/x.py')], { allowGlobs: ['src'] }).dropped).toHaveLength(2);
    expect(evaluate([modified('src/deep/x.py')], { allowGlobs: ['src/*'] }).dropped).toHaveLength(2);
    expect(evaluate([modified('src/x.py')], { allowGlobs: ['src/*'] }).dropped).toEqual([]);
    expect(evaluate([modified('src')], { allowGlobs: ['src/**'] }).dropped).toHaveLength(2);
  });
});

describe('the filtered diff applies at the base', () => {
  const area = scratch('policy-apply');
  afterAll(() => area.cleanup());
  const entry = (path: string, content: string): Entry => ({
    path: Buffer.from(path),
    mode: '100644',
    content: Buffer.from(content),
  });

  it('drops a kept creation that needs a deletion the policy dropped or denied (file <-> directory)', async () => {
    const dir = initRepo(area.dir('repo'));
    importCommits(dir, [
      { ref: 'refs/heads/base', entries: [entry('d', 'a file\n'), entry('e/.gitattributes', '* text\n')] },
      {
        ref: 'refs/heads/head',
        parent: 'refs/heads/base',
        entries: [entry('d/x', 'now a dir\n'), entry('e', 'now a file\n')],
      },
    ]);
    const files = parseGitDiff(await readPrDiff(dir, 'refs/heads/base', 'refs/heads/head'));
    const result = evaluatePolicy(files, { ...OPEN, allowGlobs: ['d/**', 'e', 'e/**'] });
    expect(result.denied.map((d) => [d.path, d.rule])).toEqual([['e/.gitattributes', '.gitattributes']]);
    expect(result.dropped.map((d) => [d.path, d.reason])).toEqual([
      ['d', 'outside the allow-list'],
      ['d/x', 'needs the deletion of d, which was not applied'],
      ['e', 'needs the deletion of e/.gitattributes, which was not applied'],
    ]);
    expect(result.keptFiles).toEqual([]);
    const everything = evaluatePolicy(files, {
      ...OPEN,
      allowGlobs: ['d', 'd/**', 'e', 'e/**'],
      allowGitattributes: true,
    });
    expect(everything.dropped).toEqual([]);
    expect(applyToTree(dir, 'refs/heads/base', [everything.filteredDiff])).toEqual({
      ok: true,
      tree: treeOf(dir, 'refs/heads/head'),
    });
  });

  it('keeping some hunks of a file and not others never happens: later hunks need no offset fix', async () => {
    const dir = initRepo(area.dir('repo'));
    const long = (edit: boolean) =>
      Array.from({ length: 60 }, (_, i) => (edit && i % 15 === 0 ? `edited ${i}` : `line ${i}`)).join('\n') +
      '\n';
    importCommits(dir, [
      { ref: 'refs/heads/base', entries: [entry('src/a', long(false)), entry('docs/b', long(false))] },
      {
        ref: 'refs/heads/head',
        parent: 'refs/heads/base',
        entries: [entry('src/a', long(true)), entry('docs/b', long(true))],
      },
    ]);
    const files = parseGitDiff(await readPrDiff(dir, 'refs/heads/base', 'refs/heads/head'));
    expect(files.map((f) => f.hunks.length)).toEqual([4, 4]);
    const result = evaluatePolicy(files, { ...OPEN, allowGlobs: ['src/**'] });
    expect(result.keptFiles.map((f) => f.path.text)).toEqual(['src/a']);
    expect(result.dropped).toHaveLength(4);
    const applied = applyToTree(dir, 'refs/heads/base', [result.filteredDiff]);
    const expected = initRepo(area.dir('expected'));
    importCommits(expected, [
      { ref: 'refs/heads/x', entries: [entry('docs/b', long(false)), entry('src/a', long(true))] },
    ]);
    expect(applied).toEqual({ ok: true, tree: treeOf(expected, 'refs/heads/x') });
  });
});

describe('defaultDenyRules', () => {
  const rules = defaultDenyRules({
    oracleRepoPath: './oracle/',
    hiddenTestsDest: 'oracle_tests',
    sealedPaths: ['fixtures/[a]{b,c}.json'],
  });

  it('denies the workflows, the oracle, the hidden tests destination and sealed fixtures, exactly', () => {
    const result = evaluate(
      [
        modified('.github/workflows/ci.yml'),
        added('.github'),
        modified('oracle/oracle.json'),
        added('oracle_tests/test_x.py'),
        modified('fixtures/[a]{b,c}.json'),
        modified('fixtures/ab.json'),
        modified('oracle_tests_not/x'),
      ],
      { denyGlobs: rules },
    );
    expect(result.denied.map((d) => [d.path, d.rule])).toEqual([
      ['.github/workflows/ci.yml', 'deny glob .github/**'],
      ['.github', 'deny glob .github/**'],
      ['oracle/oracle.json', 'oracle directory oracle'],
      ['oracle_tests/test_x.py', 'hidden tests destination oracle_tests'],
      ['fixtures/[a]{b,c}.json', 'sealed fixture'],
    ]);
  });

  it('leaves the oracle out when it is not in the repository', () => {
    expect(defaultDenyRules({ hiddenTestsDest: 't', sealedPaths: [] }).map((r) => r.rule)).toEqual([
      'deny glob .github/**',
      'deny glob .github/**',
      'hidden tests destination t',
    ]);
  });

  it.each(['', '.', '/abs', '../up', 'a/../b'])('refuses %j as a repository path', (bad) => {
    expect(() => defaultDenyRules({ hiddenTestsDest: bad, sealedPaths: [] })).toThrow(PolicyConfigError);
  });
});
