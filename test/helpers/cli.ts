import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './fixtures.js';

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the bundled CLI the way a user does: plain `node dist/cli.js`, no node_modules needed. */
export function runCli(
  args: string[],
  options: { stdin?: string; cwd?: string; env?: NodeJS.ProcessEnv } = {},
): CliRun {
  const result = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/cli.js'), ...args], {
    input: options.stdin ?? '',
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? process.env,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
