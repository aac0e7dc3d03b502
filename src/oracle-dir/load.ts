import { constants, promises as fsp } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Checked } from '../json/parse-checked.js';
import { parseOracleConfig, type OracleConfig } from './config.js';
import { parseFlakeLedger, type FlakeLedger } from './flake-ledger.js';
import { parseGlobList, type GlobListEntry } from './glob-list.js';
import { parseFixtureManifest, type FixtureManifest } from './sealed-fixtures.js';
import { parseTestsLock, type TestsLock } from './tests-lock.js';

/** The oracle directory's files, read and checked. Absent optional files are null (or empty). */
export interface OracleDir {
  /** Absolute path of the directory. */
  dir: string;
  config: OracleConfig;
  /** `path_deny.txt`, added to the gate's default deny globs; [] when absent. */
  denyGlobs: GlobListEntry[];
  /** `path_allow.txt`; null when absent, which allows every path. */
  allowGlobs: GlobListEntry[] | null;
  /** Absolute path of `tests/`, the hidden tests; null when absent. */
  testsDir: string | null;
  /** `tests.lock`; null when absent (the tests-changed check is then skipped, and reported so). */
  testsLock: TestsLock | null;
  /** `fixtures/manifest.json`; null when absent (no sealed fixtures). */
  fixtures: FixtureManifest | null;
  /** `flake_ledger.json`; null when absent (nothing is frozen). */
  flakeLedger: FlakeLedger | null;
}

export const ORACLE_FILES = {
  config: 'oracle.json',
  deny: 'path_deny.txt',
  allow: 'path_allow.txt',
  tests: 'tests',
  testsLock: 'tests.lock',
  fixtures: 'fixtures/manifest.json',
  flakeLedger: 'flake_ledger.json',
} as const;

const MAX_FILE_BYTES = 64 * 1024 * 1024;

class LoadError extends Error {}

/** A regular file's bytes, or null if nothing is there; a symlink or anything else is an error. */
async function readOptional(dir: string, name: string): Promise<Buffer | null> {
  let handle: fsp.FileHandle;
  try {
    handle = await fsp.open(
      join(dir, name),
      constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
    );
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    throw new LoadError(`${name}: ${code === 'ELOOP' ? 'a symlink, refused' : `cannot open (${code ?? e})`}`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new LoadError(`${name}: not a regular file`);
    if (stat.size > MAX_FILE_BYTES) throw new LoadError(`${name}: larger than ${MAX_FILE_BYTES} bytes`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

function checkedOrThrow<T>(name: string, result: Checked<T>): T {
  if (!result.ok)
    throw new LoadError(result.error.startsWith(name) ? result.error : `${name}: ${result.error}`);
  return result.value;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function jsonText(name: string, bytes: Buffer): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new LoadError(`${name}: not valid UTF-8`);
  }
}

/**
 * Reads and validates everything the oracle directory holds. `oracle.json` is required; every
 * other file is optional. The error is one line naming the file, and the field or line.
 */
export async function loadOracleDir(dirArg: string): Promise<Checked<OracleDir>> {
  const dir = resolve(dirArg);
  try {
    const stat = await fsp.lstat(dir).catch(() => null);
    if (!stat?.isDirectory()) throw new LoadError(`${dirArg}: not a directory`);

    const configBytes = await readOptional(dir, ORACLE_FILES.config);
    if (configBytes === null) throw new LoadError(`${ORACLE_FILES.config}: missing (it is required)`);
    const config = checkedOrThrow(
      ORACLE_FILES.config,
      parseOracleConfig(jsonText(ORACLE_FILES.config, configBytes)),
    );

    const globList = async (name: string) => {
      const bytes = await readOptional(dir, name);
      return bytes === null ? null : checkedOrThrow(name, parseGlobList(bytes, name));
    };
    const denyGlobs = (await globList(ORACLE_FILES.deny)) ?? [];
    const allowGlobs = await globList(ORACLE_FILES.allow);

    const testsPath = join(dir, ORACLE_FILES.tests);
    const testsStat = await fsp.lstat(testsPath).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw new LoadError(`${ORACLE_FILES.tests}/: cannot read (${e.code ?? e})`);
    });
    if (testsStat && !testsStat.isDirectory()) throw new LoadError(`${ORACLE_FILES.tests}: not a directory`);

    const lockBytes = await readOptional(dir, ORACLE_FILES.testsLock);
    const testsLock =
      lockBytes === null ? null : checkedOrThrow(ORACLE_FILES.testsLock, parseTestsLock(lockBytes));

    const fixturesDir = await fsp.lstat(join(dir, 'fixtures')).catch(() => null);
    if (fixturesDir && !fixturesDir.isDirectory()) throw new LoadError('fixtures: not a directory');
    const manifestBytes = fixturesDir ? await readOptional(dir, ORACLE_FILES.fixtures) : null;
    const fixtures =
      manifestBytes === null
        ? null
        : checkedOrThrow(
            ORACLE_FILES.fixtures,
            parseFixtureManifest(jsonText(ORACLE_FILES.fixtures, manifestBytes)),
          );

    const ledgerBytes = await readOptional(dir, ORACLE_FILES.flakeLedger);
    const flakeLedger =
      ledgerBytes === null
        ? null
        : checkedOrThrow(
            ORACLE_FILES.flakeLedger,
            parseFlakeLedger(jsonText(ORACLE_FILES.flakeLedger, ledgerBytes)),
          );

    return {
      ok: true,
      value: {
        dir,
        config,
        denyGlobs,
        allowGlobs,
        testsDir: testsStat ? testsPath : null,
        testsLock,
        fixtures,
        flakeLedger,
      },
    };
  } catch (e) {
    if (e instanceof LoadError) return { ok: false, error: e.message };
    throw e;
  }
}
