import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OracleRunResult } from '../container/run-oracle-container.js';
import type { FlakeParams } from '../oracle-dir/config.js';
import {
  emptyLedger,
  formatFlakeLedger,
  updateLedger,
  type FlakeLedger,
} from '../oracle-dir/flake-ledger.js';
import { formatTestsLock } from '../oracle-dir/tests-lock.js';
import type { BaselineProposals } from './report.js';

export const PROPOSED_TESTS_LOCK = 'tests.lock.proposed';
export const PROPOSED_FLAKE_LEDGER = 'flake_ledger.proposed.json';

export interface ProposalTexts {
  testsLock: string;
  flakeLedger: string;
}

/**
 * What a baseline run proposes, as file texts: the hidden test IDs it observed (tests.lock's
 * format) and the flake ledger with this run's outcomes of both suites recorded. Null when no
 * hidden test ran, since an empty lock would lock nothing and a ledger update would record nothing.
 */
export function baselineProposals(
  result: Pick<OracleRunResult, 'hiddenIds' | 'outcomes'>,
  ledger: FlakeLedger | null,
  params: FlakeParams,
): ProposalTexts | null {
  if (result.hiddenIds.length === 0) return null;
  return {
    testsLock: formatTestsLock(result.hiddenIds),
    flakeLedger: formatFlakeLedger(updateLedger(ledger ?? emptyLedger(), result.outcomes, params)),
  };
}

/** Writes the proposals into `dir` (next to the oracle log) and returns their paths. */
export async function writeBaselineProposals(dir: string, texts: ProposalTexts): Promise<BaselineProposals> {
  await mkdir(dir, { recursive: true });
  const paths = { testsLock: join(dir, PROPOSED_TESTS_LOCK), flakeLedger: join(dir, PROPOSED_FLAKE_LEDGER) };
  await writeFile(paths.testsLock, texts.testsLock, { mode: 0o644 });
  await writeFile(paths.flakeLedger, texts.flakeLedger, { mode: 0o644 });
  return paths;
}
