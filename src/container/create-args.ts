import { CONTAINER_PATHS } from './harness-protocol.js';
import { fixedEnvironment, type OracleRunConfig } from './run-config.js';

/**
 * The `docker create` argument array for one oracle run, as a pure function so every hardening
 * flag is visible and tested in one place:
 * - no network, a read-only root, every capability dropped, no privilege gain, pid/memory/CPU
 *   limits with no swap beyond the memory limit, tmpfs for /tmp and the checkout;
 * - bind mounts read-only except the report folder; never the Docker socket;
 * - the environment spelled out (fixed values, then oracle.json's), never inherited: every
 *   `--env` carries `=`, since a bare name would copy the host's value;
 * - no `--init`: the harness is PID 1, so the PR code (same uid) cannot signal it, and its
 *   `kill -KILL -1` between suites reaches every process but itself;
 * - the `none` log driver: the host reads the output live from `docker start --attach`, and a
 *   flooding test fills no disk under /var/lib/docker;
 * - no `--workdir`: Docker would re-create it over the tmpfs as root with mode 0755, and the
 *   unprivileged user could no longer write the checkout (the harness works with absolute paths).
 */
export interface CreateSpec {
  name: string;
  /** The content-addressed image ID verified against the pinned digest. */
  imageId: string;
  config: OracleRunConfig;
  hostPaths: { job: string; mirror: string; hidden: string; reports: string };
  labels?: Record<string, string>;
}

export const CONTAINER_LABEL = 'org.oracle-gate.run';

/** One `--mount` value; fields holding a comma or quote are CSV-quoted, as docker parses them. */
export function mountArg(source: string, target: string, readonly: boolean): string {
  const field = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  return [
    field('type=bind'),
    field(`source=${source}`),
    field(`target=${target}`),
    ...(readonly ? ['readonly'] : []),
  ].join(',');
}

/** What every container the gate starts gets: the pinned image only, no log, no network, no privilege. */
export const SANDBOX_FLAGS: readonly string[] = [
  '--pull',
  'never',
  '--log-driver',
  'none',
  '--network',
  'none',
  '--read-only',
  '--cap-drop',
  'ALL',
  '--security-opt',
  'no-new-privileges',
];

export function dockerCreateArgs(spec: CreateSpec): string[] {
  const { config } = spec;
  const { memory, cpus, pids } = config.limits;
  const tmpfs = (path: string) => `${path}:rw,exec,nosuid,nodev,size=${memory},mode=1777`;
  const env = { ...fixedEnvironment(config.sourceDateEpoch) };
  const extra = Object.keys(config.env).sort();
  const labels = { [CONTAINER_LABEL]: spec.name, ...spec.labels };
  return [
    'create',
    '--name',
    spec.name,
    ...Object.entries(labels).flatMap(([k, v]) => ['--label', `${k}=${v}`]),
    ...SANDBOX_FLAGS,
    '--ipc',
    'private',
    '--pids-limit',
    String(pids),
    '--memory',
    memory,
    '--memory-swap',
    memory,
    '--cpus',
    String(cpus),
    '--ulimit',
    'core=0',
    '--user',
    config.user,
    '--hostname',
    'oracle',
    '--tmpfs',
    tmpfs(CONTAINER_PATHS.tmp),
    '--tmpfs',
    tmpfs(CONTAINER_PATHS.work),
    '--mount',
    mountArg(spec.hostPaths.job, CONTAINER_PATHS.job, true),
    '--mount',
    mountArg(spec.hostPaths.mirror, CONTAINER_PATHS.mirror, true),
    '--mount',
    mountArg(spec.hostPaths.hidden, CONTAINER_PATHS.hidden, true),
    '--mount',
    mountArg(spec.hostPaths.reports, CONTAINER_PATHS.reports, false),
    ...Object.entries(env).flatMap(([k, v]) => ['--env', `${k}=${v}`]),
    ...extra.flatMap((k) => ['--env', `${k}=${config.env[k]}`]),
    '--entrypoint',
    '/bin/sh',
    spec.imageId,
    `${CONTAINER_PATHS.job}/harness.sh`,
  ];
}
