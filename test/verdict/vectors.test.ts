import { describe, expect, it } from 'vitest';
import { readFixtureJson } from '../helpers/fixtures.js';
import { runCli } from '../helpers/cli.js';
import { buildProgram, VerdictInputSchema } from '../../src/verdict/program.js';
import { serializeVerdict } from '../../src/verdict/serialize.js';

interface SeedVector {
  n: number;
  description: string;
  input: unknown;
  expected_verdict: unknown;
}
interface LineVector {
  n: number;
  description: string;
  input: unknown;
  expected_line: string;
}

const seed = readFixtureJson<{ vectors: SeedVector[] }>('verdict/seed-vectors.json');
const escaping = readFixtureJson<{ vectors: LineVector[] }>('verdict/escaping-vectors.json');

// The seed's expected verdicts are pretty-printed objects; serde's compact form of them is the
// same keys, in the same order, with no spaces: JSON.stringify of the parsed object.
const cases: { name: string; input: unknown; line: string }[] = [
  ...seed.vectors.map((v) => ({
    name: `seed ${v.n}: ${v.description}`,
    input: v.input,
    line: JSON.stringify(v.expected_verdict),
  })),
  ...escaping.vectors.map((v) => ({
    name: `escaping ${v.n}: ${v.description}`,
    input: v.input,
    line: v.expected_line,
  })),
];

describe('oracle/1 conformance vectors', () => {
  it('the seed file carries all five vectors', () => {
    expect(seed.vectors.map((v) => v.n)).toEqual([1, 2, 3, 4, 5]);
  });

  describe.each(cases)('$name', ({ input, line }) => {
    it('comes out byte-equal through the library', async () => {
      const parsed = VerdictInputSchema.parse(input);
      const verdict = await buildProgram(parsed.oracle_program).check(parsed.candidate);
      expect(Buffer.from(serializeVerdict(verdict))).toEqual(Buffer.from(line));
    });

    it('comes out byte-equal through node dist/cli.js verdict', () => {
      const run = runCli(['verdict'], { stdin: JSON.stringify(input) });
      expect(Buffer.from(run.stdout)).toEqual(Buffer.from(line + '\n'));
      expect(run.status).toBe(line.startsWith('{"kind":"pass"') ? 0 : 1);
    });
  });
});
