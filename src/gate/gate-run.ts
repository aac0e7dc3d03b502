import type { OracleRunRequest, OracleRunResult } from '../container/run-oracle-container.js';
import type { OracleRunConfig } from '../container/run-config.js';
import type { OracleDir } from '../oracle-dir/load.js';
import type { PolicyResult } from '../policy/evaluate-policy.js';
import type { StageTiming } from './report.js';
import type { GateRequest } from './run-gate.js';
import type { StageContext } from './stage.js';

/** The edges a gate run reaches through, so a test can replace the container. */
export interface GateDependencies {
  runOracleContainer: (request: OracleRunRequest) => Promise<OracleRunResult>;
  now: () => number;
}

/**
 * One gate run's shared state: the request, and what each stage leaves for the next (the
 * products of DESIGN.md's steps). A stage reads only what earlier stages set; `need` refuses to
 * go on without it, which the stage wrapper turns into a Fail.
 */
export interface GateRun extends StageContext {
  readonly request: GateRequest;
  readonly deps: GateDependencies;
  readonly stages: StageTiming[];
  readonly notes: string[];
  /** `config`: the commits as full ids (head only in grade mode). */
  base?: string;
  head?: string;
  /** `config`: the oracle directory, read and validated, and its run config. */
  oracle?: OracleDir;
  runConfig?: OracleRunConfig;
  /** `oracle-hash`: the computed hash (also set when it does not match). */
  oracleHash?: string;
  /** `path-policy` (grade mode): the merge base and the policy's result. */
  mergeBase?: string;
  policy?: PolicyResult;
  /** `container`: the oracle run. */
  container?: OracleRunResult;
}

/** A product an earlier stage must have left; its absence is a bug in the stage order. */
export function need<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing: an earlier stage did not provide it`);
  return value;
}
