import { braceExpand } from 'minimatch';
import { parseImageRef } from './image-ref.js';

/**
 * What the container layer needs from `oracle.json`, in camelCase, one field per key of
 * DESIGN.md's normative shape (the integrator maps the parsed file onto it, defaults applied):
 *   image -> image, existing_suite -> existingSuite, hidden_tests -> hiddenTests, env -> env,
 *   timeout_seconds -> timeoutSeconds, limits -> limits, source_date_epoch -> sourceDateEpoch,
 *   user -> user.
 * validateRunConfig re-checks everything this layer relies on, whoever validated it before.
 */
export interface OracleRunConfig {
  /** `name@sha256:<64 hex>`; a tag alone is refused. */
  image: string;
  /** Absent: the oracle has no existing suite. */
  existingSuite?: {
    /** Run by `sh -c` in the checkout, with ORACLE_REPORT_DIR set. */
    command: string;
    /** Globs (minimatch syntax, braces allowed, no negation) restored to their base version. */
    paths: string[];
  };
  hiddenTests: {
    command: string;
    /** Where the hidden tests go in the checkout, relative, e.g. `oracle_tests`. */
    dest: string;
  };
  /** Added to the fixed environment; may not redefine it. */
  env: Record<string, string>;
  timeoutSeconds: number;
  limits: { memory: string; cpus: number; pids: number };
  sourceDateEpoch: number;
  /** `uid[:gid]` or a user name known to the image; never root. */
  user: string;
}

/** Set by the gate in every run; oracle.json's `env` may not redefine them. */
export const RESERVED_ENV = [
  'TZ',
  'LC_ALL',
  'PYTHONHASHSEED',
  'SOURCE_DATE_EPOCH',
  'HOME',
  'ORACLE_REPORT_DIR',
] as const;

export function fixedEnvironment(sourceDateEpoch: number): Record<string, string> {
  return {
    TZ: 'UTC',
    LC_ALL: 'C.UTF-8',
    PYTHONHASHSEED: '0',
    SOURCE_DATE_EPOCH: String(sourceDateEpoch),
    HOME: '/tmp',
  };
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MEMORY = /^[1-9][0-9]{0,12}[bkmg]?$/i;
const USER = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,31}(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,31})?$/;

function isRoot(user: string): boolean {
  const [uid, gid] = user.split(':');
  return uid === '0' || uid === 'root' || gid === '0' || gid === 'root';
}

/** A relative path inside the checkout: no `..`, `.`, empty or `.git` segment, no control chars. */
export function checkRelativePath(path: string): string | undefined {
  if (path === '' || path.startsWith('/')) return 'must be a relative path';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f\\]/.test(path)) return 'must not contain control characters or backslashes';
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.' || segment === '..')
      return 'must not contain empty, `.` or `..` segments';
    if (segment.toLowerCase() === '.git') return 'must not enter .git';
  }
  return undefined;
}

function checkGlobPath(glob: string): string | undefined {
  if (glob === '' || glob.startsWith('/')) return 'must be relative to the repository root';
  // eslint-disable-next-line no-control-regex
  if (/[\x00-\x1f\x7f]/.test(glob)) return 'must not contain control characters';
  if (glob.split('/').some((s) => s === '' || s === '.' || s === '..'))
    return 'must not contain empty, `.` or `..` segments';
  return undefined;
}

/**
 * The existing suite's globs as git pathspecs for the harness (`:(glob)` magic, which matches like
 * minimatch with `dot: true` for `*`, `?`, `**`, `[...]` and backslash escapes). Braces are
 * expanded here, since git has none; a trailing `/` means the whole folder; negation and paths
 * leaving the checkout are refused. Extglobs (`+(a|b)`) have no git equivalent.
 */
export function restorePathspecs(globs: readonly string[]): { pathspecs: string[] } | { error: string } {
  const pathspecs: string[] = [];
  for (const glob of globs) {
    if (glob.startsWith('!'))
      return { error: `existing_suite.paths: ${JSON.stringify(glob)}: negation is not supported` };
    for (const expanded of braceExpand(glob.endsWith('/') ? `${glob}**` : glob)) {
      const problem = checkGlobPath(expanded);
      if (problem !== undefined) return { error: `existing_suite.paths: ${JSON.stringify(glob)} ${problem}` };
      pathspecs.push(`:(glob)${expanded}`);
    }
  }
  return { pathspecs: [...new Set(pathspecs)] };
}

function checkCommand(where: string, command: unknown, problems: string[]): void {
  if (typeof command !== 'string' || command.trim() === '')
    problems.push(`${where}: must be a non-empty string`);
  else if (command.includes('\0')) problems.push(`${where}: must not contain NUL`);
}

/** Every problem this layer sees in the config, one line each naming the oracle.json field. */
export function validateRunConfig(config: OracleRunConfig): string[] {
  const problems: string[] = [];
  const image = parseImageRef(config.image);
  if (!image.ok) problems.push(`image: ${image.error}`);
  if (config.existingSuite !== undefined) {
    checkCommand('existing_suite.command', config.existingSuite.command, problems);
    const specs = restorePathspecs(config.existingSuite.paths);
    if ('error' in specs) problems.push(specs.error);
  }
  checkCommand('hidden_tests.command', config.hiddenTests.command, problems);
  const destProblem = checkRelativePath(config.hiddenTests.dest);
  if (destProblem !== undefined) problems.push(`hidden_tests.dest: ${destProblem}`);
  for (const [name, value] of Object.entries(config.env)) {
    if (!ENV_NAME.test(name)) problems.push(`env.${name}: not a valid environment variable name`);
    else if ((RESERVED_ENV as readonly string[]).includes(name))
      problems.push(`env.${name}: set by the gate itself`);
    else if (name.startsWith('GIT_'))
      problems.push(`env.${name}: GIT_* variables would change the harness's git`);
    if (typeof value !== 'string' || value.includes('\0'))
      problems.push(`env.${name}: must be a string without NUL`);
  }
  if (
    !Number.isFinite(config.timeoutSeconds) ||
    config.timeoutSeconds <= 0 ||
    config.timeoutSeconds > 86_400
  ) {
    problems.push('timeout_seconds: must be a number of seconds in (0, 86400]');
  }
  if (!MEMORY.test(config.limits.memory)) problems.push('limits.memory: must be like 512m or 2g');
  if (!Number.isFinite(config.limits.cpus) || config.limits.cpus <= 0 || config.limits.cpus > 1024) {
    problems.push('limits.cpus: must be a positive number');
  }
  if (!Number.isInteger(config.limits.pids) || config.limits.pids < 1 || config.limits.pids > 4_194_304) {
    problems.push('limits.pids: must be a positive integer');
  }
  if (!Number.isInteger(config.sourceDateEpoch) || config.sourceDateEpoch < 0) {
    problems.push('source_date_epoch: must be a non-negative integer');
  }
  if (!USER.test(config.user)) problems.push('user: must be uid[:gid] or a user name');
  else if (isRoot(config.user)) problems.push('user: the oracle container never runs as root');
  return problems;
}
