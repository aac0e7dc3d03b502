import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gitOk } from '../../src/git/run-git.js';
import { commitAll, IDENTITY, SAMPLE } from '../container/sample-repo.js';
import { CORPUS, pathBytes, type CorpusCase, type Edit } from './corpus-case.js';

/**
 * The corpus's repository: commit `base` (fixtures/sample-python/repo with fixtures/attacks/base
 * over it), `baseWithOracle` (base plus the pinned oracle at `.oracle/`, left in the work tree so
 * the gate finds it there), a branch `upstream-fix` holding the real fix (for the attack that goes
 * looking through history), and one head per case. Heads are built in git's index from the case's
 * edits, so names no work tree can hold still reach the diff byte for byte.
 */
export interface CorpusRepo {
  dir: string;
  base: string;
  baseWithOracle: string;
  /** The in-repository oracle folder on disk. */
  inRepoOracleDir: string;
  heads: Map<string, string>;
  remove(): Promise<void>;
}

interface Entry {
  mode: string;
  sha: string;
  path: Buffer;
}

type Tree = Map<string, Entry>;

const key = (path: Buffer) => path.toString('base64');

async function readTree(dir: string, commit: string): Promise<Tree> {
  const out = await gitOk(dir, ['ls-tree', '-r', '-z', '--full-tree', commit]);
  const tree: Tree = new Map();
  let start = 0;
  while (start < out.length) {
    const end = out.indexOf(0, start);
    const record = out.subarray(start, end);
    const tab = record.indexOf(9);
    const [mode, , sha] = record.subarray(0, tab).toString('latin1').split(' ');
    const path = Buffer.from(record.subarray(tab + 1));
    tree.set(key(path), { mode: mode!, sha: sha!, path });
    start = end + 1;
  }
  return tree;
}

async function commitTree(dir: string, tree: Tree, parent: string, message: string): Promise<string> {
  const input = Buffer.concat(
    [...tree.values()].flatMap((e) => [Buffer.from(`${e.mode} ${e.sha}\t`), e.path, Buffer.from([0])]),
  );
  await gitOk(dir, ['read-tree', '--empty']);
  await gitOk(dir, ['update-index', '-z', '--index-info'], { input });
  const treeSha = (await gitOk(dir, ['write-tree'])).toString().trim();
  // update-index skips a path git refuses (`a/../b`, `.git/x`) with a warning and exits 0.
  const written = await readTree(dir, treeSha);
  const refused = [...tree.keys()].filter((k) => !written.has(k));
  if (refused.length > 0)
    throw new Error(
      `git refused the path(s) ${refused.map((k) => JSON.stringify(Buffer.from(k, 'base64').toString())).join(', ')} (${message})`,
    );
  return (await gitOk(dir, [...IDENTITY, 'commit-tree', treeSha, '-p', parent, '-m', message]))
    .toString()
    .trim();
}

const hashBlob = async (dir: string, bytes: Buffer | string) =>
  (await gitOk(dir, ['hash-object', '-w', '--stdin'], { input: bytes })).toString().trim();

/** Entries at `path` itself or below it (a folder). */
function entriesUnder(tree: Tree, path: Buffer): Entry[] {
  const prefix = Buffer.concat([path, Buffer.from('/')]);
  return [...tree.values()].filter(
    (e) => e.path.equals(path) || e.path.subarray(0, prefix.length).equals(prefix),
  );
}

function requireEntries(tree: Tree, path: Buffer, c: CorpusCase): Entry[] {
  const found = entriesUnder(tree, path);
  if (found.length === 0) throw new Error(`case ${c.name}: nothing at ${JSON.stringify(path.toString())}`);
  return found;
}

function moved(entry: Entry, from: Buffer, to: Buffer): Entry {
  return { ...entry, path: Buffer.concat([to, entry.path.subarray(from.length)]) };
}

/** A file of the case's folder, or of fixtures/attacks/shared/ when it starts with `@shared/`. */
function caseFile(c: CorpusCase, file: string): string {
  const shared = '@shared/';
  return file.startsWith(shared) ? join(CORPUS, 'shared', file.slice(shared.length)) : join(c.dir, file);
}

async function applyEdit(dir: string, tree: Tree, edit: Edit, c: CorpusCase): Promise<void> {
  const put = (path: Buffer, mode: string, sha: string) => tree.set(key(path), { mode, sha, path });
  if ('write' in edit) {
    const bytes =
      'text' in edit
        ? Buffer.from(edit.text, 'utf8')
        : 'file' in edit
          ? await readFile(caseFile(c, edit.file))
          : Buffer.from(edit.base64, 'base64');
    put(pathBytes(edit.write), edit.mode ?? '100644', await hashBlob(dir, bytes));
  } else if ('edit' in edit) {
    const path = pathBytes(edit.edit);
    const entry = tree.get(key(path));
    if (entry === undefined) throw new Error(`case ${c.name}: no file ${path.toString()} to edit`);
    const text = (await gitOk(dir, ['cat-file', 'blob', entry.sha])).toString('utf8');
    const at = text.indexOf(edit.old);
    if (at < 0 || text.indexOf(edit.old, at + 1) >= 0)
      throw new Error(
        `case ${c.name}: ${JSON.stringify(edit.old)} is not in ${path.toString()} exactly once`,
      );
    const next = text.slice(0, at) + edit.new + text.slice(at + edit.old.length);
    put(path, entry.mode, await hashBlob(dir, next));
  } else if ('delete' in edit) {
    for (const e of requireEntries(tree, pathBytes(edit.delete), c)) tree.delete(key(e.path));
  } else if ('rename' in edit || 'copy' in edit) {
    const from = pathBytes('rename' in edit ? edit.rename : edit.copy);
    const to = pathBytes(edit.to);
    for (const e of requireEntries(tree, from, c)) {
      if ('rename' in edit) tree.delete(key(e.path));
      const copy = moved(e, from, to);
      tree.set(key(copy.path), copy);
    }
  } else if ('symlink' in edit) {
    put(pathBytes(edit.symlink), '120000', await hashBlob(dir, edit.target));
  } else if ('gitlink' in edit) {
    put(pathBytes(edit.gitlink), '160000', edit.commit);
  } else {
    const path = pathBytes(edit.chmod);
    const entry = tree.get(key(path));
    if (entry === undefined) throw new Error(`case ${c.name}: no file ${path.toString()} to chmod`);
    put(path, edit.mode, entry.sha);
  }
}

/**
 * Builds the repository for `cases`; `oracleDir` is the pinned corpus oracle, copied to `.oracle/`
 * for the cases whose setup is `oracle-in-repo`.
 */
export async function buildCorpusRepo(cases: readonly CorpusCase[], oracleDir: string): Promise<CorpusRepo> {
  const dir = await mkdtemp(join(tmpdir(), 'og-corpus-'));
  try {
    await gitOk(dir, ['init', '--quiet', '--initial-branch=main']);
    await cp(join(SAMPLE, 'repo'), dir, { recursive: true });
    await cp(join(CORPUS, 'base'), dir, { recursive: true });
    const base = await commitAll(dir, 'calc: the evaluator, its tests and their sealed cases');

    const fixed = await readTree(dir, base);
    const fix = await readFile(join(SAMPLE, 'patches', 'honest', 'calc', 'parser.py'));
    const parser = Buffer.from('calc/parser.py');
    fixed.set(key(parser), { mode: '100644', sha: await hashBlob(dir, fix), path: parser });
    await gitOk(dir, [
      'update-ref',
      'refs/heads/upstream-fix',
      await commitTree(dir, fixed, base, 'calc: fix'),
    ]);

    const inRepoOracleDir = join(dir, '.oracle');
    await gitOk(dir, ['read-tree', base]);
    await cp(oracleDir, inRepoOracleDir, { recursive: true });
    const baseWithOracle = await commitAll(dir, 'oracle: the hidden tests, on the base branch');

    const heads = new Map<string, string>();
    for (const c of cases) {
      const start = c.setup === 'oracle-in-repo' ? baseWithOracle : base;
      const tree = await readTree(dir, start);
      for (const edit of c.edits) await applyEdit(dir, tree, edit, c);
      const head = await commitTree(dir, tree, start, `case: ${c.name}`);
      await gitOk(dir, ['update-ref', `refs/heads/case/${c.name}`, head]);
      heads.set(c.name, head);
    }
    await gitOk(dir, ['read-tree', baseWithOracle]);
    return {
      dir,
      base,
      baseWithOracle,
      inRepoOracleDir,
      heads,
      remove: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
