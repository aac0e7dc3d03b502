import { constants, promises as fsp } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { hashOracleDir } from '../oracle-dir/hash.js';
import { PLACEHOLDER_DIGEST, scaffoldFiles } from '../oracle-dir/scaffold.js';
import { usageError, type Command } from './command.js';

export const initCommand: Command = {
  name: 'init',
  summary: 'scaffold an oracle directory and print the hash to pin',
  help: `usage: oracle-gate init DIR

Creates DIR (which must not exist, or be empty) with an example oracle directory: oracle.json,
path_deny.txt, tests/, fixtures/manifest.json, flake_ledger.json, and a README.md that explains
every file. It fails closed until filled in: the image digest is a placeholder of zeros and the
example hidden test fails. Prints the directory's hash on standard output.

Exit status: 0 when written; 1 when DIR exists and is not empty, or cannot be written; 2 for
usage errors.`,
  async run(args, io) {
    let positionals: string[];
    try {
      ({ positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true }));
    } catch (e) {
      return usageError('init', (e as Error).message);
    }
    if (positionals.length !== 1) return usageError('init', 'expected exactly one directory');
    const dir = positionals[0]!;
    const fail = (message: string) => ({ exitCode: 1, stderr: `oracle-gate init: ${message}\n` });

    const existing = await fsp.readdir(dir).catch((e: NodeJS.ErrnoException) => e);
    if (Array.isArray(existing)) {
      if (existing.length > 0) return fail(`${dir} exists and is not empty; nothing written`);
    } else if (existing.code !== 'ENOENT') {
      return fail(
        `${dir}: ${existing.code === 'ENOTDIR' ? 'not a directory' : `cannot read (${existing.code})`}`,
      );
    }
    try {
      for (const file of scaffoldFiles()) {
        const path = join(dir, file.path);
        await fsp.mkdir(dirname(path), { recursive: true });
        // O_EXCL: never overwrite, even if something appears meanwhile.
        await fsp.writeFile(path, file.content, {
          flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        });
      }
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      return fail(`cannot write ${err.path ?? dir} (${err.code ?? err.message})`);
    }
    io.progress(
      `oracle-gate init: wrote ${scaffoldFiles().length} files to ${dir}; see ${join(dir, 'README.md')}`,
    );
    io.progress(
      `oracle-gate init: warning: oracle.json's image digest is a placeholder (${PLACEHOLDER_DIGEST.slice(0, 15)}...): ` +
        'replace it and the example test, then pin the hash that `oracle-gate hash` prints',
    );
    return { exitCode: 0, stdout: (await hashOracleDir(dir)) + '\n' };
  },
};
