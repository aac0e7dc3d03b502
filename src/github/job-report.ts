import * as core from '@actions/core';
import { capUtf8 } from '../report/cap-text.js';
import { safeLogLine } from '../report/escape-log.js';
import { STEP_SUMMARY_MAX_BYTES } from '../report/github-limits.js';
import type { WorkflowAnnotation } from '../report/workflow-annotations.js';
import { thrownText } from '../errors/thrown-text.js';

/** The job's own channels: its log, its summary page and workflow-command annotations. */

/** A line of the job log; untrusted parts are escaped, so any text may be passed. */
export function logLine(text: string): void {
  core.info(safeLogLine(text));
}

/**
 * Appends the Markdown to $GITHUB_STEP_SUMMARY (the renderers keep it far below the runner's 1024k;
 * the cap here only guards that bound). Outside a runner there is no summary file: that is
 * logged, not fatal. Returns whether it was written.
 */
export async function writeJobSummary(markdown: string): Promise<boolean> {
  if (!process.env.GITHUB_STEP_SUMMARY) {
    logLine('no GITHUB_STEP_SUMMARY: the job summary is not written');
    return false;
  }
  try {
    await core.summary.addRaw(capUtf8(markdown, STEP_SUMMARY_MAX_BYTES, ''), true).write();
    return true;
  } catch (error) {
    logLine(`the job summary could not be written: ${thrownText(error)}`);
    return false;
  } finally {
    core.summary.emptyBuffer();
  }
}

/** Issues each annotation as a workflow command (@actions/core escapes data and properties). */
export function issueAnnotations(annotations: readonly WorkflowAnnotation[]): void {
  for (const a of annotations) {
    if (a.level === 'error') core.error(a.message, a.properties);
    else if (a.level === 'warning') core.warning(a.message, a.properties);
    else core.notice(a.message, a.properties);
  }
}
