import { gitOk } from './run-git.js';

/** One entry of a commit's tree, as `git ls-tree -r` lists it. */
export interface TreeEntry {
  /** Octal mode: `100644`, `100755`, `120000` (symlink), `160000` (submodule). */
  mode: string;
  /** `blob` or `commit` (a submodule); `-r` never lists trees. */
  type: string;
  oid: string;
  /** The path's raw bytes, relative to the repository root. */
  path: Buffer;
}

const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

function checkRevision(rev: string): void {
  if (rev === '' || rev.startsWith('-') || [...rev].some((c) => c <= ' ' || c === '\u007f'))
    throw new Error(`not a revision: ${JSON.stringify(rev)}`);
}

/** Every file of `rev`'s tree, recursively (`ls-tree -r -z --full-tree`), paths as raw bytes. */
export async function listTree(repoDir: string, rev: string): Promise<TreeEntry[]> {
  checkRevision(rev);
  const out = await gitOk(repoDir, ['ls-tree', '-r', '-z', '--full-tree', '--end-of-options', rev]);
  const entries: TreeEntry[] = [];
  let start = 0;
  while (start < out.length) {
    const end = out.indexOf(0, start);
    if (end === -1) throw new Error('git ls-tree: unterminated entry');
    const tab = out.indexOf(0x09, start);
    if (tab === -1 || tab > end) throw new Error('git ls-tree: entry without a path');
    const [mode, type, oid] = out.subarray(start, tab).toString('latin1').split(' ');
    if (!mode || !type || !oid || !OID.test(oid)) throw new Error('git ls-tree: malformed entry');
    entries.push({ mode, type, oid, path: Buffer.from(out.subarray(tab + 1, end)) });
    start = end + 1;
  }
  return entries;
}

/**
 * The contents of blobs by object id (`cat-file --batch`). An id git does not have is absent from
 * the result; an object that is not a blob is an error.
 */
export async function readBlobs(repoDir: string, oids: readonly string[]): Promise<Map<string, Buffer>> {
  const unique = [...new Set(oids)];
  for (const oid of unique) if (!OID.test(oid)) throw new Error(`not an object id: ${JSON.stringify(oid)}`);
  const blobs = new Map<string, Buffer>();
  if (unique.length === 0) return blobs;
  const out = await gitOk(repoDir, ['cat-file', '--batch'], { input: unique.map((o) => o + '\n').join('') });
  let pos = 0;
  for (const requested of unique) {
    const eol = out.indexOf(0x0a, pos);
    if (eol === -1) throw new Error('git cat-file: truncated output');
    const header = out.subarray(pos, eol).toString('latin1').split(' ');
    pos = eol + 1;
    if (header[0] !== requested) throw new Error('git cat-file: output out of step with input');
    if (header[1] === 'missing') continue;
    const size = Number(header[2]);
    if (header.length !== 3 || !Number.isSafeInteger(size) || size < 0)
      throw new Error(`git cat-file: unexpected header for ${requested}`);
    if (header[1] !== 'blob') throw new Error(`git cat-file: ${requested} is a ${header[1]}, not a blob`);
    if (pos + size + 1 > out.length || out[pos + size] !== 0x0a)
      throw new Error('git cat-file: truncated output');
    blobs.set(requested, Buffer.from(out.subarray(pos, pos + size)));
    pos += size + 1;
  }
  return blobs;
}
