#!/usr/bin/env node
import { text } from 'node:stream/consumers';
import { dispatch } from './cli/dispatch.js';
import { thrownText } from './errors/thrown-text.js';

// Whatever goes wrong, the process never exits 0 by accident: an unexpected error is status 2.
try {
  const result = await dispatch(process.argv.slice(2), {
    readStdin: () => text(process.stdin),
    progress: (line) => process.stderr.write(line.endsWith('\n') ? line : line + '\n'),
  });
  if (result.stdout) process.stdout.write(result.stdout);
  if (result.stderr) process.stderr.write(result.stderr);
  process.exitCode = result.exitCode;
} catch (error) {
  process.stderr.write(`oracle-gate: internal error: ${thrownText(error)}\n`);
  process.exitCode = 2;
}
