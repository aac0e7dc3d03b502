import { NO_FILE_PATH, type CheckAnnotation } from './annotations.js';
import { capUtf8 } from './cap-text.js';
import { neutralizeLegacyCommands } from './escape-log.js';
import { LOG_LINE_MAX_BYTES, WORKFLOW_ANNOTATIONS_PER_LEVEL } from './github-limits.js';

/** An annotation to issue as a workflow command (`core.error` / `core.warning`). */
export interface WorkflowAnnotation {
  level: 'error' | 'warning' | 'notice';
  message: string;
  properties: { title?: string; file?: string; startLine?: number; endLine?: number };
}

/**
 * GitHub keeps 10 error and 10 warning annotations per step. One error is kept back for the
 * step's own failure message (core.setFailed issues one), so at most 9 report errors and 10
 * warnings; when there are more, the last slot of that level says how many more the job summary
 * holds.
 */
export const WORKFLOW_ERROR_BUDGET = WORKFLOW_ANNOTATIONS_PER_LEVEL - 1;
export const WORKFLOW_WARNING_BUDGET = WORKFLOW_ANNOTATIONS_PER_LEVEL;

/**
 * The check run annotations as workflow-command annotations, for when the token cannot write
 * checks. @actions/core escapes `%`, CR and LF in the message and also `:` and `,` in properties,
 * which keeps a message inside its command; the legacy `##[` prefix is neutralised too, and each
 * message is cut to a log-sized bound.
 */
export function toWorkflowAnnotations(annotations: readonly CheckAnnotation[]): WorkflowAnnotation[] {
  const errors = annotations.filter((a) => a.annotation_level === 'failure').map(toCommand('error'));
  const warnings = annotations.filter((a) => a.annotation_level === 'warning').map(toCommand('warning'));
  const notices = annotations.filter((a) => a.annotation_level === 'notice').map(toCommand('notice'));
  return [
    ...withinBudget(errors, WORKFLOW_ERROR_BUDGET, 'error'),
    ...withinBudget(warnings, WORKFLOW_WARNING_BUDGET, 'warning'),
    ...withinBudget(notices, WORKFLOW_ANNOTATIONS_PER_LEVEL, 'notice'),
  ];
}

function toCommand(level: WorkflowAnnotation['level']) {
  return (a: CheckAnnotation): WorkflowAnnotation => {
    const properties: WorkflowAnnotation['properties'] = {};
    if (a.title) properties.title = neutralizeLegacyCommands(a.title);
    if (a.path !== NO_FILE_PATH) {
      properties.file = neutralizeLegacyCommands(a.path);
      properties.startLine = a.start_line;
      properties.endLine = a.end_line;
    }
    return { level, message: capUtf8(neutralizeLegacyCommands(a.message), LOG_LINE_MAX_BYTES), properties };
  };
}

function withinBudget(
  items: WorkflowAnnotation[],
  budget: number,
  level: WorkflowAnnotation['level'],
): WorkflowAnnotation[] {
  if (items.length <= budget) return items;
  const kept = items.slice(0, budget - 1);
  const more = items.length - kept.length;
  return [
    ...kept,
    {
      level,
      // The job summary is cut to GitHub's size limit, so it may not list them all: the log does.
      message: `oracle-gate: ${more} more ${level === 'error' ? 'failures' : level + 's'} are not shown here (GitHub shows ${WORKFLOW_ANNOTATIONS_PER_LEVEL} per step): the job summary lists as many as fit, the oracle log all of them.`,
      properties: { title: `oracle-gate: ${more} more` },
    },
  ];
}
