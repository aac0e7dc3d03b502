import type { GateReport } from '../gate/report.js';
import { firstLines } from './cap-text.js';
import { safeLogLine } from './escape-log.js';
import { duration, lineRange, type SummaryContext } from './summary-markdown.js';
import { verdictLabel } from './verdict-title.js';

/** Items per list in the job log; the oracle log holds the rest. */
export const MAX_LOG_ITEMS = 200;
const MAX_MESSAGE_LINES = 20;

/**
 * The report as job-log lines. Every line goes through safeLogLine, so none can start a workflow
 * command, hold a line break or exceed the log-line bound, whatever the report holds.
 */
export function renderLogLines(report: GateReport, context: SummaryContext = {}): string[] {
  const raw: string[] = [`oracle-gate verdict: ${verdictLabel(report)}`];
  if (report.verdict.kind === 'fail') {
    for (const reason of report.verdict.reasons) {
      raw.push(`  reason ${reason.subkind}: ${firstLines(reason.message, MAX_MESSAGE_LINES)}`);
    }
  } else {
    raw.push(`  chain: ${report.verdict.chain.join(' > ')}`);
    if (!report.attested) raw.push('  this Pass holds no attested stage: it is not evidence');
  }
  raw.push(`  mode: ${report.mode}`);
  if (context.headSha) raw.push(`  head: ${context.headSha}`);
  if (context.baseSha) raw.push(`  base: ${context.baseSha}`);
  raw.push(`  tests_hash: ${report.testsHash ?? '(none: no test ran)'}`);
  raw.push(`  oracle hash: ${report.oracleHash ?? '(not computed)'}`);
  raw.push(`  image: ${report.imageDigest ?? '(not run)'}`);
  raw.push(`  diff sha256: ${report.diffSha256 ?? '(none)'}`);
  if (report.mode === 'baseline') raw.push(`  quarantined: ${report.quarantined}`);
  for (const note of report.notes) raw.push(`  note: ${note}`);
  for (const stage of report.stages)
    raw.push(`  stage ${stage.id}: ${stage.outcome} in ${duration(stage.ms)}`);
  list(raw, report.deniedTouches, (d) => `  denied path ${d.path} (${d.change}): ${d.rule}`);
  list(
    raw,
    report.tests.filter((t) => t.status === 'failed' || t.status === 'error'),
    (t) =>
      `  ${t.frozen ? 'frozen ' : ''}${t.status} ${t.suite} test ${t.id}` +
      (t.message ? `: ${firstLines(t.message, MAX_MESSAGE_LINES)}` : ''),
  );
  list(
    raw,
    report.droppedHunks,
    (h) =>
      `  dropped hunk ${h.path} old ${lineRange(h.oldStart, h.oldLines)} new ${lineRange(h.newStart, h.newLines)}: ${h.reason}`,
  );
  if (context.logPath) raw.push(`  oracle log: ${context.logPath}`);
  return raw.map(safeLogLine);
}

function list<T>(out: string[], items: readonly T[], line: (item: T) => string): void {
  for (const item of items.slice(0, MAX_LOG_ITEMS)) out.push(line(item));
  if (items.length > MAX_LOG_ITEMS)
    out.push(`  ...and ${items.length - MAX_LOG_ITEMS} more in the oracle log`);
}
