import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Test repositories built with real git through argument arrays, never a shell. */

export type Mode = '100644' | '100755' | '120000' | '160000';

export interface Entry {
  path: Buffer;
  mode: Mode;
  /** File bytes, symlink target, or (gitlink) the 40-hex commit id in ASCII. */
  content: Buffer;
}

export interface CommitSpec {
  ref: string;
  /** A ref written earlier (in this import or before), or none for a root commit. */
  parent?: string;
  entries: readonly Entry[];
}

const ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 't',
  GIT_AUTHOR_EMAIL: 't@example.com',
  GIT_COMMITTER_NAME: 't',
  GIT_COMMITTER_EMAIL: 't@example.com',
  GIT_AUTHOR_DATE: '1700000000 +0000',
  GIT_COMMITTER_DATE: '1700000000 +0000',
};

export function git(
  dir: string,
  args: readonly string[],
  options: { input?: Buffer | string; env?: NodeJS.ProcessEnv } = {},
): Buffer {
  return execFileSync('git', ['-C', dir, ...args], {
    input: options.input ?? '',
    env: { ...ENV, ...options.env },
    maxBuffer: 1024 * 1024 * 1024,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** A scratch area removed by `cleanup()`; tests call it in afterAll. */
export function scratch(prefix: string): { dir: (name: string) => string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), `og-${prefix}-`));
  let n = 0;
  return {
    dir: (name) => {
      const d = join(root, `${name}-${n++}`);
      mkdirSync(d);
      return d;
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function initRepo(dir: string, bare = true): string {
  git(dir, ['init', '-q', ...(bare ? ['--bare'] : []), '-b', 'main']);
  return dir;
}

/** fast-import quoting: every byte outside plain printable ASCII as an octal escape. */
function quotePath(path: Buffer): string {
  let out = '"';
  for (const b of path) {
    if (b === 0x22 || b === 0x5c) out += '\\' + String.fromCharCode(b);
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += '\\' + b.toString(8).padStart(3, '0');
  }
  return out + '"';
}

/** Writes the commits in one `git fast-import` (blobs inline), each a full tree. */
export function importCommits(dir: string, commits: readonly CommitSpec[]): void {
  const parts: Buffer[] = [];
  const text = (s: string) => parts.push(Buffer.from(s, 'latin1'));
  const marks = new Map<string, number>();
  for (const commit of commits) {
    marks.set(commit.ref, marks.size + 1);
    text(`commit ${commit.ref}\nmark :${marks.size}\ncommitter t <t@example.com> 1700000000 +0000\ndata 0\n`);
    if (commit.parent)
      text(`from ${marks.has(commit.parent) ? `:${marks.get(commit.parent)}` : `${commit.parent}^0`}\n`);
    text('deleteall\n');
    for (const entry of commit.entries) {
      if (entry.mode === '160000') {
        text(`M 160000 ${entry.content.toString('latin1')} ${quotePath(entry.path)}\n`);
      } else {
        text(`M ${entry.mode} inline ${quotePath(entry.path)}\ndata ${entry.content.length}\n`);
        parts.push(entry.content);
        text('\n');
      }
    }
    text('\n');
  }
  git(dir, ['fast-import', '--quiet', '--force'], { input: Buffer.concat(parts) });
}

export function treeOf(dir: string, rev: string): string {
  return git(dir, ['rev-parse', `${rev}^{tree}`])
    .toString()
    .trim();
}

export type ApplyResult = { ok: true; tree: string } | { ok: false; error: string };

/**
 * Applies patches one after another to the tree of `rev` in a scratch index (`git apply --cached`,
 * each after `--check`), and returns the tree it gives. Works in a bare repository and with any
 * file name, symlink or gitlink; an empty patch changes nothing.
 */
export function applyToTree(dir: string, rev: string, patches: readonly Buffer[]): ApplyResult {
  const index = join(dir, `scratch-index-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    git(dir, ['read-tree', rev], { env });
    for (const patch of patches) {
      if (patch.length === 0) continue;
      const file = `${index}.patch`;
      writeFileSync(file, patch);
      git(dir, ['apply', '--cached', '--check', file], { env });
      git(dir, ['apply', '--cached', file], { env });
    }
    return { ok: true, tree: git(dir, ['write-tree'], { env }).toString().trim() };
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString() ?? String(e);
    return { ok: false, error: stderr };
  } finally {
    rmSync(index, { force: true });
    rmSync(`${index}.patch`, { force: true });
  }
}

/** The paths `git diff --name-status -z --no-renames` reports, as hex of their bytes. */
export function nameStatusPaths(dir: string, from: string, to: string): Set<string> {
  const out = git(dir, ['diff', '--name-status', '-z', '--no-renames', from, to]);
  const fields: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < out.length; i++) {
    if (out[i] === 0) {
      fields.push(out.subarray(start, i));
      start = i + 1;
    }
  }
  const paths = new Set<string>();
  for (let i = 0; i < fields.length;) {
    const status = fields[i]!.toString('latin1');
    const count = status.startsWith('R') || status.startsWith('C') ? 2 : 1;
    for (let k = 1; k <= count; k++) paths.add(fields[i + k]!.toString('hex'));
    i += 1 + count;
  }
  return paths;
}

/**
 * As the container's harness does it: a working tree of `rev` (from `git archive`), then plain
 * `git apply --check` and `git apply` of each patch in it, outside any repository; returns the
 * tree the result makes (`git add -A` into a scratch index). Gitlinks cannot be in such a tree.
 */
export function applyInWorktree(dir: string, rev: string, patches: readonly Buffer[]): ApplyResult {
  const work = mkdtempSync(join(tmpdir(), 'og-worktree-'));
  const index = join(work, '..', `${work.split('/').pop()}.index`);
  try {
    const tree = join(work, 'tree');
    mkdirSync(tree);
    const archive = git(dir, ['archive', '--format=tar', rev]);
    execFileSync('tar', ['-x', '-C', tree], { input: archive, maxBuffer: 1024 ** 3 });
    for (const [i, patch] of patches.entries()) {
      if (patch.length === 0) continue;
      const file = join(work, `${i}.patch`);
      writeFileSync(file, patch);
      execFileSync('git', ['apply', '--check', file], {
        cwd: tree,
        env: ENV,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      execFileSync('git', ['apply', file], { cwd: tree, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    }
    const env = { GIT_INDEX_FILE: index };
    git(dir, ['--work-tree', tree, 'add', '-A', '--', '.'], { env });
    return { ok: true, tree: git(dir, ['write-tree'], { env }).toString().trim() };
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString() ?? String(e);
    return { ok: false, error: stderr };
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(index, { force: true });
  }
}
