import type { DroppedHunk, GateReport } from '../gate/report.js';
import { serializeVerdict } from '../verdict/serialize.js';
import type { Verdict } from '../verdict/schema.js';
import { utf8Length } from './cap-text.js';
import { DROPPED_HUNKS_OUTPUT_MAX_BYTES } from './github-limits.js';

/** The action's outputs (DESIGN.md, Reporting), plus `attested` and `dropped-hunks-count`. */
export interface ActionOutputs {
  verdict: 'pass' | 'fail';
  'verdict-json': string;
  attested: 'true' | 'false';
  'tests-hash': string;
  'oracle-hash': string;
  'diff-sha256': string;
  'dropped-hunks': string;
  'dropped-hunks-count': string;
  quarantined: 'true' | 'false';
  'log-path': string;
  'check-run-id': string;
}

export function renderOutputs(
  report: GateReport,
  extra: { logPath?: string; checkRunId?: number },
): ActionOutputs {
  return {
    verdict: report.verdict.kind,
    'verdict-json': serializeVerdict(wellFormedVerdict(report.verdict)),
    attested: report.verdict.kind === 'pass' && report.attested ? 'true' : 'false',
    'tests-hash': report.testsHash ?? '',
    'oracle-hash': report.oracleHash ?? '',
    'diff-sha256': report.diffSha256 ?? '',
    'dropped-hunks': droppedHunksJson(report.droppedHunks),
    'dropped-hunks-count': String(report.droppedHunks.length),
    quarantined: report.quarantined ? 'true' : 'false',
    'log-path': report.logPath ?? extra.logPath ?? '',
    'check-run-id': extra.checkRunId === undefined ? '' : String(extra.checkRunId),
  };
}

/**
 * serializeVerdict refuses lone surrogates (a Rust string cannot hold one). A reason message
 * carries hostile text, so one that holds a lone surrogate gets U+FFFD in its place here rather
 * than making the whole report unserialisable.
 */
export function wellFormedVerdict(verdict: Verdict): Verdict {
  if (verdict.kind === 'pass') return { kind: 'pass', chain: verdict.chain.map((id) => id.toWellFormed()) };
  return {
    kind: 'fail',
    reasons: verdict.reasons.map((r) => ({
      kind: r.kind,
      subkind: r.subkind.toWellFormed(),
      message: r.message.toWellFormed(),
    })),
  };
}

/**
 * A JSON array of `{path, old_start, old_lines, new_start, new_lines, reason}`, whole entries only,
 * cut to DROPPED_HUNKS_OUTPUT_MAX_BYTES (a job's outputs share 1 MB); `dropped-hunks-count` holds
 * the full count, the oracle log every hunk.
 */
export function droppedHunksJson(hunks: readonly DroppedHunk[]): string {
  const entries: string[] = [];
  let size = 2;
  for (const h of hunks) {
    const entry = JSON.stringify({
      path: h.path.toWellFormed(),
      old_start: h.oldStart,
      old_lines: h.oldLines,
      new_start: h.newStart,
      new_lines: h.newLines,
      reason: h.reason.toWellFormed(),
    });
    const added = utf8Length(entry) + (entries.length > 0 ? 1 : 0);
    if (size + added > DROPPED_HUNKS_OUTPUT_MAX_BYTES) break;
    entries.push(entry);
    size += added;
  }
  return `[${entries.join(',')}]`;
}
