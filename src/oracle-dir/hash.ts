import { createHash } from 'node:crypto';
import { constants, promises as fsp, type Dirent } from 'node:fs';
import { displayPath } from './display-path.js';

/**
 * The oracle hash: Go's `dirhash.Hash1` over every regular file under a directory, i.e.
 * `h1:` + base64(sha256 of the lines `"<sha256 hex>  <path>\n"`, sorted by path bytes), with paths
 * relative to the directory and joined by `/`. Anything that is not a regular file or a directory
 * (a symlink, device, socket or FIFO) is refused, never followed: its content would not be what
 * was reviewed. Like Go, a name holding a newline is refused, since it would forge a line.
 * One entry is skipped: a top-level `.git`. An oracle kept as its own repository is checked out
 * with one, its contents differ between clones, and the gate reads nothing from it; Go's module
 * hashes leave version-control directories out the same way.
 */
export class OracleHashError extends Error {}

export interface HashedFile {
  /** Path relative to the hashed directory, `/`-separated, as raw bytes. */
  path: Buffer;
  /** sha256 of the content, lowercase hex. */
  sha256: string;
}

/** The pure half: Hash1 of a list of already-hashed files (sorted here by path bytes). */
export function hash1(files: readonly HashedFile[]): string {
  const sorted = [...files].sort((a, b) => Buffer.compare(a.path, b.path));
  const summary = createHash('sha256');
  for (let i = 0; i < sorted.length; i++) {
    const file = sorted[i]!;
    if (file.path.includes(0x0a))
      throw new OracleHashError(`file name holds a newline: ${displayPath(file.path)}`);
    if (i > 0 && Buffer.compare(sorted[i - 1]!.path, file.path) === 0)
      throw new OracleHashError(`file listed twice: ${displayPath(file.path)}`);
    summary.update(`${file.sha256}  `);
    summary.update(file.path);
    summary.update('\n');
  }
  return 'h1:' + summary.digest('base64');
}

const READ_BUFFER_BYTES = 1024 * 1024;
/** Reads in flight: enough to keep the thread pool busy while the main thread hashes. */
const CONCURRENCY = 8;
// O_NONBLOCK: a FIFO swapped in after the listing must not hang open(); fstat then refuses it.
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const SLASH = Buffer.from('/');
const DOT_GIT = Buffer.from('.git');

type Task = { kind: 'dir'; rel: Buffer | null } | { kind: 'file'; rel: Buffer };

/** Hashes a directory as `hash1` does, reading files concurrently; refuses special files anywhere. */
export async function hashOracleDir(dir: string): Promise<string> {
  const root = Buffer.from(dir);
  const rootStat = await fsp.lstat(root).catch((e: NodeJS.ErrnoException) => {
    throw new OracleHashError(`cannot read ${dir}: ${e.code ?? e.message}`);
  });
  if (rootStat.isSymbolicLink()) throw new OracleHashError(`${dir} is a symlink; give the directory itself`);
  if (!rootStat.isDirectory()) throw new OracleHashError(`${dir} is not a directory`);
  const absolute = (rel: Buffer | null) => (rel ? Buffer.concat([root, SLASH, rel]) : root);
  const label = (rel: Buffer | null) => (rel ? displayPath(rel) : '.');

  const files: HashedFile[] = [];
  const buffers = Array.from({ length: CONCURRENCY }, () => Buffer.allocUnsafe(READ_BUFFER_BYTES));

  const listDir = async (rel: Buffer | null): Promise<Task[]> => {
    let entries: Dirent<Buffer>[];
    try {
      entries = await fsp.readdir(absolute(rel), { withFileTypes: true, encoding: 'buffer' });
    } catch (e) {
      throw new OracleHashError(`cannot list ${label(rel)}: ${(e as NodeJS.ErrnoException).code ?? e}`);
    }
    const tasks: Task[] = [];
    for (const entry of entries) {
      if (rel === null && entry.name.equals(DOT_GIT)) continue;
      const child = rel ? Buffer.concat([rel, SLASH, entry.name]) : Buffer.from(entry.name);
      if (entry.name.includes(0x0a))
        throw new OracleHashError(`${displayPath(child)}: file names holding a newline are refused`);
      // Node resolves an unknown d_type with lstat, so these never follow a link.
      if (entry.isDirectory()) tasks.push({ kind: 'dir', rel: child });
      else if (entry.isFile()) tasks.push({ kind: 'file', rel: child });
      else
        throw new OracleHashError(`${displayPath(child)}: ${describeSpecial(entry)} refused, never followed`);
    }
    return tasks;
  };

  const hashFile = async (rel: Buffer, buffer: Buffer): Promise<void> => {
    let handle: fsp.FileHandle;
    try {
      handle = await fsp.open(absolute(rel), OPEN_FLAGS);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ELOOP: the entry became a symlink after it was listed.
      const why = code === 'ELOOP' ? 'a symlink refused, never followed' : `cannot open (${code ?? e})`;
      throw new OracleHashError(`${displayPath(rel)}: ${why}`);
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) throw new OracleHashError(`${displayPath(rel)}: not a regular file, refused`);
      const digest = createHash('sha256');
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        digest.update(buffer.subarray(0, bytesRead));
      }
      files.push({ path: rel, sha256: digest.digest('hex') });
    } catch (e) {
      if (e instanceof OracleHashError) throw e;
      throw new OracleHashError(
        `${displayPath(rel)}: cannot read (${(e as NodeJS.ErrnoException).code ?? e})`,
      );
    } finally {
      await handle.close();
    }
  };

  const directoryCheck = async (rel: Buffer): Promise<void> => {
    // The listing said directory; make sure it still is before reading it (readdir follows links).
    const stat = await fsp.lstat(absolute(rel)).catch(() => null);
    if (!stat?.isDirectory())
      throw new OracleHashError(`${displayPath(rel)}: changed while hashing, refused`);
  };

  await runPool<Task>([{ kind: 'dir', rel: null }], CONCURRENCY, async (task, slot, push) => {
    if (task.kind === 'file') return hashFile(task.rel, buffers[slot]!);
    if (task.rel) await directoryCheck(task.rel);
    for (const next of await listDir(task.rel)) push(next);
  });
  return hash1(files);
}

function describeSpecial(entry: Dirent<Buffer>): string {
  if (entry.isSymbolicLink()) return 'a symlink';
  if (entry.isFIFO()) return 'a FIFO';
  if (entry.isSocket()) return 'a socket';
  if (entry.isBlockDevice() || entry.isCharacterDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * Runs tasks (which may push more) with at most `concurrency` at once; `slot` is a stable index
 * below `concurrency` a task may use for a private buffer. The first error rejects, and nothing
 * new starts after it.
 */
function runPool<T>(
  initial: readonly T[],
  concurrency: number,
  run: (task: T, slot: number, push: (task: T) => void) => Promise<void>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const queue = [...initial];
    const freeSlots = Array.from({ length: concurrency }, (_, i) => concurrency - 1 - i);
    let running = 0;
    let failed = false;
    const pump = () => {
      while (!failed && queue.length > 0 && freeSlots.length > 0) {
        const task = queue.pop()!;
        const slot = freeSlots.pop()!;
        running++;
        run(task, slot, (t) => queue.push(t)).then(
          () => {
            running--;
            freeSlots.push(slot);
            if (running === 0 && queue.length === 0 && !failed) resolve();
            else pump();
          },
          (error: unknown) => {
            running--;
            freeSlots.push(slot);
            if (!failed) {
              failed = true;
              reject(error);
            }
          },
        );
      }
    };
    pump();
  });
}
