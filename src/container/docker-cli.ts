import { spawn } from 'node:child_process';
import { OutputCapture } from './output-capture.js';

/**
 * The docker CLI as a child process with an argument array, never a shell. The CLI gets a minimal
 * environment: what it needs to find the engine, and nothing else (no tokens, no secrets; the
 * container's environment is built separately and explicitly).
 */
export interface DockerCli {
  binary: string;
  env: NodeJS.ProcessEnv;
}

const CLI_ENV = [
  'PATH',
  'HOME',
  'DOCKER_HOST',
  'DOCKER_CONTEXT',
  'DOCKER_CONFIG',
  'DOCKER_CERT_PATH',
  'DOCKER_TLS_VERIFY',
  'DOCKER_API_VERSION',
  'XDG_RUNTIME_DIR',
] as const;

export function dockerCli(binary = 'docker', from: NodeJS.ProcessEnv = process.env): DockerCli {
  const env: NodeJS.ProcessEnv = {};
  for (const name of CLI_ENV) if (from[name] !== undefined) env[name] = from[name];
  return { binary, env };
}

export interface DockerResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The CLI could not be started at all (e.g. not installed). */
  spawnError?: Error;
  /** The CLI was still running at `timeoutMs` and was killed. */
  timedOut: boolean;
}

export interface DockerRunOptions {
  timeoutMs?: number;
  /** Receives stdout as it comes (the captured copy is still capped). */
  onStdout?: (chunk: Buffer) => void;
  onStderr?: (chunk: Buffer) => void;
  headBytes?: number;
  tailBytes?: number;
}

/** Runs `docker <args>` and resolves with whatever happened; it never rejects. */
export function runDocker(
  cli: DockerCli,
  args: readonly string[],
  options: DockerRunOptions = {},
): Promise<DockerResult> {
  return new Promise((resolve) => {
    const stdout = new OutputCapture(options.headBytes, options.tailBytes);
    const stderr = new OutputCapture(options.headBytes ?? 256 * 1024, options.tailBytes ?? 256 * 1024);
    let timedOut = false;
    let spawnError: Error | undefined;
    const child = spawn(cli.binary, [...args], { env: cli.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer =
      options.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      options.onStdout?.(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
      options.onStderr?.(chunk);
    });
    let settled = false;
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      resolve({
        exitCode: code,
        signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        ...(spawnError !== undefined ? { spawnError } : {}),
      });
    };
    child.on('error', (error) => {
      spawnError = error;
      // A CLI that never started emits no 'close' on every Node version; settle here too.
      if (child.pid === undefined) settle(null, null);
    });
    child.on('close', settle);
  });
}

/** The last lines of docker's stderr, on one line, for a reason message. */
export function stderrTail(result: DockerResult, lines = 3): string {
  if (result.spawnError !== undefined) return result.spawnError.message;
  const text = result.stderr.trim().split('\n').slice(-lines).join(' / ');
  return text.length > 600 ? `${text.slice(0, 600)}…` : text || `exit ${result.exitCode}`;
}

/** True when the CLI ran but could not reach an engine, or is not installed. */
export function engineUnreachable(result: DockerResult): boolean {
  if (result.spawnError !== undefined) return true;
  return /Cannot connect to the Docker daemon|Is the docker daemon running|error during connect/i.test(
    result.stderr,
  );
}
