import { parseArgs } from 'node:util';
import { hashOracleDir, OracleHashError } from '../oracle-dir/hash.js';
import { usageError, type Command } from './command.js';

export const hashCommand: Command = {
  name: 'hash',
  summary: "print an oracle directory's hash (h1:...), the value to pin as oracle-hash",
  help: `usage: oracle-gate hash DIR

Prints the oracle directory's hash on one line: Go's dirhash.Hash1, "h1:" and the base64 sha256 of
the lines "<sha256 hex>  <path>\\n" over every regular file, sorted by path bytes (a top-level .git
is left out). Pin it as the action's oracle-hash input.

Symlinks, devices, sockets and FIFOs anywhere in DIR are refused, never followed.

Exit status: 0 with the hash on standard output; 1 with one line on standard error saying what
was refused; 2 for usage errors.`,
  async run(args) {
    let positionals: string[];
    try {
      ({ positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true }));
    } catch (e) {
      return usageError('hash', (e as Error).message);
    }
    if (positionals.length !== 1) return usageError('hash', 'expected exactly one directory');
    try {
      return { exitCode: 0, stdout: (await hashOracleDir(positionals[0]!)) + '\n' };
    } catch (e) {
      if (e instanceof OracleHashError) return { exitCode: 1, stderr: `oracle-gate hash: ${e.message}\n` };
      throw e;
    }
  },
};
