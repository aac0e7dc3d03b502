import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadOracleDir } from '../../src/oracle-dir/load.js';
import { isFrozen } from '../../src/oracle-dir/flake-ledger.js';
import { fixturePath } from '../helpers/fixtures.js';

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A writable copy of the complete example oracle directory. */
function copyOfComplete(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'og-load-')), 'oracle');
  temps.push(dir);
  cpSync(fixturePath('oracle-dir/complete'), dir, { recursive: true });
  return dir;
}

async function errorOf(dir: string): Promise<string> {
  const result = await loadOracleDir(dir);
  if (result.ok) throw new Error('expected an error');
  expect(result.error).not.toContain('\n');
  return result.error;
}

describe('loadOracleDir', () => {
  it('reads every file of a complete oracle directory', async () => {
    const result = await loadOracleDir(fixturePath('oracle-dir/complete'));
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const oracle = result.value;
    expect(oracle.dir).toBe(fixturePath('oracle-dir/complete'));
    expect(oracle.config.hidden_tests.dest).toBe('oracle_tests');
    expect(oracle.config.limits).toEqual({ memory: '1g', cpus: 2, pids: 512 });
    expect(oracle.config.policy.allow_gitattributes).toBe(true);
    expect(oracle.config.flake).toMatchObject({ window: 10, min_runs: 3 });
    expect(oracle.denyGlobs).toEqual([
      { glob: '**/conftest.py', line: 2 },
      { glob: 'lockfiles/**', line: 3 },
      { glob: '*.lock', line: 5 },
    ]);
    expect(oracle.allowGlobs).toEqual([
      { glob: 'src/**', line: 1 },
      { glob: 'docs/**', line: 3 },
    ]);
    expect(oracle.testsDir).toBe(join(fixturePath('oracle-dir/complete'), 'tests'));
    expect(oracle.testsLock).toEqual(
      new Set(['oracle_tests.test_parser::test_empty_body', 'oracle_tests.test_parser::test_single_line']),
    );
    expect(oracle.fixtures?.roots).toEqual(['tests/fixtures']);
    expect([...(oracle.fixtures?.files.keys() ?? [])]).toEqual(['tests/fixtures/http_empty_body.json']);
    expect(isFrozen(oracle.flakeLedger!, 'oracle_tests.test_parser::test_single_line')).toBe(true);
  });

  it('with only oracle.json: no deny globs, allow-all (null), and every other part null', async () => {
    const dir = copyOfComplete();
    for (const f of ['path_deny.txt', 'path_allow.txt', 'tests.lock', 'flake_ledger.json'])
      unlinkSync(join(dir, f));
    rmSync(join(dir, 'tests'), { recursive: true });
    rmSync(join(dir, 'fixtures'), { recursive: true });
    const result = await loadOracleDir(dir);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value).toMatchObject({
      denyGlobs: [],
      allowGlobs: null,
      testsDir: null,
      testsLock: null,
      fixtures: null,
      flakeLedger: null,
    });
  });

  it('an allow list that exists but holds no glob allows nothing ([], not null)', async () => {
    const dir = copyOfComplete();
    writeFileSync(join(dir, 'path_allow.txt'), '# nothing yet\n');
    const result = await loadOracleDir(dir);
    expect(result.ok && result.value.allowGlobs).toEqual([]);
  });

  it('requires oracle.json', async () => {
    const dir = copyOfComplete();
    unlinkSync(join(dir, 'oracle.json'));
    expect(await errorOf(dir)).toBe('oracle.json: missing (it is required)');
  });

  it.each([
    ['oracle.json', '{"image": 1}', 'oracle.json: image: Invalid input: expected string, received number'],
    ['oracle.json', '{', 'oracle.json: malformed JSON: expected a key at offset 1'],
    ['oracle.json', Buffer.from([0x7b, 0xff, 0x7d]), 'oracle.json: not valid UTF-8'],
    [
      'path_deny.txt',
      'ok/**\n/abs\n',
      'path_deny.txt line 2: globs are relative to the repository root; drop the leading /',
    ],
    [
      'path_allow.txt',
      '!src/**\n',
      'path_allow.txt line 1: negated globs are not supported (write \\! for a literal !)',
    ],
    ['tests.lock', 'a::b\na::b\n', 'tests.lock line 2: duplicate test ID (first on line 1)'],
    [
      'fixtures/manifest.json',
      '{"roots":[],"files":{"../x":"00"}}',
      `fixtures/manifest.json: files["../x"]: '.' and '..' segments are not allowed`,
    ],
    [
      'flake_ledger.json',
      '{"version":1,"tests":[{"id":"a"}]}',
      'flake_ledger.json: tests[0].state: active or frozen',
    ],
  ])('names the file and the field or line: %s', async (file, content, error) => {
    const dir = copyOfComplete();
    writeFileSync(join(dir, file), content);
    expect(await errorOf(dir)).toBe(error);
  });

  it('refuses symlinks and special files in place of its files', async () => {
    const a = copyOfComplete();
    unlinkSync(join(a, 'path_deny.txt'));
    symlinkSync('/etc/passwd', join(a, 'path_deny.txt'));
    expect(await errorOf(a)).toBe('path_deny.txt: a symlink, refused');

    const b = copyOfComplete();
    rmSync(join(b, 'fixtures'), { recursive: true });
    mkdirSync(join(b, 'elsewhere'));
    symlinkSync('elsewhere', join(b, 'fixtures'));
    expect(await errorOf(b)).toBe('fixtures: not a directory');

    const c = copyOfComplete();
    unlinkSync(join(c, 'tests.lock'));
    execFileSync('mkfifo', [join(c, 'tests.lock')]);
    expect(await errorOf(c)).toBe('tests.lock: not a regular file');

    const d = copyOfComplete();
    rmSync(join(d, 'tests'), { recursive: true });
    writeFileSync(join(d, 'tests'), 'not a directory');
    expect(await errorOf(d)).toBe('tests: not a directory');
  });

  it('refuses a path that is not a directory', async () => {
    expect(await errorOf(join(tmpdir(), 'og-no-such-oracle-dir'))).toMatch(/not a directory$/);
    expect(await errorOf(fixturePath('oracle-dir/hash-tree.h1'))).toMatch(/not a directory$/);
  });
});
