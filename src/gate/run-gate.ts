import { fail } from '../verdict/schema.js';
import type { GateMode, GateReport } from './report.js';

/** One gate run's inputs, shared by the CLI's `run` and the action. */
export interface GateRequest {
  /** A git repository holding the base and head commits (never checked out at the head). */
  repoDir: string;
  baseSha: string;
  headSha: string;
  oracleDir: string;
  /** The pinned hash the oracle directory must have. */
  pinnedOracleHash: string;
  mode: GateMode;
  /** Where the oracle log goes. */
  logPath?: string;
  /** Stage-by-stage progress for a human (stderr on the CLI, the job log in the action). */
  progress?: (line: string) => void;
}

/** Runs the whole gate. Placeholder until the stages are wired: it fails closed. */
export async function runGate(request: GateRequest): Promise<GateReport> {
  return {
    verdict: fail('config-invalid', 'the gate is not wired yet'),
    attested: false,
    mode: request.mode,
    deniedTouches: [],
    droppedHunks: [],
    tests: [],
    stages: [],
    quarantined: false,
    notes: [],
  };
}
