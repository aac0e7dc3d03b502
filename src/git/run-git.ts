import { spawn } from 'node:child_process';

/**
 * Runs git on a repository whose contents are hostile data. Only argument arrays, never a shell.
 * Global and system config are ignored, replace refs and optional locks are off, and `-c` settings
 * keep repository config and attributes from running a program (fsmonitor, hooks, external diff,
 * textconv) or changing the output format (quoted paths, colour, prefixes). Callers still pass
 * `--no-ext-diff --no-textconv` and explicit prefixes to diff commands.
 */
const HARDENING = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.quotePath=true',
  '-c',
  'core.attributesFile=/dev/null',
  '-c',
  'color.ui=false',
  '-c',
  'diff.noprefix=false',
  '-c',
  'diff.mnemonicPrefix=false',
  '-c',
  'diff.relative=false',
  '-c',
  'protocol.allow=never',
  '-c',
  'protocol.file.allow=always',
  '--no-replace-objects',
];

export function gitEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_PAGER: 'cat',
  };
  if (process.env.HOME) env.HOME = process.env.HOME;
  return env;
}

export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(
      `git ${args.slice(0, 3).join(' ')} failed (exit ${exitCode}): ${stderr.trim().split('\n').slice(-3).join(' / ')}`,
    );
  }
}

export interface GitResult {
  exitCode: number | null;
  stdout: Buffer;
  stderr: string;
}

export interface GitOptions {
  /** Bytes written to git's standard input. */
  input?: Buffer | string;
  /** Refuse output past this many bytes (default 2 GiB) rather than exhaust memory. */
  maxBytes?: number;
}

/** Runs `git -C repoDir <hardening> args`; resolves with whatever it exits with. */
export function runGit(
  repoDir: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<GitResult> {
  const maxBytes = options.maxBytes ?? 2 * 1024 ** 3;
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-C', repoDir, ...HARDENING, ...args], {
      env: gitEnvironment(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let overflow = false;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        overflow = true;
        child.kill('SIGKILL');
      } else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (overflow) reject(new GitError(args, code, `output larger than ${maxBytes} bytes`));
      else resolve({ exitCode: code, stdout: Buffer.concat(chunks), stderr });
    });
    child.stdin.on('error', () => {}); // git may exit before reading all input; its exit code tells
    child.stdin.end(options.input ?? '');
  });
}

/** Like runGit, but a non-zero exit is a GitError. */
export async function gitOk(
  repoDir: string,
  args: readonly string[],
  options: GitOptions = {},
): Promise<Buffer> {
  const result = await runGit(repoDir, args, options);
  if (result.exitCode !== 0) throw new GitError(args, result.exitCode, result.stderr);
  return result.stdout;
}
