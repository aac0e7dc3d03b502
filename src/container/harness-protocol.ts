/**
 * The contract between src/container/harness.sh (inside the container) and the host: where things
 * are mounted, the harness's exit codes, and its status file. Keep the numbers in step with
 * harness.sh (a test reads both).
 */

export const CONTAINER_PATHS = {
  /** Read-only: harness.sh, the job's settings, diff.patch in grade mode. */
  job: '/oracle/job',
  /** Read-only: the bare mirror holding the base commit. */
  mirror: '/oracle/mirror.git',
  /** Read-only: a snapshot of the oracle's hidden tests. */
  hidden: '/oracle/hidden',
  /** The only writable mount: one folder per suite, and the status file. */
  reports: '/oracle/reports',
  /** tmpfs: the checkout. */
  work: '/work',
  /** tmpfs, and $HOME. */
  tmp: '/tmp',
} as const;

export const HARNESS_EXIT = {
  ok: 0,
  patchDoesNotApply: 10,
  existingSuiteFailed: 11,
  hiddenTestsFailed: 12,
  reportMissing: 13,
  harnessError: 20,
} as const;

export type HarnessExitReason =
  | 'ok'
  | 'patch-does-not-apply'
  | 'existing-suite-failed'
  | 'hidden-tests-failed'
  | 'report-missing'
  | 'harness-error';

export function harnessExitReason(code: number | null): HarnessExitReason | undefined {
  switch (code) {
    case HARNESS_EXIT.ok:
      return 'ok';
    case HARNESS_EXIT.patchDoesNotApply:
      return 'patch-does-not-apply';
    case HARNESS_EXIT.existingSuiteFailed:
      return 'existing-suite-failed';
    case HARNESS_EXIT.hiddenTestsFailed:
      return 'hidden-tests-failed';
    case HARNESS_EXIT.reportMissing:
      return 'report-missing';
    case HARNESS_EXIT.harnessError:
      return 'harness-error';
    default:
      return undefined;
  }
}

/**
 * One line of the status file: a kind word, then `key=value` fields; a `detail=` field runs to the
 * end of the line. Examples:
 *   step name=apply rc=0 ms=12
 *   step name=apply rc=1 ms=9 detail=error: patch failed: calc/core.py:3
 *   suite name=existing rc=1 ms=840 report=present
 *   exit code=11 reason=existing-suite-failed
 * The file sits in the writable mount, so once PR code has run it may have been rewritten: the
 * host believes the container's exit code first and treats any disagreement as tampering.
 */
export interface StatusRecord {
  kind: string;
  fields: Record<string, string>;
}

const MAX_STATUS_LINES = 200;

export function parseStatusFile(text: string): StatusRecord[] {
  const records: StatusRecord[] = [];
  for (const line of text.split('\n').slice(0, MAX_STATUS_LINES)) {
    if (line.trim() === '') continue;
    const detailAt = line.indexOf(' detail=');
    const head = detailAt >= 0 ? line.slice(0, detailAt) : line;
    const [kind, ...pairs] = head.split(' ').filter((t) => t !== '');
    if (kind === undefined) continue;
    const fields: Record<string, string> = Object.create(null) as Record<string, string>;
    for (const pair of pairs) {
      const eq = pair.indexOf('=');
      if (eq > 0) fields[pair.slice(0, eq)] = pair.slice(eq + 1);
    }
    if (detailAt >= 0) fields.detail = line.slice(detailAt + ' detail='.length).slice(0, 1000);
    records.push({ kind, fields });
  }
  return records;
}
