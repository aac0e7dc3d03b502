import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { git, importCommits, initRepo, scratch, type Entry } from '../diff/helpers/git-fixture.js';

const area = scratch('policy-cli');
afterAll(() => area.cleanup());
beforeAll(() => {
  // The CLI under test is the bundle a user runs.
  execFileSync(process.execPath, [join(REPO_ROOT, 'scripts/bundle.mjs')], { cwd: REPO_ROOT });
});

const file = (path: string | Buffer, content: string, mode: Entry['mode'] = '100644'): Entry => ({
  path: Buffer.isBuffer(path) ? path : Buffer.from(path),
  mode,
  content: Buffer.from(content),
});

const BASE: Entry[] = [
  file('src/app.py', 'print(1)\n'),
  file('docs/guide.md', 'guide\n'),
  file('.github/workflows/ci.yml', 'on: push\n'),
  file('tests/fixtures/sealed.json', '{}\n'),
];

/** A repository (with a working tree at `main`, as a workflow's checkout) and a PR branch. */
function repoWithPr(head: Entry[]): string {
  const dir = initRepo(area.dir('repo'), false);
  importCommits(dir, [
    { ref: 'refs/heads/main', entries: BASE },
    { ref: 'refs/heads/pr', parent: 'refs/heads/main', entries: head },
  ]);
  git(dir, ['checkout', '-q', 'main']);
  return dir;
}

function oracleDir(
  files: Record<string, string> = {},
  policy: Record<string, boolean> = {},
  where = area.dir('oracle'),
): string {
  mkdirSync(where, { recursive: true });
  const config = {
    image: `registry.example/app-oracle@sha256:${'0'.repeat(64)}`,
    hidden_tests: { command: 'true', dest: 'oracle_tests' },
    policy,
  };
  writeFileSync(join(where, 'oracle.json'), JSON.stringify(config));
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(join(where, name, '..'), { recursive: true });
    writeFileSync(join(where, name), content);
  }
  return where;
}

const policy = (repo: string, oracle: string, extra: string[] = []) =>
  runCli(['policy', '--repo', repo, '--base', 'main', '--head', 'pr', '--oracle', oracle, ...extra]);

describe('oracle-gate policy', () => {
  it('exits 0 and prints one JSON object with touched paths, dropped hunks and the filtered diff hash', () => {
    const repo = repoWithPr([
      ...BASE.slice(1),
      file('src/app.py', 'print(2)\n'),
      file('docs/guide.md', 'new\n'),
    ]);
    const run = policy(repo, oracleDir({ 'path_allow.txt': 'src/**\n' }));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout.endsWith('\n') && run.stdout.trim().split('\n')).toHaveLength(1);
    const report = JSON.parse(run.stdout);
    expect(report.touched).toEqual([
      { path: 'docs/guide.md', change: 'modified' },
      { path: 'src/app.py', change: 'modified' },
    ]);
    expect(report.deniedTouches).toEqual([]);
    expect(report.droppedHunks).toEqual([
      {
        path: 'docs/guide.md',
        oldStart: 1,
        oldLines: 1,
        newStart: 1,
        newLines: 1,
        reason: 'outside the allow-list',
      },
    ]);
    expect(report.mergeBase).toBe(git(repo, ['rev-parse', 'main']).toString().trim());
    const srcOnly = git(repo, [
      'diff',
      '--binary',
      '--full-index',
      '--no-renames',
      '--src-prefix=a/',
      '--dst-prefix=b/',
      'main',
      'pr',
      '--',
      'src',
    ]);
    expect(report.diffSha256).toBe(createHash('sha256').update(srcOnly).digest('hex'));
    expect(report.diffBytes).toBe(srcOnly.length);
    expect(report.failReason).toBeUndefined();
  });

  it('exits 1 when a denied path is touched, listing each with the rule and the Fail reason', () => {
    const repo = repoWithPr([
      file('src/app.py', 'print(1)\n'),
      file('docs/guide.md', 'guide\n'),
      file('.github/workflows/ci.yml', 'on: pull_request_target\n'),
      file('tests/fixtures/sealed.json', '{"default": true}\n'),
      file('oracle_tests/test_fake.py', 'def test(): pass\n'),
      file('tests/conftest.py', 'collect_ignore = ["*"]\n'),
    ]);
    const manifest = JSON.stringify({
      roots: ['tests/fixtures'],
      files: { 'tests/fixtures/sealed.json': createHash('sha256').update('{}\n').digest('hex') },
    });
    const run = policy(
      repo,
      oracleDir({
        'path_deny.txt': '# agents may not\n**/conftest.py\n',
        'fixtures/manifest.json': manifest,
      }),
    );
    expect(run.status).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.deniedTouches).toEqual([
      { path: '.github/workflows/ci.yml', change: 'modified', rule: 'deny glob .github/**' },
      { path: 'oracle_tests/test_fake.py', change: 'added', rule: 'hidden tests destination oracle_tests' },
      { path: 'tests/conftest.py', change: 'added', rule: 'deny glob **/conftest.py (path_deny.txt line 2)' },
      { path: 'tests/fixtures/sealed.json', change: 'modified', rule: 'sealed fixture' },
    ]);
    expect(report.failReason.subkind).toBe('denied-path');
    expect(report.failReason.message).toMatch(
      /^the patch touches 4 denied paths: \.github\/workflows\/ci\.yml/,
    );
    expect(report.diffBytes).toBe(0);
  });

  it('denies the oracle directory when it lies inside the repository', () => {
    const repo = repoWithPr([...BASE, file('oracle/oracle.json', '{}\n')]);
    const run = policy(repo, oracleDir({}, {}, join(repo, 'oracle')));
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout).deniedTouches).toEqual([
      { path: 'oracle/oracle.json', change: 'added', rule: 'oracle directory oracle' },
    ]);
  });

  it('reads the symlink, submodule and .gitattributes opt-ins from oracle.json', () => {
    const repo = repoWithPr([
      ...BASE,
      file('link', '/etc/passwd', '120000'),
      file('vendored', '1'.repeat(40), '160000'),
      file('.gitattributes', '* -diff\n'),
    ]);
    const denied = policy(repo, oracleDir());
    expect(denied.status).toBe(1);
    expect(JSON.parse(denied.stdout).deniedTouches.map((d: { rule: string }) => d.rule)).toEqual([
      '.gitattributes',
      'symlink',
      'submodule',
    ]);
    const allowed = policy(
      repo,
      oracleDir({}, { allow_symlinks: true, allow_submodules: true, allow_gitattributes: true }),
    );
    expect(allowed.status).toBe(0);
  });

  it('shows a name that is not UTF-8 in quoted form', () => {
    const repo = repoWithPr([...BASE, file(Buffer.from([0x73, 0x72, 0x63, 0x2f, 0xff, 0x0a]), 'x\n')]);
    const run = policy(repo, oracleDir());
    expect(run.status).toBe(0);
    expect(JSON.parse(run.stdout).touched).toEqual([{ path: '"src/\\377\\n"', change: 'added' }]);
  });

  it.each([
    [['policy', '--base', 'main', '--head', 'pr', '--oracle', '/tmp'], /--repo is required/],
    [
      ['policy', '--repo', '.', '--base', 'main', '--head', 'pr', '--oracle', '/tmp', '--evil'],
      /Unknown option/,
    ],
    [['policy', 'extra'], /positional/],
  ])('exits 2 for bad usage: %j', (args, message) => {
    const run = runCli(args);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });

  it('exits 2 with one line for an oracle, revision or repository it cannot use', () => {
    const repo = repoWithPr(BASE);
    const noConfig = area.dir('empty-oracle');
    const cases: [string[], RegExp][] = [
      [['--repo', repo, '--base', 'main', '--head', 'pr', '--oracle', noConfig], /oracle\.json: missing/],
      [
        ['--repo', repo, '--base', 'nope', '--head', 'pr', '--oracle', oracleDir()],
        /the base "nope" is not a commit/,
      ],
      [
        ['--repo', area.dir('not-a-repo'), '--base', 'main', '--head', 'pr', '--oracle', oracleDir()],
        /not-a-repo-\d+ is not a git repository/,
      ],
      [
        ['--repo', join(repo, 'missing'), '--base', 'main', '--head', 'pr', '--oracle', oracleDir()],
        /no such directory/,
      ],
      [['--repo', repo, '--base', 'main', '--head', 'pr', '--oracle', repo], /oracle directory/],
    ];
    for (const [args, message] of cases) {
      const run = runCli(['policy', ...args]);
      expect(run.status).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('is listed in the top-level help', () => {
    expect(runCli(['--help']).stdout).toMatch(/policy\s+check a PR's diff/);
  });
});
