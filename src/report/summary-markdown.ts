import type { GateReport, TestOutcome } from '../gate/report.js';
import { capUtf8, firstLines, utf8Length } from './cap-text.js';
import { escapeMarkdownText as esc, markdownCode as code, tableRow } from './escape-markdown.js';
import { CHECK_SUMMARY_MAX_BYTES } from './github-limits.js';
import { verdictLabel } from './verdict-title.js';

/** What the reporter knows besides the report itself. */
export interface SummaryContext {
  headSha?: string;
  baseSha?: string;
  /** The `oracle-hash` input, shown beside the computed hash. */
  pinnedOracleHash?: string;
  /** Where the full oracle log is, for the "see the log" notes. */
  logPath?: string;
}

/** Rows per table; the rest are counted and left to the oracle log. */
export const MAX_TABLE_ROWS = 200;
// Bounds on one untrusted field before escaping, so that one row can never crowd out the rest.
const MAX_PATH_CHARS = 300;
const MAX_ID_CHARS = 300;
const MAX_CELL_MESSAGE_CHARS = 600;
const MAX_CELL_MESSAGE_LINES = 6;
const MAX_REASON_CHARS = 2_000;
const MAX_REASON_LINES = 20;

/**
 * The report as GitHub-flavoured Markdown for a check run summary or the job summary: verdict,
 * chain or reasons, the hashes, counts, per-stage timing and tables of denied paths, failed tests
 * and dropped hunks. Every untrusted field is escaped (escape-markdown.ts) and bounded; the whole
 * is cut at a line boundary to `maxBytes` with a note saying so, so the result is always within
 * the limit and always well-formed Markdown.
 */
export function renderSummary(
  report: GateReport,
  context: SummaryContext = {},
  maxBytes: number = CHECK_SUMMARY_MAX_BYTES,
): string {
  const lines = [
    ...headline(report),
    '',
    ...factsTable(report, context),
    ...reasonsOrChain(report),
    ...notesSection(report),
    ...deniedSection(report, context),
    ...failedTestsSection(report, context),
    ...droppedSection(report, context),
    ...stagesSection(report),
  ];
  return fitLines(lines, maxBytes);
}

function headline(report: GateReport): string[] {
  const label = verdictLabel(report);
  const icon = label === 'Pass' ? '✅' : label === 'Fail' ? '❌' : '⚠️';
  const lines = [`## ${icon} oracle-gate: ${label}`];
  if (report.verdict.kind === 'fail') {
    const first = report.verdict.reasons[0]!;
    lines.push('', `${code(first.subkind)}: ${reasonText(first.message)}`);
  } else if (!report.attested) {
    lines.push(
      '',
      'This Pass holds no attested stage: it is reported, never counted as evidence, so the check concludes **failure**.',
    );
  }
  return lines;
}

function factsTable(report: GateReport, context: SummaryContext): string[] {
  const rows: [string, string][] = [
    ['Verdict', `**${verdictLabel(report)}**`],
    ['Mode', code(report.mode)],
  ];
  if (context.headSha) rows.push(['Head', code(context.headSha)]);
  if (context.baseSha) rows.push(['Base', code(context.baseSha)]);
  rows.push(['tests_hash', report.testsHash ? code(report.testsHash) : '_none: no test ran_']);
  rows.push(['Oracle hash', report.oracleHash ? code(report.oracleHash) : '_not computed_']);
  if (context.pinnedOracleHash) rows.push(['Pinned oracle hash', code(context.pinnedOracleHash)]);
  rows.push(['Image', report.imageDigest ? code(report.imageDigest) : '_not run_']);
  rows.push(['Diff sha256', report.diffSha256 ? code(report.diffSha256) : '_none_']);
  rows.push(['Tests', testCounts(report.tests)]);
  rows.push(['Denied paths', String(report.deniedTouches.length)]);
  rows.push(['Dropped hunks', String(report.droppedHunks.length)]);
  if (report.mode === 'baseline') rows.push(['Quarantined', report.quarantined ? '**yes**' : 'no']);
  return ['| | |', '| --- | --- |', ...rows.map((row) => tableRow(row)), ''];
}

function testCounts(tests: readonly TestOutcome[]): string {
  if (tests.length === 0) return '_none ran_';
  const count = (status: TestOutcome['status']) => tests.filter((t) => t.status === status).length;
  const frozen = tests.filter((t) => t.frozen).length;
  const parts = [
    `${tests.length} ran`,
    `${count('passed')} passed`,
    `${count('failed')} failed`,
    `${count('error')} errors`,
    `${count('skipped')} skipped`,
  ];
  if (frozen > 0) parts.push(`${frozen} frozen`);
  return parts.join(', ');
}

function reasonsOrChain(report: GateReport): string[] {
  if (report.verdict.kind === 'pass') {
    const chain = report.verdict.chain.map(code).join(' → ');
    return ['### Chain', '', chain === '' ? '_empty_' : chain, ''];
  }
  return [
    '### Reasons',
    '',
    ...report.verdict.reasons.map((r) => `- ${code(r.subkind)}: ${reasonText(r.message)}`),
    '',
  ];
}

function reasonText(message: string): string {
  return esc(capUtf8(firstLines(message, MAX_REASON_LINES), MAX_REASON_CHARS));
}

function notesSection(report: GateReport): string[] {
  if (report.notes.length === 0) return [];
  return ['### Notes', '', ...report.notes.map((n) => `- ${reasonText(n)}`), ''];
}

function deniedSection(report: GateReport, context: SummaryContext): string[] {
  return table(
    'Denied paths',
    ['Path', 'Change', 'Rule'],
    report.deniedTouches.map((d) => [pathCell(d.path), code(d.change), esc(cut(d.rule, MAX_ID_CHARS))]),
    context,
  );
}

function failedTestsSection(report: GateReport, context: SummaryContext): string[] {
  const failed = report.tests.filter((t) => t.status === 'failed' || t.status === 'error');
  return table(
    'Failed tests',
    ['Test', 'Suite', 'Status', 'Message'],
    failed.map((t) => [
      code(cut(t.id, MAX_ID_CHARS)),
      esc(t.suite),
      t.frozen ? `${esc(t.status)} (frozen: does not fail the gate)` : esc(t.status),
      t.message ? esc(capUtf8(firstLines(t.message, MAX_CELL_MESSAGE_LINES), MAX_CELL_MESSAGE_CHARS)) : '',
    ]),
    context,
  );
}

function droppedSection(report: GateReport, context: SummaryContext): string[] {
  return table(
    'Dropped hunks',
    ['Path', 'Old lines', 'New lines', 'Reason'],
    report.droppedHunks.map((h) => [
      pathCell(h.path),
      lineRange(h.oldStart, h.oldLines),
      lineRange(h.newStart, h.newLines),
      esc(cut(h.reason, MAX_ID_CHARS)),
    ]),
    context,
  );
}

function stagesSection(report: GateReport): string[] {
  if (report.stages.length === 0) return [];
  const total = report.stages.reduce((sum, s) => sum + s.ms, 0);
  return [
    '### Stages',
    '',
    tableRow(['Stage', 'Outcome', 'Time']),
    tableRow(['---', '---', '---:']),
    ...report.stages.map((s) =>
      tableRow([code(s.id), s.outcome === 'pass' ? 'pass' : '**fail**', duration(s.ms)]),
    ),
    tableRow(['total', '', duration(total)]),
    '',
  ];
}

function table(title: string, header: string[], rows: string[][], context: SummaryContext): string[] {
  if (rows.length === 0) return [];
  const shown = rows.slice(0, MAX_TABLE_ROWS);
  const lines = [
    `### ${title} (${rows.length})`,
    '',
    tableRow(header),
    tableRow(header.map(() => '---')),
    ...shown.map((cells) => tableRow(cells)),
    '',
  ];
  if (rows.length > shown.length)
    lines.push(`_…and ${rows.length - shown.length} more: ${seeLog(context)}._`, '');
  return lines;
}

function pathCell(path: string): string {
  return code(cut(path, MAX_PATH_CHARS));
}

function cut(text: string, maxChars: number): string {
  return capUtf8(text, maxChars);
}

/**
 * `start,count` as a human range: lines 3–7, line 3, "none (after line 3)" for a pure deletion,
 * or "none" for the empty side of an added or deleted file (`-0,0`, `+0,0`).
 */
export function lineRange(start: number, count: number): string {
  if (count <= 0) return start > 0 ? `none (after line ${start})` : 'none';
  if (count === 1) return `${start}`;
  return `${start}–${start + count - 1}`;
}

export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${(ms / 1_000).toFixed(2)} s`;
}

function seeLog(context: SummaryContext): string {
  return context.logPath ? `see the oracle log ${pathCell(context.logPath)}` : 'see the oracle log';
}

/** Whole lines while they fit, then a note: cutting between lines never breaks an escape or a row. */
function fitLines(lines: readonly string[], maxBytes: number): string {
  const whole = lines.join('\n') + '\n';
  if (utf8Length(whole) <= maxBytes) return whole;
  let note = `\n_The summary was cut to the GitHub limit of ${maxBytes} bytes: the oracle log holds everything._\n`;
  if (utf8Length(note) > maxBytes) note = '';
  let budget = maxBytes - utf8Length(note);
  const kept: string[] = [];
  for (const line of lines) {
    const size = utf8Length(line) + 1;
    if (size > budget) break;
    kept.push(line + '\n');
    budget -= size;
  }
  return kept.join('') + note;
}
