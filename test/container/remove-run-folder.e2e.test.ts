import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { dockerCli } from '../../src/container/docker-cli.js';
import { ownerChmodArgs, removeRunFolder } from '../../src/container/remove-run-folder.js';
import { OTHER_UID, runAsOtherUser } from './as-other-user.js';
import { tempDirs } from './temp-dirs.js';

const tempDir = tempDirs('og-remove-run-');

function imageId(): string {
  return execFileSync('docker', ['image', 'inspect', '--format', '{{.Id}}', inject('testImage')])
    .toString()
    .trim();
}

/**
 * A run's folder as a run the host stopped leaves it: the host's own folders (the report folder
 * 0777, as run-oracle-container makes it), owned by `hostUid`, and inside the report folder what
 * PR code running as uid 1000 left before the harness could open it up: a folder of mode 000,
 * a sticky folder, a read-only one, files, and a link to a host file that must be left alone.
 */
function stoppedRunFolder(hostUid: number): { root: string; reports: string; hostFile: string } {
  const root = join(tempDir(), 'oracle-gate-run');
  const reports = join(root, 'reports');
  mkdirSync(join(root, 'job'), { recursive: true });
  writeFileSync(join(root, 'job', 'mode'), 'grade');
  mkdirSync(reports);
  chmodSync(reports, 0o777);
  for (const path of [root, join(root, 'job'), join(root, 'job', 'mode'), reports]) {
    chownSync(path, hostUid, hostUid);
  }
  chmodSync(join(root, '..'), 0o1777); // as /tmp is
  const hostFile = join(tempDir(), 'host-file');
  writeFileSync(hostFile, 'keep me');
  chmodSync(hostFile, 0o600);
  execFileSync('docker', [
    'run',
    '--rm',
    '--network',
    'none',
    '--read-only',
    '--cap-drop',
    'ALL',
    '--user',
    '1000:1000',
    '--mount',
    `type=bind,source=${reports},target=/oracle/reports`,
    '--entrypoint',
    '/bin/sh',
    inject('testImage'),
    '-c',
    [
      'cd /oracle/reports',
      'mkdir -p hidden/locked/deeper existing/sticky existing/readonly',
      'echo x > hidden/locked/deeper/f && echo y > existing/sticky/f && echo z > existing/readonly/f',
      `ln -s ${hostFile} existing/sticky/link`,
      'chmod 000 hidden/locked && chmod 1755 existing/sticky && chmod 555 existing/readonly',
    ].join(' && '),
  ]);
  return { root, reports, hostFile };
}

describe('the owner’s chmod', () => {
  it('runs hardened, as the oracle user, with only the report folder mounted, clearing sticky bits', () => {
    const args = ownerChmodArgs({
      imageId: 'sha256:abc',
      user: '1000:1000',
      reports: '/tmp/x/reports',
      name: 'oracle-gate-0123-cleanup',
    });
    expect(args).toEqual([
      'run',
      '--rm',
      '--name',
      'oracle-gate-0123-cleanup',
      '--label',
      'org.oracle-gate.run=oracle-gate-0123-cleanup',
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
      '--pids-limit',
      '16',
      '--memory',
      '256m',
      '--memory-swap',
      '256m',
      '--user',
      '1000:1000',
      '--mount',
      'type=bind,source=/tmp/x/reports,target=/oracle/reports',
      '--entrypoint',
      'chmod',
      'sha256:abc',
      '-R',
      'a=rwX',
      '/oracle/reports',
    ]);
  });
});

describe('removing a stopped run’s folder', () => {
  it('as root, removes it at once without the owner’s help', async () => {
    const { root } = stoppedRunFolder(0);
    expect(await removeRunFolder(root)).toEqual({ removed: true, openedByOwner: false });
    expect(existsSync(root)).toBe(false);
  });

  it('as an unprivileged host user, cannot remove it by itself (why the owner is needed)', async () => {
    const { root } = stoppedRunFolder(OTHER_UID);
    const run = await runAsOtherUser(
      `import { removeRunFolder } from './src/container/remove-run-folder.ts';
       process.stdout.write(JSON.stringify(await removeRunFolder(process.argv[2])));`,
      [root],
    );
    expect(JSON.parse(run.stdout)).toEqual({ removed: false, openedByOwner: false, error: 'EACCES' });
    expect(existsSync(join(root, 'reports', 'hidden'))).toBe(true);
  });

  it('as an unprivileged host user, removes it once the owner opened it up, leaving linked host files alone', async () => {
    const { root, hostFile } = stoppedRunFolder(OTHER_UID);
    const cli = dockerCli();
    const run = await runAsOtherUser(
      `import { dockerCli } from './src/container/docker-cli.ts';
       import { removeRunFolder } from './src/container/remove-run-folder.ts';
       const [root, imageId, name] = process.argv.slice(2);
       const owner = { cli: dockerCli(), imageId, user: '1000:1000', reports: root + '/reports', name };
       process.stdout.write(JSON.stringify(await removeRunFolder(root, owner)));`,
      [root, imageId(), `oracle-gate-test-${process.pid}-cleanup`],
    );
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ removed: true, openedByOwner: true });
    expect(existsSync(root)).toBe(false);
    expect(statSync(hostFile).mode & 0o7777).toBe(0o600);
    const left = execFileSync(cli.binary, [
      'ps',
      '--all',
      '--quiet',
      '--filter',
      `name=oracle-gate-test-${process.pid}`,
    ]);
    expect(left.toString().trim()).toBe('');
  });
});
