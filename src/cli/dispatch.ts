import { COMMANDS } from './commands.js';
import { EXIT_USAGE, type CliIo, type CommandResult } from './command.js';

export const TOP_HELP = () => `usage: oracle-gate <command> [options]

Gates agent-written patches with a pinned oracle the patch cannot touch.

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)}${c.summary}`).join('\n')}

Run 'oracle-gate <command> --help' for a command's options.`;

/** Routes argv to a command; `--help` anywhere before `--` prints that command's help. */
export async function dispatch(argv: string[], io: CliIo): Promise<CommandResult> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    return {
      exitCode: name === undefined ? EXIT_USAGE : 0,
      [name === undefined ? 'stderr' : 'stdout']: TOP_HELP() + '\n',
    };
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    return {
      exitCode: EXIT_USAGE,
      stderr: `oracle-gate: unknown command ${JSON.stringify(name)}; try --help\n`,
    };
  }
  const beforeDashes = rest.indexOf('--') === -1 ? rest : rest.slice(0, rest.indexOf('--'));
  if (beforeDashes.includes('--help') || beforeDashes.includes('-h'))
    return { exitCode: 0, stdout: command.help + '\n' };
  return command.run(rest, io);
}
