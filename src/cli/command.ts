/** What a CLI command produces; the entry point writes it out and exits with its status. */
export interface CommandResult {
  exitCode: number;
  stdout?: string;
  stderr?: string;
}

/** The edges a command may touch: standard input, and standard error for progress. */
export interface CliIo {
  readStdin(): Promise<string>;
  progress(line: string): void;
}

export interface Command {
  name: string;
  summary: string;
  help: string;
  run(args: string[], io: CliIo): Promise<CommandResult>;
}

/** Exit status for input or usage the command cannot accept. */
export const EXIT_USAGE = 2;

export function usageError(command: string, message: string): CommandResult {
  return { exitCode: EXIT_USAGE, stderr: `oracle-gate ${command}: ${message}\n` };
}
