import { writeFile } from 'node:fs/promises';
import type { DroppedHunk, StageTiming } from '../gate/report.js';
import type { OracleRunConfig } from './run-config.js';
import type { OracleRunResult } from './run-oracle-container.js';

/**
 * The oracle log: everything the seed lists (test output, dropped hunks, timing, the exit reason,
 * the image digest, the diff hash) as plain text for a maintainer. Untrusted text (container
 * output, test names and messages, harness details, paths from the diff) goes on lines that start
 * with `  | `, with control characters made visible, so nothing in it can pose as a section, a
 * workflow command (`::...` at the start of a line) or a terminal escape.
 */
export interface OracleLogInput {
  result: OracleRunResult;
  config?: OracleRunConfig;
  /** From the path-policy stage. */
  droppedHunks?: readonly DroppedHunk[];
  baseSha?: string;
  headSha?: string;
  oracleHash?: string;
  /** ISO time the run started (passed in so rendering stays pure). */
  startedAt?: string;
  /** The gate's per-stage timings, when the gate writes the log. */
  stages?: readonly StageTiming[];
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f\u0085\u2028\u2029]/g;

/** Control characters as visible `\\xNN` escapes, so untrusted text cannot forge log lines. */
export function visible(text: string): string {
  return text.replace(CONTROL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Untrusted text as quoted lines. */
export function quoted(text: string): string[] {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.map((line) => `  | ${visible(line)}`);
}

function field(label: string, value: string | number | undefined): string[] {
  return value === undefined ? [] : [`${label}: ${visible(String(value))}`];
}

function section(title: string, body: string[]): string[] {
  return ['', `== ${title}`, ...(body.length > 0 ? body : ['  (none)'])];
}

export function renderOracleLog(input: OracleLogInput): string {
  const { result, config } = input;
  const harnessExit = result.containerExitCode === null ? 'none' : String(result.containerExitCode);
  const lines: string[] = [
    'oracle-gate oracle log',
    ...field('mode', result.mode),
    ...field('started', input.startedAt),
    ...field('base', input.baseSha),
    ...field('head', input.headSha),
    ...field('oracle hash', input.oracleHash),
    ...field('image', result.imageRef),
    ...field('image id', result.imageId),
    ...field(
      'image pulled',
      result.imagePulled === undefined ? undefined : result.imagePulled ? 'yes' : 'no',
    ),
    ...field('mirror commit', result.mirrorCommit),
    ...field('base tree', result.baseTree),
    ...field('diff sha256', result.diffSha256),
    ...field('diff bytes', result.diffBytes),
    ...field('container', result.containerName),
    `exit reason: ${result.exitReason} (harness exit ${harnessExit}${result.timedOut ? ', timed out' : ''}${result.oomKilled ? ', out of memory' : ''})`,
    `tests_hash: ${result.testsHash ?? '(no test ran)'}`,
    `quarantined: ${result.quarantined ? 'yes' : 'no'}`,
  ];
  lines.push(
    ...section(
      'fail reasons',
      result.reasons.flatMap((r) => [`  ${r.subkind}`, ...quoted(r.message)]),
    ),
  );
  lines.push(
    ...section(
      `dropped hunks (${input.droppedHunks?.length ?? 0})`,
      (input.droppedHunks ?? []).flatMap((h) => [
        `  -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines}`,
        ...quoted(`${h.path}: ${h.reason}`),
      ]),
    ),
  );
  lines.push(
    ...section('timing', [
      ...(input.stages ?? []).map((s) => `  stage ${s.id}: ${s.ms} ms (${s.outcome})`),
      ...result.timings.map((t) => `  ${visible(t.step)}: ${t.ms} ms`),
    ]),
  );
  if (config !== undefined) {
    const env = Object.keys(config.env).sort();
    lines.push(
      ...section('oracle config', [
        ...(config.existingSuite
          ? [
              '  existing suite command:',
              ...quoted(config.existingSuite.command),
              '  restored to base:',
              ...quoted(config.existingSuite.paths.join('\n')),
            ]
          : ['  existing suite: none']),
        '  hidden tests command:',
        ...quoted(config.hiddenTests.command),
        `  hidden tests dest: ${visible(config.hiddenTests.dest)}`,
        `  env: ${env.length === 0 ? '(none beyond the fixed ones)' : ''}`,
        ...env.flatMap((k) => quoted(`${k}=${config.env[k]}`)),
        `  limits: memory ${config.limits.memory}, cpus ${config.limits.cpus}, pids ${config.limits.pids}; timeout ${config.timeoutSeconds} s; user ${visible(config.user)}; SOURCE_DATE_EPOCH ${config.sourceDateEpoch}`,
      ]),
    );
  }
  lines.push(
    ...section(
      'docker create',
      result.dockerArgs.length > 0 ? quoted(['docker', ...result.dockerArgs].join(' \\\n    ')) : [],
    ),
  );
  lines.push(
    ...section(
      'harness status',
      result.harnessStatus.flatMap((r) =>
        quoted(
          `${r.kind} ${Object.entries(r.fields)
            .map(([k, v]) => `${k}=${v}`)
            .join(' ')}`,
        ),
      ),
    ),
  );
  lines.push(
    ...section(
      `tests (${result.outcomes.length})`,
      result.outcomes.flatMap((o) => [
        `  ${o.suite.padEnd(8)} ${o.status.padEnd(7)}${o.frozen ? ' frozen' : ''}`,
        ...quoted(o.id),
        ...(o.message !== undefined && o.status !== 'passed' ? quoted(o.message).map((l) => `    ${l}`) : []),
      ]),
    ),
  );
  lines.push(
    ...section(
      'hidden test IDs observed (tests.lock proposal)',
      result.hiddenIds.flatMap((id) => quoted(id)),
    ),
  );
  lines.push(
    ...section(
      'notes',
      result.notes.flatMap((n) => quoted(n)),
    ),
  );
  lines.push(...section('container stdout', quoted(result.stdout)));
  lines.push(...section('container stderr', quoted(result.stderr)));
  return `${lines.join('\n')}\n`;
}

export async function writeOracleLog(path: string, input: OracleLogInput): Promise<void> {
  await writeFile(path, renderOracleLog(input), { mode: 0o644 });
}
