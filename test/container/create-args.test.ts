import { describe, expect, it } from 'vitest';
import { dockerCreateArgs, mountArg } from '../../src/container/create-args.js';
import type { OracleRunConfig } from '../../src/container/run-config.js';

const CONFIG: OracleRunConfig = {
  image: `127.0.0.1:5000/app@sha256:${'a'.repeat(64)}`,
  hiddenTests: { command: 'pytest oracle_tests', dest: 'oracle_tests' },
  env: { ZED: 'last', APP_MODE: 'test', PATH_EXTRA: 'a=b c' },
  timeoutSeconds: 60,
  limits: { memory: '512m', cpus: 1.5, pids: 128 },
  sourceDateEpoch: 315532800,
  user: '1000:1000',
};
const IMAGE_ID = `sha256:${'b'.repeat(64)}`;
const ARGS = dockerCreateArgs({
  name: 'oracle-gate-0123456789abcdef',
  imageId: IMAGE_ID,
  config: CONFIG,
  hostPaths: { job: '/t/job', mirror: '/t/mirror.git', hidden: '/o/tests', reports: '/t/reports' },
});

/** The values following each occurrence of a flag. */
function values(flag: string): string[] {
  return ARGS.flatMap((a, i) => (a === flag ? [ARGS[i + 1] as string] : []));
}

describe('dockerCreateArgs', () => {
  it('creates a named, labelled container from the verified image ID, with the harness as the command', () => {
    expect(ARGS[0]).toBe('create');
    expect(values('--name')).toEqual(['oracle-gate-0123456789abcdef']);
    expect(values('--label')).toEqual(['org.oracle-gate.run=oracle-gate-0123456789abcdef']);
    expect(values('--pull')).toEqual(['never']);
    expect(values('--entrypoint')).toEqual(['/bin/sh']);
    expect(ARGS.slice(-2)).toEqual([IMAGE_ID, '/oracle/job/harness.sh']);
  });

  it('carries every hardening flag of DESIGN.md', () => {
    expect(values('--network')).toEqual(['none']);
    expect(ARGS).toContain('--read-only');
    expect(values('--cap-drop')).toEqual(['ALL']);
    expect(values('--security-opt')).toEqual(['no-new-privileges']);
    expect(values('--pids-limit')).toEqual(['128']);
    expect(values('--memory')).toEqual(['512m']);
    expect(values('--memory-swap')).toEqual(['512m']);
    expect(values('--cpus')).toEqual(['1.5']);
    expect(values('--user')).toEqual(['1000:1000']);
    expect(values('--log-driver')).toEqual(['none']);
    expect(values('--tmpfs')).toEqual([
      '/tmp:rw,exec,nosuid,nodev,size=512m,mode=1777',
      '/work:rw,exec,nosuid,nodev,size=512m,mode=1777',
    ]);
  });

  it('adds nothing that widens the sandbox', () => {
    for (const flag of [
      '--privileged',
      '--cap-add',
      '--device',
      '--pid',
      '--userns',
      '--volumes-from',
      '-v',
      '--volume',
      '--init',
      '--workdir',
      '-e',
      '--env-file',
      '--add-host',
      '--dns',
    ]) {
      expect(ARGS).not.toContain(flag);
    }
    expect(ARGS.join(' ')).not.toMatch(/docker\.sock/);
  });

  it('mounts read-only everything but the report folder', () => {
    expect(values('--mount')).toEqual([
      'type=bind,source=/t/job,target=/oracle/job,readonly',
      'type=bind,source=/t/mirror.git,target=/oracle/mirror.git,readonly',
      'type=bind,source=/o/tests,target=/oracle/hidden,readonly',
      'type=bind,source=/t/reports,target=/oracle/reports',
    ]);
  });

  it('spells out the environment: the fixed values, then oracle.json env sorted, each with =', () => {
    expect(values('--env')).toEqual([
      'TZ=UTC',
      'LC_ALL=C.UTF-8',
      'PYTHONHASHSEED=0',
      'SOURCE_DATE_EPOCH=315532800',
      'HOME=/tmp',
      'APP_MODE=test',
      'PATH_EXTRA=a=b c',
      'ZED=last',
    ]);
  });
});

describe('mountArg', () => {
  it('CSV-quotes a field holding a comma or a quote, as docker parses --mount', () => {
    expect(mountArg('/a,b/"c"', '/t', true)).toBe('type=bind,"source=/a,b/""c""",target=/t,readonly');
    expect(mountArg('/plain', '/t', false)).toBe('type=bind,source=/plain,target=/t');
  });
});
