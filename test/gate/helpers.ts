import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OracleRunRequest, OracleRunResult } from '../../src/container/run-oracle-container.js';
import type { TestOutcome } from '../../src/gate/report.js';
import { hashOracleDir } from '../../src/oracle-dir/hash.js';
import { VerdictSchema, type Verdict } from '../../src/verdict/schema.js';
import { SAMPLE, type SampleRepo } from '../container/sample-repo.js';
import { runCli } from '../helpers/cli.js';

export { tempDirs } from '../container/temp-dirs.js';

export interface OracleCopy {
  dir: string;
  hash: string;
}

/**
 * fixtures/sample-python/<which> (or the folder `from`, with the folder `overlay` copied over it)
 * copied into `parent`/oracle with the image pinned, `edit` applied (files to write, or remove with
 * null; `oracle.json` merged when given as an object), and hashed.
 */
export async function sampleOracle(
  parent: string,
  image: string,
  options: {
    which?: string;
    from?: string;
    overlay?: string;
    config?: Record<string, unknown>;
    files?: Record<string, string | null>;
  } = {},
): Promise<OracleCopy> {
  const dir = join(parent, 'oracle');
  cpSync(options.from ?? join(SAMPLE, options.which ?? 'oracle'), dir, { recursive: true });
  if (options.overlay !== undefined) cpSync(options.overlay, dir, { recursive: true });
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

/** The CLI's stdout for `run`: the verdict line and, when tests ran, the tests_hash line. */
export interface GateCliOutput {
  status: number | null;
  stdout: string;
  stderr: string;
  verdict: Verdict | undefined;
  testsHash: string | undefined;
}

/** `node dist/cli.js run ARGS` (rebuild dist/ with `npm run bundle` first). */
export function runGateCli(args: string[], env?: NodeJS.ProcessEnv): GateCliOutput {
  const run = runCli(['run', ...args], env ? { env } : {});
  const [verdictLine = '', hashLine] = run.stdout.split('\n');
  const parsed = VerdictSchema.safeParse(verdictLine ? JSON.parse(verdictLine) : undefined);
  return {
    ...run,
    verdict: parsed.success ? parsed.data : undefined,
    testsHash: /^tests_hash=([0-9a-f]{64})$/.exec(hashLine ?? '')?.[1],
  };
}

/** The arguments that grade `patch` of the sample repository against an oracle copy. */
export function gradeArgs(repo: SampleRepo, oracle: OracleCopy, patch: string, log: string): string[] {
  return [
    '--repo',
    repo.dir,
    '--base',
    repo.base,
    '--head',
    repo.heads[patch]!,
    '--oracle',
    oracle.dir,
    '--oracle-hash',
    oracle.hash,
    '--log',
    log,
  ];
}
