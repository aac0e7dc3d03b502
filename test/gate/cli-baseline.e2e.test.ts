import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parseFlakeLedger } from '../../src/oracle-dir/flake-ledger.js';
import { buildSampleRepo, type SampleRepo } from '../container/sample-repo.js';
import { LOCKED_IDS, runGateCli, sampleOracle, tempDirs, type OracleCopy } from './helpers.js';

/** `oracle-gate run --mode baseline` against the real engine: the task's own check, no diff. */
const tempDir = tempDirs('og-cli-baseline-');
let repo: SampleRepo;
beforeAll(async () => {
  repo = await buildSampleRepo();
});
afterAll(() => repo.remove());

function baseline(oracle: OracleCopy, log: string) {
  return runGateCli([
    '--mode',
    'baseline',
    '--repo',
    repo.dir,
    '--base',
    'main',
    '--oracle',
    oracle.dir,
    '--oracle-hash',
    oracle.hash,
    '--log',
    log,
  ]);
}

describe('oracle-gate run --mode baseline', () => {
  it('passes a valid task (existing suite passes, hidden tests fail) and proposes tests.lock and the ledger', async () => {
    const oracle = await sampleOracle(tempDir(), inject('testImage'));
    const logDir = tempDir();
    const run = baseline(oracle, join(logDir, 'oracle.log'));
    expect(run.status).toBe(0);
    expect(run.verdict).toEqual({
      kind: 'pass',
      chain: ['oracle-gate', 'config', 'oracle-hash', 'sealed-fixtures', 'container', 'tests'],
    });
    expect(run.testsHash).toMatch(/^[0-9a-f]{64}$/);
    // The observed hidden IDs are the committed tests.lock, byte for byte.
    const proposedLock = join(logDir, 'tests.lock.proposed');
    expect(readFileSync(proposedLock, 'utf8')).toBe(readFileSync(join(oracle.dir, 'tests.lock'), 'utf8'));
    const ledger = parseFlakeLedger(readFileSync(join(logDir, 'flake_ledger.proposed.json'), 'utf8'));
    expect(ledger.ok).toBe(true);
    const entries = ledger.ok ? ledger.value.tests : new Map();
    // One baseline outcome each: the hidden tests fail at the base (one already passes), the existing pass.
    expect(LOCKED_IDS.map((id) => entries.get(id)?.history)).toEqual(['F', 'F', 'F', 'P', 'F']);
    expect(entries.get('tests.test_calc::test_addition')).toEqual({ state: 'active', history: 'P' });
    expect(run.stderr).toContain(`proposed tests.lock: ${proposedLock}`);
  });

  it('quarantines a task whose hidden tests already pass at the base, and still writes the proposals', async () => {
    const oracle = await sampleOracle(tempDir(), inject('testImage'), { which: 'oracle-already-passing' });
    const logDir = tempDir();
    const run = baseline(oracle, join(logDir, 'oracle.log'));
    expect(run.status).toBe(1);
    expect(run.verdict).toEqual({
      kind: 'fail',
      reasons: [
        {
          kind: 'custom',
          subkind: 'quarantined',
          message:
            'baseline run: the hidden tests already pass at the base commit, so they cannot tell a fix',
        },
      ],
    });
    expect(readFileSync(join(logDir, 'tests.lock.proposed'), 'utf8')).toBe(
      'oracle_tests.test_already_passing::test_addition_chain\n' +
        'oracle_tests.test_already_passing::test_multiplication_chain\n',
    );
    expect(readFileSync(join(logDir, 'oracle.log'), 'utf8')).toContain('quarantined: yes');
  });
});
