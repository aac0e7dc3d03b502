import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { hashCommand } from '../../src/cli/hash-command.js';
import { initCommand } from '../../src/cli/init-command.js';
import { hashOracleDir } from '../../src/oracle-dir/hash.js';
import { loadOracleDir } from '../../src/oracle-dir/load.js';
import { PLACEHOLDER_DIGEST, scaffoldFiles } from '../../src/oracle-dir/scaffold.js';
import { runCli } from '../helpers/cli.js';
import { fixturePath } from '../helpers/fixtures.js';

const temps: string[] = [];
afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'og-cli-'));
  temps.push(dir);
  return dir;
}

function io(): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return { lines, readStdin: async () => '', progress: (line) => lines.push(line) };
}

describe('oracle-gate hash', () => {
  const expected = readFileSync(fixturePath('oracle-dir/hash-tree.h1'), 'utf8');

  it('prints the hash alone and exits 0', async () => {
    expect(await hashCommand.run([fixturePath('oracle-dir/hash-tree')], io())).toEqual({
      exitCode: 0,
      stdout: expected,
    });
  });

  it('exits 1 with one line naming what it refused', async () => {
    const dir = tempDir();
    symlinkSync('/etc/passwd', join(dir, 'passwd'));
    expect(await hashCommand.run([dir], io())).toEqual({
      exitCode: 1,
      stderr: 'oracle-gate hash: passwd: a symlink refused, never followed\n',
    });
  });

  it('is a usage error (2) without exactly one directory, or with an unknown option', async () => {
    expect((await hashCommand.run([], io())).exitCode).toBe(2);
    expect((await hashCommand.run(['a', 'b'], io())).exitCode).toBe(2);
    expect((await hashCommand.run(['--fast', 'a'], io())).exitCode).toBe(2);
  });

  it('works through the bundled CLI', () => {
    const ok = runCli(['hash', fixturePath('oracle-dir/hash-tree')]);
    expect([ok.status, ok.stdout, ok.stderr]).toEqual([0, expected, '']);
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    symlinkSync('../x', join(dir, 'sub/link'));
    const refused = runCli(['hash', dir]);
    expect([refused.status, refused.stdout, refused.stderr]).toEqual([
      1,
      '',
      'oracle-gate hash: sub/link: a symlink refused, never followed\n',
    ]);
  });
});

describe('oracle-gate init', () => {
  it('scaffolds a directory that loads, prints its hash, and warns about the placeholder digest', async () => {
    const dir = join(tempDir(), 'oracle');
    const out = io();
    const result = await initCommand.run([dir], out);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe((await hashOracleDir(dir)) + '\n');
    expect(out.lines.join('\n')).toMatch(/warning: oracle.json's image digest is a placeholder/);

    const loaded = await loadOracleDir(dir);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.value.config.image.endsWith('@' + PLACEHOLDER_DIGEST)).toBe(true);
    expect(loaded.value.allowGlobs).toBeNull(); // no path_allow.txt: an empty one would allow nothing
    expect(loaded.value.testsLock).toBeNull();
    expect(loaded.value.denyGlobs).toEqual([]); // examples only, commented out
    expect(loaded.value.testsDir).toBe(join(dir, 'tests'));
    expect(loaded.value.fixtures).toEqual({ roots: [], files: new Map() });
    expect(loaded.value.flakeLedger?.tests.size).toBe(0);
  });

  it('its README explains every oracle file', () => {
    const readme = scaffoldFiles().find((f) => f.path === 'README.md')!.content;
    for (const name of [
      'oracle.json',
      'path_deny.txt',
      'path_allow.txt',
      'tests/',
      'tests.lock',
      'fixtures/manifest.json',
      'flake_ledger.json',
    ])
      expect(readme).toContain(name);
  });

  it('refuses a directory that is not empty, and writes nothing', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'oracle.json'), 'mine');
    expect(await initCommand.run([dir], io())).toEqual({
      exitCode: 1,
      stderr: `oracle-gate init: ${dir} exists and is not empty; nothing written\n`,
    });
    expect(readFileSync(join(dir, 'oracle.json'), 'utf8')).toBe('mine');
  });

  it('accepts an existing empty directory; refuses a file', async () => {
    const dir = tempDir();
    expect((await initCommand.run([dir], io())).exitCode).toBe(0);
    const file = join(tempDir(), 'f');
    writeFileSync(file, '');
    expect(await initCommand.run([file], io())).toEqual({
      exitCode: 1,
      stderr: `oracle-gate init: ${file}: not a directory\n`,
    });
  });

  it('works through the bundled CLI: hash on stdout, notes on stderr', () => {
    const dir = join(tempDir(), 'oracle');
    const run = runCli(['init', dir]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^h1:[A-Za-z0-9+/]{43}=\n$/);
    expect(run.stderr).toContain('placeholder');
    expect(runCli(['hash', dir]).stdout).toBe(run.stdout);
  });
});
