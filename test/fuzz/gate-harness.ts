import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { OracleRunRequest, OracleRunResult } from '../../src/container/run-oracle-container.js';
import type { GateReport } from '../../src/gate/report.js';
import { runGate } from '../../src/gate/run-gate.js';
import { INTERNAL_ERROR_SUBKIND } from '../../src/gate/stage.js';
import { hashOracleDir } from '../../src/oracle-dir/hash.js';
import type { SampleRepo } from '../container/sample-repo.js';
import { fakeRun, sampleOracle, type OracleCopy } from '../gate/helpers.js';
import { guardAsync } from './budget.js';

/**
 * The whole gate in process over the sample repository's honest patch, with one oracle file
 * replaced by fuzzed bytes and the hash re-pinned to the result, so every stage up to the
 * container runs for real. The container is a fake that passes whatever reaches it: a Pass can
 * then only come from the fuzzed file being accepted.
 */

export const FAKE_IMAGE = `registry.example/calc-oracle@sha256:${'a'.repeat(64)}`;

export interface GateCase {
  report: GateReport;
  /** Whether the fake container was reached. */
  ranContainer: boolean;
}

export async function oracleCopy(parent: string, config: Record<string, unknown> = {}): Promise<OracleCopy> {
  return sampleOracle(parent, FAKE_IMAGE, { config });
}

/** Writes `bytes` as the oracle's `file`, re-pins the hash and runs the gate in grade mode. */
export async function gateWithFile(
  label: string,
  repo: SampleRepo,
  oracle: OracleCopy,
  file: string,
  bytes: Buffer,
  container: (request: OracleRunRequest) => OracleRunResult = (r) => fakeRun(r),
): Promise<GateCase> {
  writeFileSync(join(oracle.dir, file), bytes);
  const pinned = await hashOracleDir(oracle.dir);
  let ranContainer = false;
  const report = await guardAsync(label, bytes, () =>
    runGate(
      {
        repoDir: repo.dir,
        baseSha: repo.base,
        headSha: repo.heads.honest!,
        oracleDir: oracle.dir,
        pinnedOracleHash: pinned,
        mode: 'grade',
        logPath: join(oracle.dir, '..', 'logs', 'oracle.log'),
      },
      {
        runOracleContainer: async (request) => {
          ranContainer = true;
          return container(request);
        },
      },
    ),
  );
  return { report, ranContainer };
}

/**
 * What every gate verdict must be, whatever the input: a Pass with the full chain, or a Fail
 * whose reasons each name a subkind and say something, and never an exception that escaped a
 * stage (internal-error).
 */
export function expectWellFormedVerdict(report: GateReport, input: string): void {
  if (report.verdict.kind === 'pass') {
    expect(report.verdict.chain[0]).toBe('oracle-gate');
    return;
  }
  for (const reason of report.verdict.reasons) {
    expect(reason.subkind, `an exception escaped a stage: ${reason.message}; ${input}`).not.toBe(
      INTERNAL_ERROR_SUBKIND,
    );
    expect(reason.subkind).toMatch(/^[a-z]+(-[a-z]+)*$/);
    expect(reason.message.trim().length).toBeGreaterThan(0);
  }
}
