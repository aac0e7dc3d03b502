import { parseChecked } from '../json/parse-checked.js';
import { serializeVerdict } from '../verdict/serialize.js';
import { buildProgram, VerdictInputSchema } from '../verdict/program.js';
import { usageError, type Command } from './command.js';

export const verdictCommand: Command = {
  name: 'verdict',
  summary: 'run a conformance oracle program on a candidate and print the oracle/1 verdict',
  help: `usage: oracle-gate verdict < input.json

Reads one JSON object {"candidate": {...}, "oracle_program": [...]} from standard input, runs the
oracle program on the candidate, and prints the oracle/1 verdict as one line of compact JSON.

Program: one oracle ({"kind":"always_pass"}, or {"kind":"always_fail","reason":...}), or a
composite {"kind":"composite","id":...} in first place followed by its members, run in order and
stopping at the first Fail. No nesting; duplicate keys and unknown fields are errors.

Exit status: 0 Pass, 1 Fail, 2 input it cannot accept (one line on standard error names the field).`,
  async run(args, io) {
    if (args.length > 0) return usageError('verdict', `unexpected argument ${JSON.stringify(args[0])}`);
    const input = parseChecked(VerdictInputSchema, await io.readStdin());
    if (!input.ok) return usageError('verdict', input.error);
    const oracle = buildProgram(input.value.oracle_program);
    const verdict = await oracle.check(input.value.candidate);
    const note =
      verdict.kind === 'pass' && !oracle.attested
        ? 'oracle-gate verdict: note: unattested pass, not evidence\n'
        : '';
    return {
      exitCode: verdict.kind === 'pass' ? 0 : 1,
      stdout: serializeVerdict(verdict) + '\n',
      stderr: note,
    };
  },
};
