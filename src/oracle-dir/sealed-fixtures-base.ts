import { createHash } from 'node:crypto';
import { listTree, readBlobs } from '../git/read-tree.js';
import { displayPath } from './display-path.js';
import type { FixtureManifest, SealedFixtureBase } from './sealed-fixtures.js';

const REGULAR_FILE_MODES = new Set(['100644', '100755']);

/**
 * Reads what checkSealedFixtures needs from the base commit, through git objects only (nothing is
 * checked out). A path whose bytes are not UTF-8 comes out in git's quoted form, which no manifest
 * path can equal, so under a sealed root it is reported as unsealed.
 */
export async function readSealedFixtureBase(
  repoDir: string,
  baseCommit: string,
  manifest: FixtureManifest,
): Promise<SealedFixtureBase> {
  const entries = await listTree(repoDir, baseCommit);
  // Root membership on raw bytes: the display form of a non-UTF-8 path is quoted, so a string
  // prefix test would miss it.
  const roots = manifest.roots.map((root) => Buffer.from(root));
  const underRoots = (path: Buffer) =>
    roots.some(
      (root) =>
        path.equals(root) ||
        (path.length > root.length &&
          path[root.length] === 0x2f &&
          path.subarray(0, root.length).equals(root)),
    );
  const listedOids = new Map<string, string | null>();
  const pathsUnderRoots: string[] = [];
  for (const entry of entries) {
    const path = displayPath(entry.path);
    if (manifest.files.has(path))
      listedOids.set(path, entry.type === 'blob' && REGULAR_FILE_MODES.has(entry.mode) ? entry.oid : null);
    if (underRoots(entry.path)) pathsUnderRoots.push(path);
  }
  const oids = [...listedOids.values()].filter((oid): oid is string => oid !== null);
  const blobs = await readBlobs(repoDir, oids);
  const listedHashes = new Map<string, string | null>();
  for (const path of manifest.files.keys()) {
    const oid = listedOids.get(path);
    const blob = oid ? blobs.get(oid) : undefined;
    listedHashes.set(path, blob ? createHash('sha256').update(blob).digest('hex') : null);
  }
  return { listedHashes, pathsUnderRoots };
}
