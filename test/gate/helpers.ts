import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OracleRunRequest, OracleRunResult } from '../../src/container/run-oracle-container.js';
import type { TestOutcome } from '../../src/gate/report.js';
import { hashOracleDir } from '../../src/oracle-dir/hash.js';
import { SAMPLE } from '../container/sample-repo.js';

export { tempDirs } from '../container/temp-dirs.js';

export interface OracleCopy {
  dir: string;
  hash: string;
}

/**
 * fixtures/sample-python/<which> copied into `parent`/oracle with the image pinned, `edit` applied
 * (files to write, or remove with null; `oracle.json` merged when given as an object), and hashed.
 */
export async function sampleOracle(
  parent: string,
  image: string,
  options: {
    which?: string;
    config?: Record<string, unknown>;
    files?: Record<string, string | null>;
  } = {},
): Promise<OracleCopy> {
  const dir = join(parent, 'oracle');
  cpSync(join(SAMPLE, options.which ?? 'oracle'), dir, { recursive: true });
  const configPath = join(dir, 'oracle.json');
  const config = JSON.parse(readFileSync(configPath, 'utf8')) as Record<string, unknown>;
  writeFileSync(configPath, JSON.stringify({ ...config, image, ...options.config }, null, 2));
  for (const [name, text] of Object.entries(options.files ?? {})) {
    if (text === null) rmSync(join(dir, name), { force: true, recursive: true });
    else {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), text);
    }
  }
  return { dir, hash: await hashOracleDir(dir) };
}

export const LOCKED_IDS = readFileSync(join(SAMPLE, 'oracle', 'tests.lock'), 'utf8')
  .trim()
  .split('\n');

export const EXISTING_IDS = [
  'tests.test_calc::test_addition',
  'tests.test_calc::test_precedence',
  'tests.test_lexer::test_numbers',
];

/** A container run as the container layer would return it, every test passed unless told. */
export function fakeRun(
  request: OracleRunRequest,
  options: {
    outcomes?: TestOutcome[];
    containerReasons?: OracleRunResult['containerReasons'];
    testReasons?: OracleRunResult['testReasons'];
    testsHash?: string;
    quarantined?: boolean;
  } = {},
): OracleRunResult {
  const outcomes = options.outcomes ?? [
    ...EXISTING_IDS.map((id): TestOutcome => ({ id, suite: 'existing', status: 'passed' })),
    ...LOCKED_IDS.map((id): TestOutcome => ({ id, suite: 'hidden', status: 'passed' })),
  ];
  const containerReasons = options.containerReasons ?? [];
  const testReasons = options.testReasons ?? [];
  return {
    mode: request.mode,
    reasons: [...containerReasons, ...testReasons],
    containerReasons,
    testReasons,
    exitReason: 'ok',
    outcomes,
    testsHash: options.testsHash ?? 'f'.repeat(64),
    hiddenIds: [...new Set(outcomes.filter((o) => o.suite === 'hidden').map((o) => o.id))].sort(),
    quarantined: options.quarantined ?? false,
    notes: ['a note from the container layer'],
    imageRef: request.config.image,
    imageId: `sha256:${'e'.repeat(64)}`,
    containerExitCode: 0,
    timedOut: false,
    oomKilled: false,
    harnessStatus: [],
    stdout: '',
    stderr: '',
    dockerArgs: [],
    timings: [],
  };
}
