import { quoted, renderOracleLog, visible } from '../container/oracle-log.js';
import type { OracleRunConfig } from '../container/run-config.js';
import { notRunResult, type OracleRunResult } from '../container/run-oracle-container.js';
import type { Touch } from '../policy/evaluate-policy.js';
import { serializeVerdict } from '../verdict/serialize.js';
import type { GateReport } from './report.js';

/**
 * The oracle log of a whole gate run: the container layer's log (src/container/oracle-log.ts:
 * header, fail reasons, dropped hunks, per-stage and per-step timing, config, docker arguments,
 * harness status, tests, notes, container output), followed by what only the gate knows (the
 * verdict, the stages' attestation, denied and touched paths, baseline proposals). When no
 * container ran, the container part says so (`exit reason: not-run`) and carries the gate's
 * reasons. Untrusted text goes on `  | ` lines with control characters made visible, as there.
 */
export interface GateLogInput {
  report: GateReport;
  /** The oracle run, when the container stage ran. */
  container?: OracleRunResult;
  config?: OracleRunConfig;
  touched?: readonly Touch[];
  oracleDir: string;
  pinnedOracleHash: string;
  startedAt: string;
}

function section(title: string, body: string[]): string[] {
  return ['', `== ${title}`, ...(body.length > 0 ? body : ['  (none)'])];
}

/** The container result the log shows when no container ran: nothing but the gate's reasons. */
function notRun(report: GateReport): OracleRunResult {
  return notRunResult(report.mode, report.verdict.kind === 'fail' ? report.verdict.reasons : [], {
    containerReasons: [],
  });
}

export function renderGateLog(input: GateLogInput): string {
  const { report } = input;
  const verdictReasons = report.verdict.kind === 'fail' ? report.verdict.reasons : [];
  // The container part's reasons and notes are the gate's: one list of each in the whole log.
  const result: OracleRunResult = {
    ...(input.container ?? notRun(report)),
    reasons: verdictReasons,
    notes: report.notes,
  };
  // The policy stage knows the filtered diff's hash even when no container ran.
  if (result.diffSha256 === undefined && report.diffSha256 !== undefined)
    result.diffSha256 = report.diffSha256;
  const containerLog = renderOracleLog({
    result,
    ...(input.config ? { config: input.config } : {}),
    droppedHunks: report.droppedHunks,
    ...(report.baseSha ? { baseSha: report.baseSha } : {}),
    ...(report.headSha ? { headSha: report.headSha } : {}),
    ...(report.oracleHash ? { oracleHash: report.oracleHash } : {}),
    startedAt: input.startedAt,
    stages: report.stages,
  });

  const lines: string[] = [];
  lines.push(
    ...section('gate verdict (oracle/1)', [
      ...quoted(serializeVerdict(report.verdict)),
      `  attested: ${report.attested ? 'yes' : 'no'}`,
      ...report.stages.map(
        (s) =>
          `  stage ${s.id}: ${s.outcome}${s.attested === false ? ' (not attested: nothing to check)' : ''}`,
      ),
    ]),
  );
  lines.push(
    ...section('gate inputs', [
      '  oracle directory:',
      ...quoted(input.oracleDir),
      `  pinned oracle hash: ${visible(input.pinnedOracleHash)}`,
      ...(report.mergeBase ? [`  merge base: ${report.mergeBase}`] : []),
    ]),
  );
  lines.push(
    ...section(
      `denied touches (${report.deniedTouches.length})`,
      report.deniedTouches.flatMap((d) => [`  ${d.change}`, ...quoted(`${d.path}: ${d.rule}`)]),
    ),
  );
  lines.push(
    ...section(
      `touched paths (${input.touched?.length ?? 0})`,
      (input.touched ?? []).flatMap((t) => [`  ${t.change}`, ...quoted(t.path)]),
    ),
  );
  if (report.mode === 'baseline')
    lines.push(
      ...section(
        'baseline proposals',
        report.proposals
          ? [
              '  tests.lock:',
              ...quoted(report.proposals.testsLock),
              '  flake ledger:',
              ...quoted(report.proposals.flakeLedger),
            ]
          : [],
      ),
    );
  return `${containerLog}${lines.join('\n')}\n`;
}
