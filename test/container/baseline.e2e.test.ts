import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOracleContainer } from '../../src/container/run-oracle-container.js';
import type { OracleRunConfig } from '../../src/container/run-config.js';
import { buildSampleRepo, SAMPLE, sampleConfig, type SampleRepo } from './sample-repo.js';

let repo: SampleRepo;
let config: OracleRunConfig;
beforeAll(async () => {
  repo = await buildSampleRepo();
  config = await sampleConfig(inject('testImage'));
});
afterAll(() => repo.remove());

describe('the oracle run in baseline mode', () => {
  it('accepts a task whose existing suite passes and hidden tests fail at the base, and proposes tests.lock', async () => {
    const result = await runOracleContainer({
      mode: 'baseline',
      config,
      repoDir: repo.dir,
      baseSha: repo.base,
      hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    });
    expect(result.reasons).toEqual([]);
    expect(result.quarantined).toBe(false);
    expect(result.diffSha256).toBeUndefined();
    expect(result.harnessStatus.some((r) => r.fields.name?.endsWith(':apply'))).toBe(false);
    // The observed hidden IDs are the sample oracle's committed tests.lock, line for line.
    const lock = readFileSync(join(SAMPLE, 'oracle', 'tests.lock'), 'utf8')
      .trim()
      .split('\n');
    expect(result.hiddenIds).toEqual(lock);
    // The outcomes are what a flake-ledger update reads: one passes at the base, four fail.
    const hidden = result.outcomes.filter((o) => o.suite === 'hidden');
    expect(hidden.filter((o) => o.status === 'failed')).toHaveLength(4);
    expect(result.notes.join(' ')).toMatch(/1 hidden test\(s\) already pass/);
  });

  it('quarantines a task whose hidden tests already pass at the base commit', async () => {
    const result = await runOracleContainer({
      mode: 'baseline',
      config,
      repoDir: repo.dir,
      baseSha: repo.base,
      hiddenTestsDir: join(SAMPLE, 'oracle-already-passing', 'tests'),
    });
    expect(result.quarantined).toBe(true);
    expect(result.reasons).toEqual([
      {
        kind: 'custom',
        subkind: 'quarantined',
        message: 'baseline run: the hidden tests already pass at the base commit, so they cannot tell a fix',
      },
    ]);
    expect(result.hiddenIds).toEqual([
      'oracle_tests.test_already_passing::test_addition_chain',
      'oracle_tests.test_already_passing::test_multiplication_chain',
    ]);
  });

  it('refuses a diff in baseline mode and a grade run without one', async () => {
    const base = {
      config,
      repoDir: repo.dir,
      baseSha: repo.base,
      hiddenTestsDir: join(SAMPLE, 'oracle', 'tests'),
    };
    const withDiff = await runOracleContainer({ ...base, mode: 'baseline', diff: Buffer.from('') });
    expect(withDiff.reasons[0]?.message).toMatch(/baseline mode runs without a diff/);
    const without = await runOracleContainer({ ...base, mode: 'grade' });
    expect(without.reasons[0]?.message).toMatch(/grade mode needs the filtered diff/);
    expect(without.exitReason).toBe('not-run');
  });
});
