import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeKind } from '../../src/gate/report.js';
import {
  checkSealedFixtures,
  parseFixtureManifest,
  type FixtureManifest,
  type SealedFixtureBase,
  type TouchedPath,
} from '../../src/oracle-dir/sealed-fixtures.js';
import { readSealedFixtureBase } from '../../src/oracle-dir/sealed-fixtures-base.js';

const sha = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');
const H1 = sha('one');
const H2 = sha('two');

function manifest(roots: string[], files: Record<string, string>): FixtureManifest {
  return { roots, files: new Map(Object.entries(files)) };
}

function base(listed: Record<string, string | null>, under: string[]): SealedFixtureBase {
  return { listedHashes: new Map(Object.entries(listed)), pathsUnderRoots: under };
}

describe('fixtures/manifest.json', () => {
  it('reads roots and path -> sha256 into a Map, roots defaulting to none', () => {
    const result = parseFixtureManifest(JSON.stringify({ files: { 'tests/fixtures/a.json': H1 } }));
    expect(result).toEqual({ ok: true, value: manifest([], { 'tests/fixtures/a.json': H1 }) });
  });

  it('keeps a file named __proto__', () => {
    const result = parseFixtureManifest(`{"roots":[],"files":{"__proto__":"${H1}"}}`);
    expect(result.ok && [...result.value.files.keys()]).toEqual(['__proto__']);
  });

  it.each([
    [{ roots: ['/abs'], files: {} }, 'roots[0]: must be relative to the repository root (no leading /)'],
    [{ roots: ['a/../b'], files: {} }, "roots[0]: '.' and '..' segments are not allowed"],
    [{ roots: ['a', 'b', 'a'], files: {} }, 'roots[2]: root listed twice'],
    [{ roots: ['a/'], files: {} }, 'roots[0]: empty path segment (a doubled or trailing /)'],
    [{ roots: ['.git'], files: {} }, 'roots[0]: .git is not part of the repository'],
    [{ roots: [] }, 'files: missing field'],
    [{ roots: [], files: [] }, 'files: expected an object'],
    [{ roots: [], files: { '../x': H1 } }, `files["../x"]: '.' and '..' segments are not allowed`],
    [{ roots: [], files: { './x': H1 } }, `files["./x"]: '.' and '..' segments are not allowed`],
    [
      { roots: [], files: { '/x': H1 } },
      'files["/x"]: must be relative to the repository root (no leading /)',
    ],
    [{ roots: [], files: { 'a\nb': H1 } }, 'files["a\\nb"]: path holds a control character'],
    [{ roots: [], files: { '"quoted"': H1 } }, 'files["\\"quoted\\""]: must not start with a double quote'],
    [{ roots: [], files: { a: H1.toUpperCase() } }, 'files.a: a sha256 as 64 lowercase hex digits'],
    [{ roots: [], files: { a: 'abc' } }, 'files.a: a sha256 as 64 lowercase hex digits'],
    [{ roots: [], files: {}, version: 1 }, 'version: unknown field'],
  ])('refuses %j: %s', (value, error) => {
    expect(parseFixtureManifest(JSON.stringify(value))).toEqual({ ok: false, error });
  });
});

describe('checkSealedFixtures', () => {
  const m = manifest(['fx'], { 'fx/a.json': H1, 'fx/b.json': H2, 'elsewhere/c.txt': H1 });
  const goodBase = base({ 'fx/a.json': H1, 'fx/b.json': H2, 'elsewhere/c.txt': H1 }, [
    'fx/a.json',
    'fx/b.json',
  ]);
  const touch = (path: string, change: ChangeKind): TouchedPath => ({ path, change });

  it('passes when the base matches and the patch stays away', () => {
    expect(
      checkSealedFixtures({ manifest: m, base: goodBase, touched: [touch('src/x.py', 'modified')] }),
    ).toEqual([]);
  });

  it('an empty manifest passes anything', () => {
    expect(
      checkSealedFixtures({ manifest: manifest([], {}), base: base({}, []), touched: [touch('a', 'added')] }),
    ).toEqual([]);
  });

  it('(1) a listed file missing or different at the base commit: stale-oracle', () => {
    const stale = base({ 'fx/a.json': H2, 'fx/b.json': null, 'elsewhere/c.txt': H1 }, ['fx/a.json']);
    expect(checkSealedFixtures({ manifest: m, base: stale, touched: [] })).toEqual([
      {
        kind: 'custom',
        subkind: 'stale-oracle',
        message:
          '2 sealed fixture(s) differ from fixtures/manifest.json at the base commit; the oracle is stale, ' +
          `update the manifest: "fx/a.json" (sha256 ${H2}, manifest ${H1}), "fx/b.json" (missing or not a regular file)`,
      },
    ]);
  });

  it('(1) a listed file absent from the base data counts as missing', () => {
    const partial = base({ 'fx/a.json': H1, 'fx/b.json': H2 }, ['fx/a.json', 'fx/b.json']);
    const reasons = checkSealedFixtures({ manifest: m, base: partial, touched: [] });
    expect(reasons.map((r) => r.subkind)).toEqual(['stale-oracle']);
    expect(reasons[0]!.message).toContain('"elsewhere/c.txt" (missing');
  });

  it.each<ChangeKind>(['modified', 'deleted', 'mode-changed', 'renamed', 'copied', 'added'])(
    '(2) the patch touching a sealed file (%s): sealed-fixture-touched',
    (change) => {
      const reasons = checkSealedFixtures({
        manifest: m,
        base: goodBase,
        touched: [touch('elsewhere/c.txt', change)],
      });
      expect(reasons).toEqual([
        {
          kind: 'custom',
          subkind: 'sealed-fixture-touched',
          message: `the patch touches 1 sealed fixture(s): elsewhere/c.txt (${change})`,
        },
      ]);
    },
  );

  it('(3) a file the patch adds under a sealed root: unsealed-fixture', () => {
    const reasons = checkSealedFixtures({
      manifest: m,
      base: goodBase,
      touched: [touch('fx/new.json', 'added'), touch('fx2/not-under.json', 'added'), touch('fx', 'modified')],
    });
    expect(reasons).toEqual([
      {
        kind: 'custom',
        subkind: 'unsealed-fixture',
        message:
          '2 file(s) under a sealed root are not in fixtures/manifest.json: fx (from the patch), fx/new.json (from the patch)',
      },
    ]);
  });

  it('(3) an unlisted file already at the base commit fails too, and says so; deleting it passes', () => {
    const withExtra = base({ 'fx/a.json': H1, 'fx/b.json': H2, 'elsewhere/c.txt': H1 }, [
      'fx/a.json',
      'fx/b.json',
      'fx/old.json',
    ]);
    const reasons = checkSealedFixtures({ manifest: m, base: withExtra, touched: [] });
    expect(reasons.map((r) => [r.subkind, r.message])).toEqual([
      [
        'unsealed-fixture',
        '1 file(s) under a sealed root are not in fixtures/manifest.json: fx/old.json (at the base commit)',
      ],
    ]);
    expect(
      checkSealedFixtures({ manifest: m, base: withExtra, touched: [touch('fx/old.json', 'deleted')] }),
    ).toEqual([]);
  });

  it('a renamed or copied path under a root counts as present after the patch', () => {
    for (const change of ['renamed', 'copied'] as const) {
      const reasons = checkSealedFixtures({
        manifest: m,
        base: goodBase,
        touched: [touch('fx/moved.json', change)],
      });
      expect(reasons.map((r) => r.subkind)).toEqual(['unsealed-fixture']);
    }
  });

  it('reports all three at once, in order', () => {
    const stale = base({ 'fx/a.json': H2, 'fx/b.json': H2, 'elsewhere/c.txt': H1 }, [
      'fx/a.json',
      'fx/b.json',
    ]);
    const reasons = checkSealedFixtures({
      manifest: m,
      base: stale,
      touched: [touch('fx/b.json', 'modified'), touch('fx/extra', 'added')],
    });
    expect(reasons.map((r) => r.subkind)).toEqual([
      'stale-oracle',
      'sealed-fixture-touched',
      'unsealed-fixture',
    ]);
  });

  it('compares as bytes: a touched path in git quoted form still matches', () => {
    const mf = manifest(['fx'], { 'fx/é.json': H1 });
    const b = base({ 'fx/é.json': H1 }, ['fx/é.json']);
    const reasons = checkSealedFixtures({
      manifest: mf,
      base: b,
      touched: [touch('"fx/\\303\\251.json"', 'modified'), touch('"fx/\\377"', 'added')],
    });
    expect(reasons.map((r) => [r.subkind, r.message])).toEqual([
      ['sealed-fixture-touched', 'the patch touches 1 sealed fixture(s): "fx/\\303\\251.json" (modified)'],
      [
        'unsealed-fixture',
        '1 file(s) under a sealed root are not in fixtures/manifest.json: "fx/\\377" (from the patch)',
      ],
    ]);
  });

  it('a root matches whole path segments only', () => {
    const reasons = checkSealedFixtures({
      manifest: manifest(['fx'], {}),
      base: base({}, []),
      touched: [touch('fxx/a', 'added'), touch('fx.json', 'added')],
    });
    expect(reasons).toEqual([]);
  });

  it('fails exactly when some check does (property)', () => {
    const path = fc.constantFrom('r/a', 'r/b', 'r/c', 's/a', 'r', 'rx/a');
    const change = fc.constantFrom<ChangeKind>(
      'added',
      'deleted',
      'modified',
      'mode-changed',
      'renamed',
      'copied',
    );
    fc.assert(
      fc.property(
        fc.dictionary(path, fc.constantFrom(H1, H2)),
        fc.dictionary(path, fc.option(fc.constantFrom(H1, H2))),
        fc.uniqueArray(path),
        fc.array(fc.tuple(path, change)),
        (files, listedAtBase, baseFiles, touches) => {
          const mf = manifest(['r'], files);
          const reasons = checkSealedFixtures({
            manifest: mf,
            base: base(
              listedAtBase,
              baseFiles.filter((p) => p === 'r' || p.startsWith('r/')),
            ),
            touched: touches.map(([p, c]) => touch(p, c)),
          });
          const stale = Object.entries(files).some(([p, h]) => (listedAtBase[p] ?? null) !== h);
          const touched = touches.some(([p]) => p in files);
          const after = new Set(baseFiles.filter((p) => p === 'r' || p.startsWith('r/')));
          for (const [p, c] of touches) {
            if (p !== 'r' && !p.startsWith('r/')) continue;
            if (c === 'deleted') after.delete(p);
            else after.add(p);
          }
          const unsealed = [...after].some((p) => !(p in files));
          expect(reasons.map((r) => r.subkind)).toEqual([
            ...(stale ? ['stale-oracle'] : []),
            ...(touched ? ['sealed-fixture-touched'] : []),
            ...(unsealed ? ['unsealed-fixture'] : []),
          ]);
        },
      ),
    );
  });
});

describe('readSealedFixtureBase (git adapter)', () => {
  const temps: string[] = [];
  afterAll(() => temps.forEach((d) => rmSync(d, { recursive: true, force: true })));

  function repo(): { dir: string; head: string } {
    const dir = mkdtempSync(join(tmpdir(), 'og-seal-'));
    temps.push(dir);
    const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8' });
    git('init', '-q');
    mkdirSync(join(dir, 'fx/deep'), { recursive: true });
    writeFileSync(join(dir, 'fx/a.json'), 'one');
    writeFileSync(join(dir, 'fx/deep/b.bin'), Buffer.from([0, 1, 2, 255]));
    writeFileSync(join(dir, 'fx/unlisted.txt'), 'x');
    writeFileSync(Buffer.concat([Buffer.from(join(dir, 'fx/bytes-')), Buffer.from([0xff])]), 'z');
    symlinkSync('a.json', join(dir, 'fx/link.json'));
    writeFileSync(join(dir, 'outside.txt'), 'two');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'base');
    // The working tree changes after the commit; only the commit counts.
    writeFileSync(join(dir, 'fx/a.json'), 'changed');
    return { dir, head: git('rev-parse', 'HEAD').trim() };
  }

  it('hashes listed files from git objects and lists every path under the roots', async () => {
    const { dir, head } = repo();
    const mf = manifest(['fx'], {
      'fx/a.json': sha('one'),
      'fx/deep/b.bin': sha(Buffer.from([0, 1, 2, 255])),
      'fx/link.json': sha('a.json'),
      'outside.txt': sha('two'),
      'fx/missing.json': H1,
    });
    const data = await readSealedFixtureBase(dir, head, mf);
    expect(Object.fromEntries(data.listedHashes)).toEqual({
      'fx/a.json': sha('one'),
      'fx/deep/b.bin': sha(Buffer.from([0, 1, 2, 255])),
      'fx/link.json': null, // a symlink is not a regular file
      'outside.txt': sha('two'),
      'fx/missing.json': null,
    });
    expect([...data.pathsUnderRoots].sort()).toEqual(
      ['"fx/bytes-\\377"', 'fx/a.json', 'fx/deep/b.bin', 'fx/link.json', 'fx/unlisted.txt'].sort(),
    );
    const reasons = checkSealedFixtures({ manifest: mf, base: data, touched: [] });
    expect(reasons.map((r) => r.subkind)).toEqual(['stale-oracle', 'unsealed-fixture']);
    expect(reasons[1]!.message).toContain('"fx/bytes-\\377" (at the base commit)');
  });

  it('refuses a revision that looks like an option', async () => {
    const { dir } = repo();
    await expect(readSealedFixtureBase(dir, '--output=/tmp/x', manifest([], {}))).rejects.toThrow(
      /not a revision/,
    );
  });
});
