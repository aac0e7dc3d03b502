import type { GateMode, TestOutcome } from '../gate/report.js';
import type { FailReason } from '../verdict/schema.js';
import { HARNESS_EXIT, harnessExitReason, type HarnessExitReason } from '../container/harness-protocol.js';
import { SUBKIND } from './fail-subkinds.js';
import type { JUnitCase } from './junit-report.js';
import { sortedUniqueIds, testsHash } from './tests-hash.js';

/**
 * Stage 5 and 6 judgement as a pure function: what the container run left behind (exit code,
 * status file, JUnit reports) in, reasons and test outcomes out. Every input past the container's
 * exit code may have been written by PR code, so each is cross-checked against the others and any
 * disagreement is a Fail.
 */

export type SuiteName = 'existing' | 'hidden';

export type ReportRead =
  | { kind: 'parsed'; cases: JUnitCase[]; files: string[] }
  | { kind: 'missing'; error: string }
  | { kind: 'invalid'; error: string };

export interface SuiteEvidence {
  /** The suite's exit status as the status file records it (untrusted). */
  exitCode?: number;
  /** What the harness found in the suite's report folder right after the suite. */
  harnessSawReport?: boolean;
  /** Set when the status file does not hold exactly one well-formed record for the suite. */
  statusProblem?: string;
  report: ReportRead;
}

export interface RunEvidence {
  mode: GateMode;
  timedOut: boolean;
  timeoutSeconds: number;
  /** The container's exit code: the harness's own, which PR code cannot set. Null if killed. */
  exitCode: number | null;
  oomKilled: boolean;
  memoryLimit: string;
  /**
   * Set when the suites wrote past the report folder's limits (the host's watch killed the run, or
   * found it so at the end): the watch's one-line account. The reports were not read.
   */
  reportFolderOverLimit?: string;
  /** The harness's one-line detail for a patch that does not apply or a harness error. */
  detail?: string;
  /** Absent when the oracle has no existing suite. */
  existing?: SuiteEvidence;
  hidden: SuiteEvidence;
}

export type ExitReason =
  HarnessExitReason | 'timeout' | 'report-folder-over-limit' | 'out-of-memory' | 'container-failed';

export interface Judgement {
  /** Stage 5 (`container`): the run itself failed (timeout, patch, harness, engine). */
  containerReasons: FailReason[];
  /** Stage 6 (`tests`): the suites' results. */
  testReasons: FailReason[];
  exitReason: ExitReason;
  outcomes: TestOutcome[];
  /** Over the non-skipped tests of both suites; absent when no test ran. */
  testsHash?: string;
  /** Every hidden test ID the report lists, sorted and unique: the tests.lock proposal. */
  hiddenIds: string[];
  quarantined: boolean;
  notes: string[];
}

const SUITE_LABEL: Record<SuiteName, string> = { existing: 'the existing suite', hidden: 'the hidden tests' };
const MAX_LISTED = 5;

function reason(subkind: string, message: string): FailReason {
  return { kind: 'custom', subkind, message };
}

function listIds(cases: readonly JUnitCase[]): string {
  const shown = cases
    .slice(0, MAX_LISTED)
    .map((c) => `${c.id.length > 200 ? `${c.id.slice(0, 200)}…` : c.id} (${c.status})`);
  const more = cases.length > MAX_LISTED ? `, and ${cases.length - MAX_LISTED} more` : '';
  return shown.join(', ') + more;
}

function exitText(code: number | undefined): string {
  return code === undefined ? 'an unrecorded exit status' : `exit status ${code}`;
}

function isBad(suite: SuiteName, c: JUnitCase, frozen: ReadonlySet<string>): boolean {
  if (frozen.has(c.id)) return false;
  // A hidden test that skips proved nothing; the tests.lock check says the same ("passed, not skipped").
  return c.status === 'failed' || c.status === 'error' || (suite === 'hidden' && c.status === 'skipped');
}

function outcomesOf(suite: SuiteName, evidence: SuiteEvidence | undefined, frozen: ReadonlySet<string>) {
  if (evidence?.report.kind !== 'parsed') return [];
  return evidence.report.cases.map((c): TestOutcome => {
    const outcome: TestOutcome = { id: c.id, suite, status: c.status };
    if (c.message !== undefined) outcome.message = c.message;
    if (frozen.has(c.id)) outcome.frozen = true;
    if (c.file !== undefined) outcome.file = c.file;
    if (c.line !== undefined) outcome.line = c.line;
    return outcome;
  });
}

/** The exit code the harness would have chosen for what the status file claims. */
function impliedExit(existing: SuiteEvidence | undefined, hidden: SuiteEvidence): number {
  if (existing !== undefined && existing.exitCode !== 0) return HARNESS_EXIT.existingSuiteFailed;
  if (hidden.exitCode !== 0) return HARNESS_EXIT.hiddenTestsFailed;
  if (existing?.harnessSawReport === false || hidden.harnessSawReport === false)
    return HARNESS_EXIT.reportMissing;
  return HARNESS_EXIT.ok;
}

/** Problems with one suite's results in grade mode, in the order a maintainer should read them. */
function gradeSuite(suite: SuiteName, evidence: SuiteEvidence, frozen: ReadonlySet<string>): FailReason[] {
  const label = SUITE_LABEL[suite];
  const failedSubkind = suite === 'existing' ? SUBKIND.existingSuiteFailed : SUBKIND.hiddenTestsFailed;
  const { report, exitCode } = evidence;
  if (report.kind === 'missing') {
    return [
      reason(
        SUBKIND.reportMissing,
        `${label} wrote no JUnit report (${exitText(exitCode)}): ${report.error}`,
      ),
    ];
  }
  if (report.kind === 'invalid') {
    return [reason(SUBKIND.reportInvalid, `the JUnit report of ${label} was refused: ${report.error}`)];
  }
  if (report.cases.length === 0) {
    return [
      reason(SUBKIND.reportMissing, `the JUnit report of ${label} lists no test (${exitText(exitCode)})`),
    ];
  }
  const bad = report.cases.filter((c) => isBad(suite, c, frozen));
  if (bad.length > 0) {
    // A runner exits 0 on skips: only a listed failure or error contradicts a zero exit.
    const failing = bad.some((c) => c.status === 'failed' || c.status === 'error');
    const disagreement =
      exitCode === 0 && failing ? ' (the suite exited 0 although its report lists failures)' : '';
    return [
      reason(
        failedSubkind,
        `${bad.length} of ${report.cases.length} tests in ${label} did not pass: ${listIds(bad)}${disagreement}`,
      ),
    ];
  }
  const anyFailure = report.cases.some((c) => c.status === 'failed' || c.status === 'error');
  if (exitCode !== undefined && exitCode !== 0 && !anyFailure) {
    return [
      reason(
        SUBKIND.reportForged,
        `${label} exited with status ${exitCode} but its report lists no failure or error: the report does not describe the run`,
      ),
    ];
  }
  return [];
}

function statusReasons(evidence: RunEvidence): FailReason[] {
  const problems: string[] = [];
  for (const [suite, ev] of [
    ['existing', evidence.existing],
    ['hidden', evidence.hidden],
  ] as const) {
    if (ev?.statusProblem !== undefined) problems.push(`${SUITE_LABEL[suite]}: ${ev.statusProblem}`);
    // Without its exit status a suite's report cannot be cross-checked: never a Pass.
    else if (ev !== undefined && ev.exitCode === undefined)
      problems.push(`${SUITE_LABEL[suite]}: no exit status recorded`);
  }
  if (problems.length === 0) {
    const implied = impliedExit(evidence.existing, evidence.hidden);
    if (implied !== evidence.exitCode) {
      problems.push(`its records imply exit ${implied}, the harness exited ${evidence.exitCode}`);
    }
  }
  if (problems.length === 0) return [];
  return [
    reason(
      SUBKIND.reportForged,
      `the harness's status file disagrees with the run (${problems.join('; ')}): something inside the container rewrote it`,
    ),
  ];
}

/** The suite that ended on SIGKILL (status 137), if one did. */
function killedSuite(evidence: RunEvidence): SuiteName | undefined {
  if (evidence.existing?.exitCode === 137) return 'existing';
  if (evidence.hidden.exitCode === 137) return 'hidden';
  return undefined;
}

/** Stage-5 reasons from the container's exit alone; undefined when the harness ran both suites. */
function containerFailure(
  evidence: RunEvidence,
): { exitReason: ExitReason; reasons: FailReason[] } | undefined {
  if (evidence.timedOut) {
    return {
      exitReason: 'timeout',
      reasons: [
        reason(
          SUBKIND.timeout,
          `the oracle run passed its wall-clock limit of ${evidence.timeoutSeconds} s; the container was killed and removed`,
        ),
      ],
    };
  }
  if (evidence.reportFolderOverLimit !== undefined) {
    return {
      exitReason: 'report-folder-over-limit',
      reasons: [reason(SUBKIND.reportInvalid, evidence.reportFolderOverLimit)],
    };
  }
  const harnessReason = harnessExitReason(evidence.exitCode);
  const detail = evidence.detail ? `: ${evidence.detail}` : '';
  if (harnessReason === 'patch-does-not-apply') {
    return {
      exitReason: harnessReason,
      reasons: [
        reason(SUBKIND.patchDoesNotApply, `the filtered diff does not apply at the base commit${detail}`),
      ],
    };
  }
  if (harnessReason === 'harness-error') {
    return {
      exitReason: harnessReason,
      reasons: [reason(SUBKIND.harnessError, `the harness could not prepare the checkout${detail}`)],
    };
  }
  // A suite killed (status 137) in an OOM-killed run: its missing report is a consequence, the
  // memory limit the reason. Otherwise the OOM flag speaks only where the harness's exit does not.
  const killed = killedSuite(evidence);
  if (evidence.oomKilled && (killed !== undefined || harnessReason === undefined)) {
    const how =
      killed !== undefined
        ? `: the kernel killed ${SUITE_LABEL[killed]} (exit status 137)`
        : ' and was killed';
    return {
      exitReason: 'out-of-memory',
      reasons: [
        reason(
          SUBKIND.outOfMemory,
          `the oracle container ran out of memory (limit ${evidence.memoryLimit})${how}`,
        ),
      ],
    };
  }
  if (harnessReason !== undefined) return undefined;
  return {
    exitReason: 'container-failed',
    reasons: [
      reason(
        SUBKIND.containerFailed,
        `the oracle container exited with ${evidence.exitCode === null ? 'no exit code' : `code ${evidence.exitCode}`}, which the harness never uses${detail}`,
      ),
    ],
  };
}

function baselineProblems(evidence: RunEvidence, frozen: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  const { existing, hidden } = evidence;
  if (existing !== undefined) {
    const r = existing.report;
    if (existing.exitCode !== 0)
      problems.push(`the existing suite fails at the base commit (${exitText(existing.exitCode)})`);
    if (r.kind !== 'parsed') problems.push(`the existing suite's report: ${r.error}`);
    else if (r.cases.length === 0) problems.push('the existing suite ran no test');
    else {
      const bad = r.cases.filter((c) => isBad('existing', c, frozen));
      if (bad.length > 0) problems.push(`existing tests fail at the base commit: ${listIds(bad)}`);
    }
  }
  const r = hidden.report;
  if (r.kind !== 'parsed') problems.push(`the hidden tests' report: ${r.error}`);
  else if (r.cases.length === 0) problems.push('the hidden tests ran no test');
  else {
    const failing = r.cases.filter(
      (c) => !frozen.has(c.id) && (c.status === 'failed' || c.status === 'error'),
    );
    if (failing.length === 0)
      problems.push('the hidden tests already pass at the base commit, so they cannot tell a fix');
    else if (hidden.exitCode === 0)
      problems.push('the hidden tests exited 0 although their report lists failures');
  }
  return problems;
}

export function judgeRun(evidence: RunEvidence, frozen: ReadonlySet<string> = new Set()): Judgement {
  const outcomes = [
    ...outcomesOf('existing', evidence.existing, frozen),
    ...outcomesOf('hidden', evidence.hidden, frozen),
  ];
  const hash = testsHash(outcomes.filter((o) => o.status !== 'skipped').map((o) => o.id));
  const hiddenIds = sortedUniqueIds(outcomes.filter((o) => o.suite === 'hidden').map((o) => o.id));
  const notes: string[] = [];
  const frozenFailures = outcomes.filter((o) => o.frozen && o.status !== 'passed');
  if (frozenFailures.length > 0) {
    notes.push(
      `${frozenFailures.length} frozen test(s) did not pass; the flake ledger keeps them from failing the gate`,
    );
  }
  const base = { outcomes, hiddenIds, notes, ...(hash !== undefined ? { testsHash: hash } : {}) };
  const baseline = evidence.mode === 'baseline';

  const early = containerFailure(evidence);
  if (early !== undefined) {
    if (!baseline)
      return {
        ...base,
        containerReasons: early.reasons,
        testReasons: [],
        exitReason: early.exitReason,
        quarantined: false,
      };
    const why = early.reasons.map((r) => r.message).join('; ');
    return {
      ...base,
      containerReasons: [reason(SUBKIND.quarantined, `baseline run: ${why}`)],
      testReasons: [],
      exitReason: early.exitReason,
      quarantined: true,
    };
  }

  const exitReason = harnessExitReason(evidence.exitCode) as HarnessExitReason;
  const tampering = statusReasons(evidence);
  if (baseline) {
    const problems = [...tampering.map((r) => r.message), ...baselineProblems(evidence, frozen)];
    if (evidence.hidden.report.kind === 'parsed') {
      const passing = evidence.hidden.report.cases.filter((c) => c.status === 'passed');
      if (passing.length > 0 && problems.length === 0) {
        notes.push(
          `${passing.length} hidden test(s) already pass at the base commit (the others fail, as they should)`,
        );
      }
    }
    if (problems.length === 0)
      return { ...base, containerReasons: [], testReasons: [], exitReason, quarantined: false };
    return {
      ...base,
      containerReasons: [],
      testReasons: [reason(SUBKIND.quarantined, `baseline run: ${problems.join('; ')}`)],
      exitReason,
      quarantined: true,
    };
  }

  const testReasons = [
    ...tampering,
    ...(evidence.existing !== undefined ? gradeSuite('existing', evidence.existing, frozen) : []),
    ...gradeSuite('hidden', evidence.hidden, frozen),
  ];
  return { ...base, containerReasons: [], testReasons, exitReason, quarantined: false };
}
