import type { DeniedTouch, DroppedHunk, GateReport, TestOutcome } from '../gate/report.js';
import { capUtf8, firstLines } from './cap-text.js';
import {
  ANNOTATION_MESSAGE_MAX_BYTES,
  ANNOTATION_PATH_MAX_BYTES,
  ANNOTATION_TITLE_MAX_BYTES,
} from './github-limits.js';
import { lineRange } from './summary-markdown.js';
import { plainOneLine, plainText } from './plain-text.js';

/** One check run annotation, in the API's own field names. */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: 'notice' | 'warning' | 'failure';
  message: string;
  title?: string;
}

/**
 * Where an annotation goes when the test report names no file: a failed hidden test lives in the
 * oracle, not in the repository, so there is no line of the PR to attach it to. GitHub lists such
 * an annotation in the check run without placing it on a file.
 */
export const NO_FILE_PATH = '.';

const MAX_MESSAGE_LINES = 200;

/**
 * The report's annotations, failures first: each denied path and each failed test (`failure`; a
 * frozen test's failure is a `warning`, since it does not fail the gate), then each dropped hunk
 * (`warning`, on its new-side lines). All text is plain and capped to GitHub's limits.
 */
export function renderAnnotations(report: GateReport): CheckAnnotation[] {
  const failedTests = report.tests.filter((t) => t.status === 'failed' || t.status === 'error');
  return [
    ...report.deniedTouches.map(deniedAnnotation),
    ...failedTests.filter((t) => !t.frozen).map(testAnnotation),
    ...failedTests.filter((t) => t.frozen).map(testAnnotation),
    ...report.droppedHunks.map(droppedAnnotation),
  ];
}

function deniedAnnotation(touch: DeniedTouch): CheckAnnotation {
  return annotation({
    path: touch.path,
    line: 1,
    level: 'failure',
    title: `oracle-gate: denied path (${touch.change})`,
    message: `The patch may not touch this path (${touch.change}): ${touch.rule}. The gate failed before any test ran.`,
  });
}

function testAnnotation(test: TestOutcome): CheckAnnotation {
  const frozen = test.frozen === true;
  const what = test.status === 'error' ? 'errored' : 'failed';
  const header = frozen
    ? `The ${test.suite} test ${test.id} ${what}; it is frozen by the flake ledger, so this alone does not fail the gate.`
    : `The ${test.suite} test ${test.id} ${what}.`;
  return annotation({
    path: testPath(test),
    line: test.line ?? 1,
    level: frozen ? 'warning' : 'failure',
    title: `oracle-gate: ${frozen ? 'frozen test' : 'test'} ${what}: ${test.id}`,
    message: test.message ? `${header}\n\n${firstLines(test.message, MAX_MESSAGE_LINES)}` : header,
  });
}

/** The test's file, or the file part of a `<file>::<name>` ID when it looks like a path. */
function testPath(test: TestOutcome): string {
  if (test.file) return test.file;
  const head = test.id.split('::')[0] ?? '';
  return /[/\\]|\.(py|js|mjs|cjs|ts|tsx|jsx|rb|go|rs|java|kt|php|cs|c|cc|cpp|sh)$/i.test(head)
    ? head
    : NO_FILE_PATH;
}

function droppedAnnotation(hunk: DroppedHunk): CheckAnnotation {
  const { start, end } = newSideLines(hunk);
  return annotation({
    path: hunk.path,
    line: start,
    endLine: end,
    level: 'warning',
    title: 'oracle-gate: hunk dropped',
    message:
      `This hunk (old lines ${lineRange(hunk.oldStart, hunk.oldLines)}, new lines ${lineRange(hunk.newStart, hunk.newLines)}) ` +
      `was dropped and did not reach the oracle: ${hunk.reason}.`,
  });
}

/**
 * The new-side lines a dropped hunk covers. A hunk that only deletes has an empty new range
 * `+N,0`, where N is the line after which the lines went; the annotation goes on that line, or
 * on line 1 when the deletion was at the top of the file (N = 0).
 */
export function newSideLines(hunk: Pick<DroppedHunk, 'newStart' | 'newLines'>): {
  start: number;
  end: number;
} {
  const start = positiveLine(hunk.newStart);
  if (!(hunk.newLines > 0)) return { start, end: start };
  return { start, end: Math.max(start, positiveLine(hunk.newStart + hunk.newLines - 1)) };
}

function positiveLine(line: number): number {
  return Number.isSafeInteger(line) && line >= 1 ? line : 1;
}

function annotation(fields: {
  path: string;
  line: number;
  endLine?: number;
  level: CheckAnnotation['annotation_level'];
  title: string;
  message: string;
}): CheckAnnotation {
  const start = positiveLine(fields.line);
  const path = capUtf8(plainOneLine(fields.path), ANNOTATION_PATH_MAX_BYTES);
  return {
    path: path === '' ? NO_FILE_PATH : path,
    start_line: start,
    end_line: Math.max(start, positiveLine(fields.endLine ?? start)),
    annotation_level: fields.level,
    message: capUtf8(plainText(fields.message), ANNOTATION_MESSAGE_MAX_BYTES),
    title: capUtf8(plainOneLine(fields.title), ANNOTATION_TITLE_MAX_BYTES),
  };
}

/** `items` in consecutive groups of at most `size`. */
export function inBatches<T>(items: readonly T[], size: number): T[][] {
  const batches: T[][] = [];
  for (let i = 0; i < items.length; i += size) batches.push(items.slice(i, i + size));
  return batches;
}
