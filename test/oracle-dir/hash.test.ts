import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { hash1, hashOracleDir, OracleHashError } from '../../src/oracle-dir/hash.js';
import { fixturePath } from '../helpers/fixtures.js';

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'og-hash-'));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** Writes files given as [path bytes, content], creating parent directories. */
function writeTree(root: string, files: readonly [Buffer, Buffer | string][]): void {
  const rootBytes = Buffer.from(root);
  for (const [path, content] of files) {
    const full = Buffer.concat([rootBytes, Buffer.from('/'), path]);
    const slash = full.lastIndexOf(0x2f);
    mkdirSync(full.subarray(0, slash), { recursive: true });
    writeFileSync(full, content);
  }
}

// The independent computation, coreutils only: a fixed script, the directory a positional
// argument. `find -printf %P` gives paths without `./`; `sha256sum --zero` ends each line with NUL
// and leaves names unescaped (plain sha256sum escapes a name holding a backslash or newline); the
// NULs then become the newlines Hash1 uses. Names with a newline are refused by Hash1 itself, so
// they never reach this. A top-level .git is pruned, as hashOracleDir leaves it out.
const COREUTILS_HASH = `set -e
cd -- "$1"
find . -path ./.git -prune -o -type f -printf '%P\\0' | LC_ALL=C sort -z | xargs -0 -r sha256sum --zero -- | tr '\\0' '\\n' > "$2"
printf 'h1:%s\\n' "$(sha256sum < "$2" | cut -c1-64 | tr a-f A-F | basenc --base16 -d | base64 -w0)"`;

function coreutilsHash(dir: string): string {
  const scratch = join(tempDir(), 'lines');
  const run = spawnSync('sh', ['-c', COREUTILS_HASH, 'sh', dir, scratch], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`coreutils hash failed: ${run.stderr}`);
  return run.stdout.trim();
}

describe('hashOracleDir', () => {
  it('matches the hand-computed hash of the committed fixture tree', async () => {
    // fixtures/oracle-dir/hash-tree.sum holds the summary lines written out by hand-checkable
    // means (sha256sum of each file, sorted by bytes); hash-tree.h1 is h1: + base64(sha256(sum)).
    const expected = readFileSync(fixturePath('oracle-dir/hash-tree.h1'), 'utf8').trim();
    const sum = readFileSync(fixturePath('oracle-dir/hash-tree.sum'));
    expect('h1:' + createHash('sha256').update(sum).digest('base64')).toBe(expected);
    expect(await hashOracleDir(fixturePath('oracle-dir/hash-tree'))).toBe(expected);
  });

  it('sorts by path bytes, not by UTF-16 code units', async () => {
    // U+FF01 is EF BC 81 in UTF-8 and sorts before the emoji's F0; JS string order says otherwise.
    const sum = readFileSync(fixturePath('oracle-dir/hash-tree.sum'), 'utf8');
    expect(sum.indexOf('！.txt')).toBeLessThan(sum.indexOf('😀.txt'));
    expect('😀' < '！').toBe(true);
    expect(await hashOracleDir(fixturePath('oracle-dir/hash-tree'))).toBe(
      coreutilsHash(fixturePath('oracle-dir/hash-tree')),
    );
  });

  it('agrees with coreutils on a tree of awkward names', async () => {
    const dir = tempDir();
    const names = [
      'plain.txt',
      'with space.txt',
      '  leading and trailing  ',
      '-starts-with-dash',
      '--',
      "quote\"s and 'apostrophes'",
      'back\\slash',
      'tab\there',
      'carriage\rreturn',
      'glob*?[chars]',
      '$(not a command)',
      'ünïcödé/名前.txt',
      'deep/a/b/c/d/e/f/g.txt',
      'a/b',
      'a.b',
      'a-b',
      'A/b',
      '.hidden/.dotfile',
      'nested/.git/config', // only a top-level .git is left out
    ].map((n) => Buffer.from(n));
    const nonUtf8 = Buffer.from([0x66, 0xff, 0xfe, 0x80, 0x2e, 0x62, 0x69, 0x6e]);
    const files: [Buffer, Buffer | string][] = names.map((n) => [n, `content of ${n.toString()}\n`]);
    files.push([nonUtf8, Buffer.from([0, 1, 2, 255])]);
    files.push([Buffer.from('empty'), '']);
    writeTree(dir, files);
    mkdirSync(join(dir, 'empty-dir/also-empty'), { recursive: true });
    const expected = coreutilsHash(dir);
    expect(await hashOracleDir(dir)).toBe(expected);
    expect(await hashOracleDir(dir + '/')).toBe(expected);
  });

  it('agrees with coreutils on files larger than its read buffer', async () => {
    const dir = tempDir();
    const big = Buffer.alloc(3 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i++) big[i] = (i * 31 + (i >> 13)) & 0xff;
    writeTree(dir, [
      [Buffer.from('big.bin'), big],
      [Buffer.from('exactly-1MiB.bin'), big.subarray(0, 1024 * 1024)],
      [Buffer.from('one-byte'), 'x'],
    ]);
    expect(await hashOracleDir(dir)).toBe(coreutilsHash(dir));
  });

  it('agrees with coreutils on many files in many directories', async () => {
    const dir = tempDir();
    const files: [Buffer, string][] = [];
    for (let i = 0; i < 600; i++)
      files.push([Buffer.from(`d${i % 37}/s${i % 5}/f${i}`), `file ${i}\n`.repeat(i % 50)]);
    writeTree(dir, files);
    expect(await hashOracleDir(dir)).toBe(coreutilsHash(dir));
  });

  it('agrees with coreutils on random trees (property)', async () => {
    // Name bytes: anything but NUL, '/' and newline; '.' and '..' are not names.
    const nameByte = fc.integer({ min: 1, max: 255 }).filter((b) => b !== 0x2f && b !== 0x0a);
    const name = fc
      .array(nameByte, { minLength: 1, maxLength: 12 })
      .map((bytes) => Buffer.from(bytes))
      .filter((b) => !['.', '..', '.git'].includes(b.toString('latin1')));
    const path = fc.array(name, { minLength: 1, maxLength: 3 }).map((parts) => Buffer.from(parts.join('/')));
    const tree = fc.uniqueArray(fc.tuple(path, fc.uint8Array({ maxLength: 300 })), {
      minLength: 0,
      maxLength: 12,
      selector: ([p]) => p.toString('hex'),
    });
    await fc.assert(
      fc.asyncProperty(tree, async (entries) => {
        // Drop paths that would need a file to also be a directory.
        const kept: [Buffer, Buffer][] = [];
        for (const [p, content] of entries) {
          const clash = kept.some(([q]) => isPrefixDir(p, q) || isPrefixDir(q, p));
          if (!clash) kept.push([p, Buffer.from(content)]);
        }
        const dir = tempDir();
        writeTree(dir, kept);
        expect(await hashOracleDir(dir)).toBe(coreutilsHash(dir));
      }),
      { numRuns: 30 },
    );
  });

  it('hashes an empty directory as Hash1 of no files', async () => {
    const dir = tempDir();
    expect(await hashOracleDir(dir)).toBe('h1:' + createHash('sha256').digest('base64'));
    expect(await hashOracleDir(dir)).toBe(coreutilsHash(dir));
  });

  it('leaves out a top-level .git, and only that', async () => {
    const dir = tempDir();
    writeTree(dir, [[Buffer.from('oracle.json'), '{}']]);
    const before = await hashOracleDir(dir);
    writeTree(dir, [[Buffer.from('.git/HEAD'), 'ref: refs/heads/main\n']]);
    symlinkSync('/etc/passwd', join(dir, '.git/evil-link'));
    expect(await hashOracleDir(dir)).toBe(before);
    writeTree(dir, [[Buffer.from('tests/.git/HEAD'), 'x']]);
    expect(await hashOracleDir(dir)).not.toBe(before);
  });
});

function isPrefixDir(path: Buffer, maybeDir: Buffer): boolean {
  return (
    path.length > maybeDir.length &&
    path[maybeDir.length] === 0x2f &&
    path.subarray(0, maybeDir.length).equals(maybeDir)
  );
}

describe('hashOracleDir refuses what it must not follow', () => {
  const refused = async (dir: string, pattern: RegExp) => {
    const error = await hashOracleDir(dir).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OracleHashError);
    expect((error as Error).message).toMatch(pattern);
    expect((error as Error).message).not.toContain('\n');
  };

  it('a symlink to a file, nested', async () => {
    const dir = tempDir();
    writeTree(dir, [[Buffer.from('tests/real.py'), 'x']]);
    symlinkSync('real.py', join(dir, 'tests/link.py'));
    await refused(dir, /^tests\/link\.py: a symlink refused, never followed$/);
  });

  it('a symlink to a directory, and a dangling one', async () => {
    const a = tempDir();
    symlinkSync('/etc', join(a, 'etc'));
    await refused(a, /^etc: a symlink refused/);
    const b = tempDir();
    symlinkSync('/nonexistent/target', join(b, 'dangling'));
    await refused(b, /^dangling: a symlink refused/);
  });

  it('a FIFO, without hanging on it', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'sub'));
    execFileSync('mkfifo', [join(dir, 'sub/pipe')]);
    await refused(dir, /^sub\/pipe: a FIFO refused, never followed$/);
  });

  it('a socket', async () => {
    const dir = tempDir();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, 'sock'), resolve));
    try {
      await refused(dir, /^sock: a socket refused, never followed$/);
    } finally {
      server.close();
    }
  });

  it('a file name holding a newline (it would forge a line), shown escaped', async () => {
    const dir = tempDir();
    writeTree(dir, [[Buffer.from('evil\nname'), 'x']]);
    await refused(dir, /^"evil\\nname": file names holding a newline are refused$/);
  });

  it('a non-UTF-8 name is shown in quoted octal form', async () => {
    const dir = tempDir();
    symlinkSync('x', Buffer.concat([Buffer.from(dir + '/'), Buffer.from([0x61, 0xff])]));
    await refused(dir, /^"a\\377": a symlink refused/);
  });

  it('a root that is a symlink, a file, or missing', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'real'));
    symlinkSync('real', join(dir, 'link'));
    await refused(join(dir, 'link'), /is a symlink; give the directory itself/);
    writeFileSync(join(dir, 'file'), 'x');
    await refused(join(dir, 'file'), /is not a directory/);
    await refused(join(dir, 'missing'), /cannot read .*ENOENT/);
  });
});

describe('hash1', () => {
  it('is Go dirhash.Hash1 over the given list, in byte order', () => {
    const files = [
      { path: Buffer.from('b'), sha256: 'b'.repeat(64) },
      { path: Buffer.from('a'), sha256: 'a'.repeat(64) },
    ];
    const summary = `${'a'.repeat(64)}  a\n${'b'.repeat(64)}  b\n`;
    expect(hash1(files)).toBe('h1:' + createHash('sha256').update(summary).digest('base64'));
  });

  it('refuses a newline in a path and a path listed twice', () => {
    expect(() => hash1([{ path: Buffer.from('a\nb'), sha256: '0'.repeat(64) }])).toThrow(OracleHashError);
    const twice = [
      { path: Buffer.from('a'), sha256: '0'.repeat(64) },
      { path: Buffer.from('a'), sha256: '1'.repeat(64) },
    ];
    expect(() => hash1(twice)).toThrow(/listed twice/);
  });
});
