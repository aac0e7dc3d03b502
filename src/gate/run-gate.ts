import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { runOracleContainer } from '../container/run-oracle-container.js';
import { Composite } from '../verdict/oracle.js';
import { failWith, type FailReason, type Verdict } from '../verdict/schema.js';
import { baselineProposals, writeBaselineProposals } from './baseline-proposals.js';
import { configStage } from './config-stage.js';
import { containerStage } from './container-stage.js';
import { renderGateLog } from './gate-log.js';
import type { GateDependencies, GateRun } from './gate-run.js';
import { oracleHashStage } from './oracle-hash-stage.js';
import { pathPolicyStage } from './path-policy-stage.js';
import type { GateMode, GateReport } from './report.js';
import { sealedFixturesStage } from './sealed-fixtures-stage.js';
import { GateStage, INTERNAL_ERROR_SUBKIND, type StageBody } from './stage.js';
import { testsStage } from './tests-stage.js';
import { thrownText } from '../errors/thrown-text.js';

/** One gate run's inputs, shared by the CLI's `run` and the action. */
export interface GateRequest {
  /** A git repository holding the base and head commits (never checked out at the head). */
  repoDir: string;
  baseSha: string;
  /** The PR's head; in baseline mode it is not used (it may be '' there). */
  headSha: string;
  oracleDir: string;
  /** The pinned hash the oracle directory must have. */
  pinnedOracleHash: string;
  mode: GateMode;
  /** Where the oracle log goes [a new temporary folder's `oracle.log`]; baseline proposals go next to it. */
  logPath?: string;
  /** Stage-by-stage progress for a human (stderr on the CLI, the job log in the action). Untrusted text: escape it. */
  progress?: (line: string) => void;
}

export const GATE_ID = 'oracle-gate';

/** The stage ids, in the order they run: a Pass's chain is GATE_ID and these. */
export const STAGE = {
  config: 'config',
  oracleHash: 'oracle-hash',
  pathPolicy: 'path-policy',
  sealedFixtures: 'sealed-fixtures',
  container: 'container',
  tests: 'tests',
} as const;

export const LOG_UNWRITABLE = 'log-unwritable';

/**
 * The stages for a mode, in order. Baseline mode has no diff, so it has no `path-policy` stage:
 * its chain names only stages that checked something.
 */
export function gateStages(mode: GateMode): GateStage<GateRun>[] {
  const stages: [string, StageBody<GateRun>][] = [
    [STAGE.config, configStage],
    [STAGE.oracleHash, oracleHashStage],
    ...(mode === 'baseline' ? [] : [[STAGE.pathPolicy, pathPolicyStage] as [string, StageBody<GateRun>]]),
    [STAGE.sealedFixtures, sealedFixturesStage],
    [STAGE.container, containerStage],
    [STAGE.tests, testsStage],
  ];
  return stages.map(([id, body]) => new GateStage(id, body));
}

const DEFAULT_DEPENDENCIES: GateDependencies = {
  runOracleContainer,
  now: () => performance.now(),
};

/** Verdict text must survive serde_json-style serialisation: no lone surrogate reaches it. */
function wellFormed(verdict: Verdict): Verdict {
  if (verdict.kind === 'pass') return verdict;
  return failWith(
    verdict.reasons.map((r): FailReason => ({
      kind: 'custom',
      subkind: r.subkind.toWellFormed(),
      message: r.message.toWellFormed(),
    })),
  );
}

function errorText(error: unknown): string {
  return thrownText(error);
}

/**
 * Runs the whole gate (DESIGN.md, The gate, in order) as a Composite of its stages over one
 * shared run context: the first Fail ends the run, and nothing after it starts (no container runs
 * when the policy denies). Then it fills the report, writes the baseline proposals (baseline
 * mode) and the oracle log. It never throws: whatever goes wrong is a Fail.
 */
export async function runGate(
  request: GateRequest,
  overrides: Partial<GateDependencies> = {},
): Promise<GateReport> {
  const deps: GateDependencies = { ...DEFAULT_DEPENDENCIES, ...overrides };
  const startedAt = new Date().toISOString();
  const run: GateRun = {
    request,
    deps,
    stages: [],
    notes: [],
    progress: (line) => request.progress?.(line),
    now: deps.now,
  };

  if (request.mode === 'baseline') run.notes.push('baseline mode: no diff, so there is no path-policy stage');

  let verdict: Verdict;
  const gate = new Composite<GateRun>(GATE_ID);
  for (const stage of gateStages(request.mode)) gate.register(stage);
  try {
    verdict = await gate.check(run);
  } catch (error) {
    verdict = failWith([
      { kind: 'custom', subkind: INTERNAL_ERROR_SUBKIND, message: `the gate stopped: ${errorText(error)}` },
    ]);
  }

  const container = run.container;
  const report: GateReport = {
    verdict: wellFormed(verdict),
    attested: verdict.kind === 'pass' && run.stages.some((s) => s.attested === true),
    mode: request.mode,
    ...(container?.testsHash !== undefined ? { testsHash: container.testsHash } : {}),
    ...(run.oracleHash !== undefined ? { oracleHash: run.oracleHash } : {}),
    ...(container?.imageRef !== undefined ? { imageDigest: container.imageRef } : {}),
    ...(run.policy !== undefined ? { diffSha256: run.policy.filteredSha256 } : {}),
    deniedTouches: run.policy?.denied ?? [],
    droppedHunks: run.policy?.dropped ?? [],
    tests: container?.outcomes ?? [],
    stages: run.stages,
    quarantined: container?.quarantined ?? false,
    notes: [...run.notes, ...(container?.notes ?? [])],
    ...(run.base !== undefined ? { baseSha: run.base } : {}),
    ...(run.head !== undefined ? { headSha: run.head } : {}),
    ...(run.mergeBase !== undefined ? { mergeBase: run.mergeBase } : {}),
  };

  const failures: FailReason[] = [];
  let logPath: string | undefined;
  try {
    logPath = request.logPath
      ? resolve(request.logPath)
      : join(await mkdtemp(join(tmpdir(), 'oracle-gate-log-')), 'oracle.log');
    await mkdir(dirname(logPath), { recursive: true });
    report.logPath = logPath;
  } catch (error) {
    failures.push({
      kind: 'custom',
      subkind: LOG_UNWRITABLE,
      message: `no folder for the oracle log: ${errorText(error)}`,
    });
  }

  if (request.mode === 'baseline' && container !== undefined && run.oracle !== undefined && logPath) {
    const texts = baselineProposals(container, run.oracle.flakeLedger, run.oracle.config.flake);
    if (texts === null)
      report.notes.push('no hidden test ran: no tests.lock or flake ledger proposal was written');
    else {
      try {
        report.proposals = await writeBaselineProposals(dirname(logPath), texts);
        report.notes.push(
          `baseline proposals for review: ${report.proposals.testsLock} and ${report.proposals.flakeLedger}`,
        );
      } catch (error) {
        failures.push({
          kind: 'custom',
          subkind: LOG_UNWRITABLE,
          message: `the baseline proposals could not be written: ${errorText(error)}`,
        });
      }
    }
  }

  if (logPath) {
    try {
      await writeFile(
        logPath,
        renderGateLog({
          report,
          ...(container ? { container } : {}),
          ...(run.runConfig ? { config: run.runConfig } : {}),
          ...(run.policy ? { touched: run.policy.touched } : {}),
          oracleDir: run.oracle?.dir ?? request.oracleDir,
          pinnedOracleHash: request.pinnedOracleHash,
          startedAt,
        }),
        { mode: 0o644 },
      );
    } catch (error) {
      failures.push({
        kind: 'custom',
        subkind: LOG_UNWRITABLE,
        message: `the oracle log ${logPath} could not be written: ${errorText(error)}`,
      });
    }
  }

  // Without its log a run leaves no evidence to review: a Pass becomes a Fail.
  if (failures.length > 0) {
    report.verdict = wellFormed(
      failWith([...(report.verdict.kind === 'fail' ? report.verdict.reasons : []), ...failures]),
    );
    report.attested = false;
  }
  return report;
}
