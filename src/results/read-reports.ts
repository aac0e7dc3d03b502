import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_JUNIT_LIMITS, parseJUnit, type JUnitCase, type JUnitLimits } from './junit-report.js';
import type { ReportRead } from './judge-run.js';
import { thrownText } from '../errors/thrown-text.js';

/**
 * Reads what the container wrote into the report mount. Everything there was writable by PR code,
 * and the host resolves paths on its own file system: a `junit.xml` that is a symbolic link to a
 * host file, a folder swapped for a link, a FIFO that would block the read, a file of gigabytes.
 * So: folders are checked with lstat, files opened with O_NOFOLLOW | O_NONBLOCK and fstat'ed as
 * regular files, sizes and counts capped. Called only after the container is gone.
 */

const MAX_REPORT_FILES = 64;

export class UnsafeReportError extends Error {}

/** Reads one regular file without following a link, or refuses. */
export async function readRegularFile(path: string, maxBytes: number): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnsafeReportError(`${path} is a symbolic link`);
    throw error;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UnsafeReportError(`${path} is not a regular file`);
    if (stat.size > maxBytes) throw new UnsafeReportError(`${path} is larger than ${maxBytes} bytes`);
    const buffer = Buffer.alloc(stat.size);
    let offset = 0;
    while (offset < buffer.length) {
      const { bytesRead } = await handle.read(buffer, offset, buffer.length - offset, offset);
      if (bytesRead === 0) break;
      offset += bytesRead;
    }
    return buffer.subarray(0, offset);
  } finally {
    await handle.close();
  }
}

/** The folder's JUnit reports (every `*.xml` regular file in it), parsed and merged. */
export async function readSuiteReports(
  dir: string,
  limits: JUnitLimits = DEFAULT_JUNIT_LIMITS,
): Promise<ReportRead> {
  let stat;
  try {
    stat = await lstat(dir);
  } catch {
    return { kind: 'missing', error: 'its report folder is gone' };
  }
  if (stat.isSymbolicLink() || !stat.isDirectory())
    return { kind: 'invalid', error: 'its report folder was replaced' };
  const names = (await readdir(dir)).filter((n) => n.endsWith('.xml')).sort();
  if (names.length === 0) return { kind: 'missing', error: 'no *.xml file in $ORACLE_REPORT_DIR' };
  if (names.length > MAX_REPORT_FILES)
    return { kind: 'invalid', error: `more than ${MAX_REPORT_FILES} report files` };
  const cases: JUnitCase[] = [];
  let budget = limits.maxBytes;
  for (const name of names) {
    let bytes: Buffer;
    try {
      bytes = await readRegularFile(join(dir, name), budget);
    } catch (error) {
      const why =
        error instanceof UnsafeReportError
          ? error.message.replace(dir, '$ORACLE_REPORT_DIR')
          : thrownText(error);
      return { kind: 'invalid', error: why };
    }
    budget -= bytes.length;
    if (bytes.length === 0) return { kind: 'missing', error: `${name} is empty` };
    const parsed = parseJUnit(bytes, { ...limits, maxCases: limits.maxCases - cases.length });
    if (!parsed.ok) return { kind: 'invalid', error: `${name}: ${parsed.error}` };
    for (const c of parsed.cases) cases.push(c);
  }
  return { kind: 'parsed', cases, files: names };
}
