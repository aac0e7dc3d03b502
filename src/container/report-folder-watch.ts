import { lstatSync, opendirSync, statfsSync, type Dir } from 'node:fs';
import { DEFAULT_JUNIT_LIMITS } from '../results/junit-report.js';
import { CONTAINER_PATHS } from './harness-protocol.js';

/**
 * A watch on the report folder while the container runs. It is the one host folder the container
 * can write (everything else is a size-limited tmpfs), so PR code could fill the runner's disk
 * there, in bytes or in files, long before the host reads the reports after the run. Every
 * ~100 ms the host walks the folder (lstat only, links never followed, the walk stopping as soon
 * as a limit is passed) and the first walk past a limit stops the run.
 *
 * A file the suites delete but keep open takes disk space no walk can see, until the container
 * dies. So the watch also reads the free space of the file system the folder lives on, and stops
 * the run once more than half of what was free at its start is gone: a PR cannot fill the disk,
 * and a job that shares the disk would have to write as much as the disk had spare to set it off.
 *
 * Three parts: the limits and the decision from a walk's totals (pure), the walk and the free
 * space (the file system adapters), and the polling loop.
 */

export interface ReportFolderLimits {
  /** Bytes on disk of everything under the folder, files and folders alike. */
  maxBytes: number;
  /** Files, folders, links and other entries under the folder (the folder itself not counted). */
  maxEntries: number;
  /** How deep entries may lie: `status` is at depth 1, `hidden/junit.xml` at depth 2. */
  maxDepth: number;
  /** The share of the disk's free space at the start of the run that the run may use up. */
  maxDiskFreeLoss: number;
}

/**
 * The host reads at most DEFAULT_JUNIT_LIMITS.maxBytes of JUnit XML per suite and 64 KiB of
 * status file, so anything past both suites' budgets plus 1 MiB (the status file and the folders'
 * own blocks) can only be something no one will read. Entries and depth are far beyond what a
 * JUnit writer makes (a file or two per suite; the host reads at most 64 per suite) and low enough
 * that one walk at the limit stays cheap (bench/report-watch.mjs).
 */
export const REPORT_FOLDER_LIMITS: ReportFolderLimits = {
  maxBytes: 2 * DEFAULT_JUNIT_LIMITS.maxBytes + 1024 * 1024,
  maxEntries: 10_000,
  maxDepth: 32,
  maxDiskFreeLoss: 0.5,
};

export const REPORT_WATCH_INTERVAL_MS = 100;

export interface ReportFolderTotals {
  bytes: number;
  entries: number;
  /** The deepest entry seen. */
  depth: number;
  /**
   * Set when part of the folder could not be read (other than an entry vanishing mid-walk): what
   * the host cannot read it cannot measure. Only the error code and the depth: names are hostile.
   */
  blocked?: { code: string; depth: number };
  /** Bytes free to unprivileged users on the folder's file system, at the watch's start and now. */
  disk?: { freeAtStart: number; freeNow: number };
}

export interface ReportFolderBreach {
  /** One line for the FailReason, naming the limit and what to do. */
  message: string;
  totals: ReportFolderTotals;
}

const WHERE = `the report folder (${CONTAINER_PATHS.reports})`;
const ADVICE =
  '$ORACLE_REPORT_DIR is for JUnit reports; write other artefacts under /tmp, a size-limited tmpfs';

/** "64 MiB", "1.5 GiB", "900 bytes". */
export function formatBytes(bytes: number): string {
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  if (bytes < 1024) return `${bytes} bytes`;
  let value = bytes;
  let unit = 'bytes';
  for (const next of units) {
    if (value < 1024) break;
    value /= 1024;
    unit = next;
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1).replace(/\.0$/, '');
  return `${text} ${unit}`;
}

function diskOverLimit(totals: ReportFolderTotals, limits: ReportFolderLimits): boolean {
  if (totals.disk === undefined) return false;
  const { freeAtStart, freeNow } = totals.disk;
  return freeAtStart - freeNow > freeAtStart * limits.maxDiskFreeLoss;
}

/** True once a walk has seen enough to decide: it may stop there. */
export function pastLimits(totals: ReportFolderTotals, limits: ReportFolderLimits): boolean {
  return (
    totals.blocked !== undefined ||
    diskOverLimit(totals, limits) ||
    totals.bytes > limits.maxBytes ||
    totals.entries > limits.maxEntries ||
    totals.depth > limits.maxDepth
  );
}

/** Why the run must stop, from one walk's totals; undefined while the folder is within its limits. */
export function reportFolderBreach(
  totals: ReportFolderTotals,
  limits: ReportFolderLimits = REPORT_FOLDER_LIMITS,
): ReportFolderBreach | undefined {
  const stopped = 'the run was stopped';
  let why: string | undefined;
  if (totals.bytes > limits.maxBytes) {
    why = `the suites wrote more than ${formatBytes(limits.maxBytes)} into ${WHERE}; ${stopped}. ${ADVICE}`;
  } else if (totals.entries > limits.maxEntries) {
    why = `the suites created more than ${limits.maxEntries} files and folders in ${WHERE}; ${stopped}. ${ADVICE}`;
  } else if (totals.depth > limits.maxDepth) {
    why = `the suites nested folders more than ${limits.maxDepth} deep in ${WHERE}; ${stopped}. ${ADVICE}`;
  } else if (totals.blocked !== undefined) {
    const { code, depth } = totals.blocked;
    why = `the host could not check the size of ${WHERE}: an entry ${depth} level(s) down could not be read (${code}), so it could hide any amount of data; ${stopped}. The suites must leave the folders they make there readable`;
  } else if (totals.disk !== undefined && diskOverLimit(totals, limits)) {
    const { freeAtStart, freeNow } = totals.disk;
    why = `free space on the runner's disk that holds ${WHERE} fell from ${formatBytes(freeAtStart)} to ${formatBytes(freeNow)} while the suites ran, though the folder holds only ${formatBytes(totals.bytes)}: the suites may be writing to files they deleted and keep open; ${stopped} before the disk fills up`;
  }
  return why === undefined ? undefined : { message: why, totals };
}

const VANISHED = new Set(['ENOENT', 'ENOTDIR']);
const SLASH = Buffer.from('/');

function errorCode(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,32}$/.test(code) ? code : 'an unexpected error';
}

/**
 * Walks the folder and adds up what is under it, stopping as soon as `pastLimits` says so. Never
 * follows a link (lstat; folders are opened only once lstat says they are folders), never throws:
 * an entry that vanishes mid-walk is skipped (the suites are still running), any other error ends
 * the walk as `blocked`. Names are kept as bytes, so a name that is not UTF-8 is still measured.
 * Iterative, so nesting depth costs no stack. Synchronous on purpose: a walk is bounded by the
 * limits (about 10,000 lstat calls at most, tens of milliseconds), and the promise API costs ten
 * times the CPU per entry (bench/report-watch.mjs), which the watch pays every 100 ms.
 */
export function walkReportFolder(
  dir: string,
  limits: ReportFolderLimits = REPORT_FOLDER_LIMITS,
): ReportFolderTotals {
  const totals: ReportFolderTotals = { bytes: 0, entries: 0, depth: 0 };
  const pending: { path: Buffer; depth: number }[] = [{ path: Buffer.from(dir), depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { path, depth } = next;
    let folder: Dir;
    try {
      // Node honours 'buffer' here (names as bytes); @types/node types only text encodings.
      folder = opendirSync(path, { encoding: 'buffer' as BufferEncoding, bufferSize: 1024 });
    } catch (error) {
      const code = errorCode(error);
      if (depth > 0 && VANISHED.has(code)) continue;
      totals.blocked = { code, depth };
      return totals;
    }
    try {
      for (let entry = folder.readSync(); entry !== null; entry = folder.readSync()) {
        const child = Buffer.concat([path, SLASH, entry.name as unknown as Buffer]);
        let stat;
        try {
          stat = lstatSync(child);
        } catch (error) {
          const code = errorCode(error);
          if (VANISHED.has(code)) continue;
          totals.blocked = { code, depth: depth + 1 };
          return totals;
        }
        totals.entries += 1;
        // Disk use, or the apparent size if larger: a sparse file of 100 GiB is not a report either.
        totals.bytes += Math.max(stat.size, stat.blocks * 512);
        totals.depth = Math.max(totals.depth, depth + 1);
        if (pastLimits(totals, limits)) return totals;
        if (stat.isDirectory()) pending.push({ path: child, depth: depth + 1 });
      }
    } catch (error) {
      // Reading the folder's entries failed part way: it was removed under us, or worse.
      const code = errorCode(error);
      if (depth > 0 && VANISHED.has(code)) continue;
      totals.blocked = { code, depth };
      return totals;
    } finally {
      folder.closeSync();
    }
  }
  return totals;
}

/** Bytes free to unprivileged users on the file system holding `dir`; undefined if unknown. */
export function diskFree(dir: string): number | undefined {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * (fs.frsize || fs.bsize);
  } catch {
    return undefined;
  }
}

export interface ReportFolderWatchOptions {
  limits?: ReportFolderLimits;
  intervalMs?: number;
  /** Called once, from the first walk past a limit; the watch then ends. */
  onBreach: (breach: ReportFolderBreach) => void;
  walk?: (dir: string, limits: ReportFolderLimits) => ReportFolderTotals | Promise<ReportFolderTotals>;
  freeSpace?: (dir: string) => number | undefined;
}

export interface ReportFolderWatch {
  /** Ends the watch once the walk under way (if any) is done; resolves with the breach, if one. */
  stop(): Promise<ReportFolderBreach | undefined>;
  /** How many walks ran, and their total time: what the watch cost. */
  readonly walks: number;
  readonly walkMs: number;
}

/**
 * Walks `dir` now and then every `intervalMs` after the previous walk ended (so a slow walk never
 * piles up), until a walk passes a limit or `stop()` is called.
 */
export function watchReportFolder(dir: string, options: ReportFolderWatchOptions): ReportFolderWatch {
  const limits = options.limits ?? REPORT_FOLDER_LIMITS;
  const intervalMs = options.intervalMs ?? REPORT_WATCH_INTERVAL_MS;
  const walk = options.walk ?? walkReportFolder;
  const freeSpace = options.freeSpace ?? diskFree;
  // Read now, before the container starts writing.
  const freeAtStart = freeSpace(dir);
  let stopped = false;
  let breach: ReportFolderBreach | undefined;
  let walks = 0;
  let walkMs = 0;
  let wake: (() => void) | undefined;
  let timer: NodeJS.Timeout | undefined;

  const pause = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, intervalMs);
    });

  const loop = (async () => {
    while (!stopped) {
      const started = performance.now();
      let totals: ReportFolderTotals;
      try {
        totals = await walk(dir, limits);
      } catch (error) {
        totals = { bytes: 0, entries: 0, depth: 0, blocked: { code: errorCode(error), depth: 0 } };
      }
      const freeNow = freeSpace(dir);
      if (freeAtStart !== undefined && freeNow !== undefined)
        totals = { ...totals, disk: { freeAtStart, freeNow } };
      walks += 1;
      walkMs += performance.now() - started;
      breach = reportFolderBreach(totals, limits);
      if (breach !== undefined) {
        options.onBreach(breach);
        return;
      }
      if (!stopped) await pause();
    }
  })();

  return {
    async stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      wake?.();
      await loop;
      return breach;
    },
    get walks() {
      return walks;
    },
    get walkMs() {
      return walkMs;
    },
  };
}
