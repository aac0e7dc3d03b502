import type { Verdict } from '../verdict/schema.js';

/**
 * Everything one gate run found, as data: the contract between the gate (which fills it) and the
 * reporters (CLI, check run, job summary, log), which only render it. Every string in here that
 * came from the patch, the container or a test report is untrusted text: renderers escape it.
 */

/** What a patch did to a path. */
export type ChangeKind = 'added' | 'deleted' | 'modified' | 'mode-changed' | 'renamed' | 'copied';

export interface DeniedTouch {
  /** The path as a display string (UTF-8; git's C-quoted form where the bytes are not UTF-8). */
  path: string;
  change: ChangeKind;
  /** Which rule denied it, e.g. `deny glob .github/**`, `symlink`, `submodule`, `.gitattributes`, `sealed fixture`. */
  rule: string;
}

export interface DroppedHunk {
  path: string;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  /** Why, e.g. `outside the allow-list`. */
  reason: string;
}

export type TestStatus = 'passed' | 'failed' | 'error' | 'skipped';

export interface TestOutcome {
  /** `<classname>::<name>`, or `<file>::<name>` where the classname is empty. */
  id: string;
  suite: 'existing' | 'hidden';
  status: TestStatus;
  /** The failure or error message, untrusted and possibly long. */
  message?: string;
  /** Frozen by the flake ledger: its failure alone does not fail the gate. */
  frozen?: boolean;
  file?: string;
  line?: number;
}

export interface StageTiming {
  id: string;
  ms: number;
  outcome: 'pass' | 'fail';
  /** The stage ran a real check (not a trivial pass such as "no manifest, nothing to check"). */
  attested?: boolean;
}

/** Files a baseline run writes next to the oracle log, for a human to review and commit. */
export interface BaselineProposals {
  /** The observed hidden test IDs, in tests.lock's format (`tests.lock.proposed`). */
  testsLock: string;
  /** The flake ledger updated with this run's outcomes (`flake_ledger.proposed.json`). */
  flakeLedger: string;
}

export type GateMode = 'grade' | 'baseline';

export interface GateReport {
  verdict: Verdict;
  /** False when the Pass holds no attested stage: reported, never counted as evidence. */
  attested: boolean;
  mode: GateMode;
  /** sha256 hex of the sorted, de-duplicated test IDs that ran; absent when no test ran. */
  testsHash?: string;
  /** The oracle directory's computed hash (`h1:...`). */
  oracleHash?: string;
  /** The image reference actually run, `name@sha256:...`. */
  imageDigest?: string;
  /** sha256 hex of the filtered diff that reached the container. */
  diffSha256?: string;
  deniedTouches: DeniedTouch[];
  droppedHunks: DroppedHunk[];
  tests: TestOutcome[];
  stages: StageTiming[];
  quarantined: boolean;
  logPath?: string;
  /** Baseline mode: where the tests.lock and flake-ledger proposals were written. */
  proposals?: BaselineProposals;
  /** The commits graded, as full ids, once resolved (the merge base only in grade mode). */
  baseSha?: string;
  headSha?: string;
  mergeBase?: string;
  /** Things a maintainer should read, e.g. "no tests.lock: the tests-changed check was skipped". */
  notes: string[];
}
