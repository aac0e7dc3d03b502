import { spawn } from 'node:child_process';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { afterAll } from 'vitest';

/**
 * Runs host code as an unprivileged host user, as GitHub's runners do (uid 1001, in the docker
 * group, not the container's uid 1000), where the tests themselves run as root, whom no file mode
 * stops. The code is a TypeScript module text importing from src/, bundled with esbuild (as the
 * action is) into a folder that user can read, and run with its argv; its stdout is returned.
 */
export const OTHER_UID = 1001;

const ROOT = join(import.meta.dirname, '..', '..');
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

export interface OtherUserRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

let nodeCopy: string | undefined;

/**
 * This Node binary, copied where that user can run it: the clone (and its node_modules) may lie
 * under a folder only root can enter, such as /root.
 */
function nodeForOtherUser(): string {
  if (nodeCopy === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'og-other-user-node-'));
    made.push(dir);
    chmodSync(dir, 0o755);
    nodeCopy = join(dir, 'node');
    copyFileSync(process.execPath, nodeCopy);
    chmodSync(nodeCopy, 0o755);
  }
  return nodeCopy;
}

/** The group that may use the engine's socket (the runner user's supplementary group there). */
function dockerGid(): number {
  return statSync('/var/run/docker.sock').gid;
}

export async function runAsOtherUser(moduleText: string, args: readonly string[]): Promise<OtherUserRun> {
  const dir = mkdtempSync(join(tmpdir(), 'og-other-user-'));
  made.push(dir);
  chmodSync(dir, 0o755);
  const outfile = join(dir, 'entry.mjs');
  await build({
    stdin: { contents: moduleText, resolveDir: ROOT, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    loader: { '.sh': 'text' },
    logLevel: 'warning',
  });
  chmodSync(outfile, 0o644);
  return new Promise((resolve, reject) => {
    const child = spawn(nodeForOtherUser(), [outfile, ...args], {
      uid: OTHER_UID,
      gid: dockerGid(),
      cwd: dir,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
