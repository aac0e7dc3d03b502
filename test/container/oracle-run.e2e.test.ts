import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOracleContainer, type OracleRunResult } from '../../src/container/run-oracle-container.js';
import type { OracleRunConfig } from '../../src/container/run-config.js';
import { testsHash } from '../../src/results/tests-hash.js';
import { buildSampleRepo, SAMPLE, sampleConfig, type SampleRepo } from './sample-repo.js';

/**
 * Grade-mode runs of the sample project's patches against the real engine and the pinned test
 * image, each diff made by plain `git diff --binary --full-index` (the filtered-diff engine is the
 * path-policy stage's).
 */
let repo: SampleRepo;
let config: OracleRunConfig;
const LOCKED = readFileSync(join(SAMPLE, 'oracle', 'tests.lock'), 'utf8')
  .trim()
  .split('\n');
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

beforeAll(async () => {
  repo = await buildSampleRepo();
  config = await sampleConfig(inject('testImage'));
});
afterAll(() => repo.remove());

async function grade(patch: string, frozen?: Set<string>): Promise<OracleRunResult> {
  return runOracleContainer({
    mode: 'grade',
    config,
    repoDir: repo.dir,
    baseSha: repo.base,
    diff: await repo.diff(patch),
    hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    ...(frozen !== undefined ? { frozen } : {}),
  });
}

const subkinds = (r: OracleRunResult) => r.reasons.map((reason) => reason.subkind);
const status = (r: OracleRunResult, id: string) => r.outcomes.find((o) => o.id === id)?.status;

describe('the oracle run in grade mode', () => {
  it('passes the honest fix, with every test of both suites and the tests_hash of their IDs', async () => {
    const result = await grade('honest');
    expect(result.reasons).toEqual([]);
    expect(result.exitReason).toBe('ok');
    expect(result.containerExitCode).toBe(0);
    expect(result.outcomes.filter((o) => o.suite === 'existing').map((o) => o.id)).toEqual(EXISTING_IDS);
    expect(result.outcomes.every((o) => o.status === 'passed')).toBe(true);
    expect(result.hiddenIds).toEqual(LOCKED);
    expect(result.testsHash).toBe(testsHash([...EXISTING_IDS, ...LOCKED]));
    expect(result.imageRef).toBe(inject('testImage'));
    expect(result.imageId).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(result.diffSha256).toMatch(/^[0-9a-f]{64}$/);
    // Each suite in its own fresh checkout, with the diff applied and the suite's files restored.
    expect(result.harnessStatus.map((r) => `${r.kind}:${r.fields.name ?? r.fields.reason ?? ''}`)).toEqual([
      'harness:',
      'step:existing:checkout',
      'step:existing:apply',
      'step:existing:restore',
      'suite:existing',
      'step:hidden:checkout',
      'step:hidden:apply',
      'step:hidden:restore',
      'step:hidden:copy',
      'suite:hidden',
      'exit:ok',
    ]);
  });

  it('fails a fix that misses a case, naming the hidden test that caught it', async () => {
    const result = await grade('wrong-fix');
    expect(subkinds(result)).toEqual(['hidden-tests-failed']);
    expect(result.reasons[0]?.message).toMatch(
      /oracle_tests.test_associativity::test_division_is_left_associative/,
    );
    expect(status(result, 'oracle_tests.test_associativity::test_subtraction_is_left_associative')).toBe(
      'passed',
    );
    expect(result.containerExitCode).toBe(12);
  });

  it('fails a patch that does not apply at the base, with git apply’s reason, before any test runs', async () => {
    const result = await grade('does-not-apply');
    expect(subkinds(result)).toEqual(['patch-does-not-apply']);
    expect(result.reasons[0]?.message).toMatch(/calc\/parser\.py/);
    expect(result.outcomes).toEqual([]);
    expect(result.testsHash).toBeUndefined();
    expect(result.containerExitCode).toBe(10);
  });

  it('fails a diff that git apply stops reading at a corrupt binary patch, although git exits 0', async () => {
    // git applies x.txt, prints "error: corrupt binary patch" and exits 0 without z.txt: the
    // patch tested would be less than the patch judged.
    const diff = Buffer.from(
      [
        ...['diff --git a/x.txt b/x.txt', 'new file mode 100644', '--- /dev/null', '+++ b/x.txt'],
        ...['@@ -0,0 +1 @@', '+x', 'diff --git a/y.bin b/y.bin', 'new file mode 100644'],
        ...['index 0000000..89abcde', 'GIT binary patch', 'literal 6', 'HcmV?d00001', ''],
        ...['literal 0', 'HcmV?d00001', '', 'diff --git a/z.txt b/z.txt', 'new file mode 100644'],
        ...['--- /dev/null', '+++ b/z.txt', '@@ -0,0 +1 @@', '+z', ''],
      ].join('\n'),
    );
    const result = await runOracleContainer({
      mode: 'grade',
      config,
      repoDir: repo.dir,
      baseSha: repo.base,
      diff,
      hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    });
    expect(subkinds(result)).toEqual(['patch-does-not-apply']);
    expect(result.reasons[0]?.message).toMatch(/corrupt binary patch/);
    expect(result.outcomes).toEqual([]);
  });

  it('runs the base version of an existing test that the patch edited, and fails the patch', async () => {
    const result = await grade('edits-existing-test');
    expect(subkinds(result)).toEqual(['existing-suite-failed']);
    const unary = result.outcomes.find((o) => o.id === 'tests.test_calc::test_unary_minus');
    expect(unary?.status).toBe('failed');
    // The base assertion (== 2) ran, not the patch's (== -8).
    expect(unary?.message).toMatch(/assert -8 == 2/);
  });

  it('fails a patch that adds a conftest.py to deselect tests and rewrite failures as passes', async () => {
    const result = await grade('adds-conftest');
    expect(subkinds(result)).toEqual(['hidden-tests-failed']);
    // Every hidden test ran (none deselected) and the failures stayed failures.
    expect(result.hiddenIds).toEqual(LOCKED);
    expect(result.outcomes.filter((o) => o.suite === 'hidden' && o.status === 'failed')).toHaveLength(4);
  });

  it('owes that to restoring conftest.py: an oracle that does not list it would be fooled', async () => {
    // The negative control: why the sample oracle's restore globs name the pytest config files.
    const paths = ['tests/**'];
    const weak = { ...config, existingSuite: { command: config.existingSuite?.command ?? '', paths } };
    const result = await runOracleContainer({
      mode: 'grade',
      config: weak,
      repoDir: repo.dir,
      baseSha: repo.base,
      diff: await repo.diff('adds-conftest'),
      hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    });
    expect(result.reasons).toEqual([]);
    // tests.lock (the next check, in the tests stage) is what would still catch it.
    expect(result.hiddenIds).toEqual(['oracle_tests.test_associativity::test_precedence_still_holds']);
  });

  it('fails a patch that rewrites its JUnit report at exit to hide the failures', async () => {
    const result = await grade('forges-report');
    expect(subkinds(result)).toEqual(['report-forged']);
    expect(result.reasons[0]?.message).toMatch(
      /the hidden tests exited with status 1 but its report lists no failure/,
    );
  });

  it('fails a patch that exits 0 as soon as the tests import it', async () => {
    const result = await grade('exits-early');
    expect(subkinds(result)).toEqual(['report-missing', 'report-missing']);
    expect(result.containerExitCode).toBe(13);
    expect(result.testsHash).toBeUndefined();
  });

  it('keeps what the existing suite’s run planted (conftest.py, .git config, a live process) from the hidden tests', async () => {
    const result = await grade('plants-for-later');
    // The hidden tests ran for real and failed: no planted hook turned them green, no leftover
    // process rewrote their report.
    expect(subkinds(result)).toEqual(['hidden-tests-failed']);
    expect(result.hiddenIds).toEqual(LOCKED);
    expect(result.outcomes.filter((o) => o.suite === 'hidden' && o.status === 'failed')).toHaveLength(4);
  });

  it('lets a frozen test fail without failing the patch, and reports it frozen', async () => {
    const division = 'oracle_tests.test_associativity::test_division_is_left_associative';
    const result = await grade('wrong-fix', new Set([division]));
    expect(result.reasons).toEqual([]);
    expect(result.outcomes.find((o) => o.id === division)).toMatchObject({ status: 'failed', frozen: true });
  });
});
