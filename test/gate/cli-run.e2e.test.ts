import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSampleRepo, type SampleRepo } from '../container/sample-repo.js';
import { gradeArgs, LOCKED_IDS, runGateCli, sampleOracle, tempDirs, type OracleCopy } from './helpers.js';

/**
 * `oracle-gate run` end to end: the bundled CLI (rebuild dist/ with `npm run bundle` first),
 * the real Docker engine and the pinned test image, on the sample project's patches.
 */
const tempDir = tempDirs('og-cli-run-');
let repo: SampleRepo;
let oracle: OracleCopy;
beforeAll(async () => {
  repo = await buildSampleRepo();
  oracle = await sampleOracle(tempDir(), inject('testImage'));
});
afterAll(() => repo.remove());

/** The existing suite's IDs in the sample project, as pytest's JUnit report names them. */
const EXISTING_IDS = [
  'tests.test_calc::test_addition',
  'tests.test_calc::test_precedence',
  'tests.test_calc::test_parentheses',
  'tests.test_calc::test_unary_minus',
  'tests.test_calc::test_single_subtraction',
  'tests.test_calc::test_incomplete_expression_is_an_error',
  'tests.test_lexer::test_numbers_and_operators',
  'tests.test_lexer::test_whitespace_is_skipped',
  'tests.test_lexer::test_unknown_character_is_an_error',
];

/** `LC_ALL=C sort -u ids.txt | sha256sum`, by coreutils rather than by our code. */
function coreutilsTestsHash(ids: string[]): string {
  const file = join(tempDir(), 'ids.txt');
  writeFileSync(file, ids.map((id) => `${id}\n`).join(''));
  const sorted = spawnSync('sort', ['-u', file], { env: { PATH: process.env.PATH, LC_ALL: 'C' } });
  const summed = spawnSync('sha256sum', [], { input: sorted.stdout, encoding: 'utf8' });
  return summed.stdout.split(' ')[0]!;
}

const firstReason = (run: ReturnType<typeof runGateCli>) =>
  run.verdict?.kind === 'fail' ? run.verdict.reasons[0] : undefined;

describe('oracle-gate run against the real engine', () => {
  it('passes the honest patch: exit 0, every stage chained, and the tests_hash of the IDs that ran', () => {
    const log = join(tempDir(), 'oracle.log');
    const run = runGateCli(gradeArgs(repo, oracle, 'honest', log));
    expect(run.stderr).not.toMatch(/: fail in/);
    expect(run.status).toBe(0);
    const [verdictLine, hashLine, ...rest] = run.stdout.split('\n');
    expect(verdictLine).toBe(
      '{"kind":"pass","chain":["oracle-gate","config","oracle-hash","path-policy","sealed-fixtures","container","tests"]}',
    );
    expect(hashLine).toBe(`tests_hash=${coreutilsTestsHash([...EXISTING_IDS, ...LOCKED_IDS])}`);
    expect(rest).toEqual(['']);
    // Progress on stderr, stage by stage, each with its timing.
    for (const stage of ['config', 'oracle-hash', 'path-policy', 'sealed-fixtures', 'container', 'tests'])
      expect(run.stderr).toMatch(new RegExp(`^stage ${stage}: pass in \\d+ ms`, 'm'));
    expect(run.stderr).toContain(`oracle log: ${log}`);
    const text = readFileSync(log, 'utf8');
    expect(text).toContain(`tests_hash: ${run.testsHash}`);
    expect(text).toContain(`image: ${inject('testImage')}`);
    expect(text).toMatch(/^diff sha256: [0-9a-f]{64}$/m);
  });

  it('fails a patch that fails a hidden test', () => {
    const run = runGateCli(gradeArgs(repo, oracle, 'wrong-fix', join(tempDir(), 'oracle.log')));
    expect(run.status).toBe(1);
    expect(firstReason(run)).toMatchObject({
      subkind: 'hidden-tests-failed',
      message: expect.stringContaining('oracle_tests.test_associativity::test_division_is_left_associative'),
    });
    expect(run.testsHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('fails tests-changed when tests.lock misses a hidden test that ran and lists one that did not', async () => {
    const lock = [...LOCKED_IDS.slice(1), 'oracle_tests.test_associativity::test_removed_long_ago'];
    const changed = await sampleOracle(tempDir(), inject('testImage'), {
      files: { 'tests.lock': lock.map((id) => `${id}\n`).join('') },
    });
    const run = runGateCli(gradeArgs(repo, changed, 'honest', join(tempDir(), 'oracle.log')));
    expect(run.status).toBe(1);
    expect(run.verdict).toEqual({
      kind: 'fail',
      reasons: [
        {
          kind: 'custom',
          subkind: 'tests-changed',
          message:
            '1 locked hidden test(s) did not run: "oracle_tests.test_associativity::test_removed_long_ago"',
        },
        {
          kind: 'custom',
          subkind: 'tests-changed',
          message: `1 hidden test(s) ran that tests.lock does not list: ${JSON.stringify(LOCKED_IDS[0])}`,
        },
      ],
    });
    // The tests ran, so the hash is still printed.
    expect(run.testsHash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('oracle-gate run on gamed patches', () => {
  it('fails a patch that edits an existing test: the base version of the test runs and catches it', () => {
    const run = runGateCli(gradeArgs(repo, oracle, 'edits-existing-test', join(tempDir(), 'oracle.log')));
    expect(run.status).toBe(1);
    expect(firstReason(run)).toMatchObject({
      subkind: 'existing-suite-failed',
      message: expect.stringContaining('tests.test_calc::test_unary_minus'),
    });
  });

  it('fails a patch that adds a conftest.py to deselect and rewrite the failing tests', () => {
    const run = runGateCli(gradeArgs(repo, oracle, 'adds-conftest', join(tempDir(), 'oracle.log')));
    expect(run.status).toBe(1);
    expect(firstReason(run)?.subkind).toBe('hidden-tests-failed');
  });
});
