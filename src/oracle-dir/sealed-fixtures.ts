import { z } from 'zod';
import type { ChangeKind } from '../gate/report.js';
import { parseChecked, type Checked } from '../json/parse-checked.js';
import type { FailReason } from '../verdict/schema.js';
import { recordAsMap } from './record-map.js';
import { displayPathBytes } from './display-path.js';
import { repoPathProblem } from './repo-path.js';

/**
 * Sealed fixtures, `fixtures/manifest.json`:
 *
 *   { "roots": ["tests/fixtures"], "files": { "tests/fixtures/empty_body.json": "<sha256 hex>" } }
 *
 * Paths are repository paths (see repo-path.ts). `files` maps each sealed file to the sha256 of its
 * content; `roots` are directories (or single files) in which every file must be listed. A listed
 * file need not lie under a root: sealing one file elsewhere is allowed.
 */
export const FixtureManifestSchema = z.strictObject({
  roots: z
    .array(
      z.string().superRefine((root, ctx) => {
        const problem = repoPathProblem(root);
        if (problem) ctx.addIssue({ code: 'custom', message: problem, input: root });
      }),
    )
    .max(10000, 'at most 10000 roots')
    .superRefine((roots, ctx) => {
      roots.forEach((root, i) => {
        if (roots.indexOf(root) !== i)
          ctx.addIssue({ code: 'custom', path: [i], message: 'root listed twice', input: root });
      });
    })
    .default([]),
  files: recordAsMap(
    repoPathProblem,
    z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 as 64 lowercase hex digits'),
  ),
});
export type FixtureManifest = z.output<typeof FixtureManifestSchema>;

export function parseFixtureManifest(text: string): Checked<FixtureManifest> {
  return parseChecked(FixtureManifestSchema, text);
}

/** What the base commit holds, as the git adapter (sealed-fixtures-base.ts) reads it. */
export interface SealedFixtureBase {
  /** sha256 hex of each listed file at the base commit; null (or absent) if missing or not a regular file. */
  listedHashes: ReadonlyMap<string, string | null>;
  /** Every path at the base commit under a sealed root: files, symlinks and submodules alike. */
  pathsUnderRoots: readonly string[];
}

export interface TouchedPath {
  path: string;
  change: ChangeKind;
}

export interface SealedFixtureInput {
  manifest: FixtureManifest;
  base: SealedFixtureBase;
  /** Every path the patch touches. */
  touched: readonly TouchedPath[];
}

/** Subkinds of the three checks, in the order they run. */
export const SEALED_FIXTURE_SUBKINDS = {
  /** A listed file is missing or differs at the base commit: the manifest no longer describes the repository. */
  stale: 'stale-oracle',
  /** The patch touches a listed file. */
  touched: 'sealed-fixture-touched',
  /** After the patch, a file under a sealed root is not listed. */
  unsealed: 'unsealed-fixture',
} as const;

const LISTED_PATHS = 10;

function listPaths(items: readonly string[]): string {
  const more = items.length > LISTED_PATHS ? ` and ${items.length - LISTED_PATHS} more` : '';
  return items.slice(0, LISTED_PATHS).join(', ') + more;
}

const byBytes = (a: string, b: string) => Buffer.compare(displayPathBytes(a), displayPathBytes(b));

/**
 * DESIGN.md's three checks, as data: (1) at the base commit every listed file matches its hash,
 * else the oracle is stale; (2) the patch touches no listed file; (3) after the patch no file
 * under a sealed root is unlisted. One reason per failed check; empty means pass.
 * A touched path other than `deleted` counts as present after the patch: with `--no-renames` the
 * diff has no renames, and reading one conservatively can only add a Fail. Paths compare as bytes,
 * so a touched path in git's quoted form (`"fx/\303\251.json"`) still matches `fx/é.json`.
 */
export function checkSealedFixtures({ manifest, base, touched }: SealedFixtureInput): FailReason[] {
  const reasons: FailReason[] = [];
  const reason = (subkind: string, message: string) => reasons.push({ kind: 'custom', subkind, message });
  // Paths compare as bytes: a touched path may arrive in git's quoted form.
  const key = (path: string) => displayPathBytes(path).toString('latin1');
  const listed = new Set([...manifest.files.keys()].map(key));
  const roots = manifest.roots.map(key);
  const underRoots = (path: string) => {
    const k = key(path);
    return roots.some((root) => k === root || k.startsWith(root + '/'));
  };

  const stale: string[] = [];
  for (const [path, expected] of [...manifest.files].sort(([a], [b]) => byBytes(a, b))) {
    const actual = base.listedHashes.get(path) ?? null;
    if (actual === null) stale.push(`${JSON.stringify(path)} (missing or not a regular file)`);
    else if (actual !== expected)
      stale.push(`${JSON.stringify(path)} (sha256 ${actual}, manifest ${expected})`);
  }
  if (stale.length > 0)
    reason(
      SEALED_FIXTURE_SUBKINDS.stale,
      `${stale.length} sealed fixture(s) differ from fixtures/manifest.json at the base commit; ` +
        `the oracle is stale, update the manifest: ${listPaths(stale)}`,
    );

  const sealedTouches = touched
    .filter((t) => listed.has(key(t.path)))
    .sort((a, b) => byBytes(a.path, b.path))
    // Display paths: already quoted where the bytes need it (display-path.ts).
    .map((t) => `${t.path} (${t.change})`);
  if (sealedTouches.length > 0)
    reason(
      SEALED_FIXTURE_SUBKINDS.touched,
      `the patch touches ${sealedTouches.length} sealed fixture(s): ${listPaths(sealedTouches)}`,
    );

  const after = new Map<string, { path: string; from: 'base' | 'patch' }>();
  for (const path of base.pathsUnderRoots) if (underRoots(path)) after.set(key(path), { path, from: 'base' });
  for (const t of touched) {
    if (!underRoots(t.path)) continue;
    const k = key(t.path);
    if (t.change === 'deleted') after.delete(k);
    else if (!after.has(k) || (t.change !== 'modified' && t.change !== 'mode-changed'))
      after.set(k, { path: t.path, from: 'patch' });
  }
  const unsealed = [...after]
    .filter(([k]) => !listed.has(k))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) // latin1 keys: code-unit order is byte order
    .map(([, { path, from }]) => `${path} (${from === 'base' ? 'at the base commit' : 'from the patch'})`);
  if (unsealed.length > 0)
    reason(
      SEALED_FIXTURE_SUBKINDS.unsealed,
      `${unsealed.length} file(s) under a sealed root are not in fixtures/manifest.json: ${listPaths(unsealed)}`,
    );
  return reasons;
}
