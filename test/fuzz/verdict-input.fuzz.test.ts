import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verdictCommand } from '../../src/cli/verdict-command.js';
import { VerdictSchema, type Verdict } from '../../src/verdict/schema.js';
import { runCli } from '../helpers/cli.js';
import { readFixtureJson } from '../helpers/fixtures.js';
import { fuzzAsync, guardAsync, numRuns, testTimeout } from './budget.js';
import { jsonInput, nativeParse } from './json-mutations.js';
import { b64, printable } from './mutations.js';

/**
 * `oracle-gate verdict`: an oracle program as JSON on stdin, an oracle/1 verdict out, exit 0 only
 * for a Pass. In process over the command itself, then a few cases through `node dist/cli.js`
 * (rebuild dist/ with `npm run bundle` first). The reference is an evaluator written here from the
 * command's help text over JSON.parse's reading: exit 0 or 1 only for a program it accepts too,
 * with the same verdict.
 */

const TARGET = 'verdict input';

interface Vectors {
  vectors: { input: unknown }[];
}
const SEEDS: unknown[] = [
  ...readFixtureJson<Vectors>('verdict/seed-vectors.json').vectors.map((v) => v.input),
  ...readFixtureJson<Vectors>('verdict/escaping-vectors.json').vectors.map((v) => v.input),
];
const KEYS = [
  'candidate',
  'oracle_program',
  'id',
  'content',
  'language',
  'source_tier',
  'provenance',
  'kind',
  'reason',
  'always_pass',
  'always_fail',
  'composite',
];

// --- the reference -------------------------------------------------------------------------------

type Expected = { exit: 2 } | { exit: 0 | 1; verdict: Verdict };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const keysAre = (v: Record<string, unknown>, keys: string[]) =>
  Object.keys(v).sort().join('\u0000') === [...keys].sort().join('\u0000');

function reference(text: string): Expected {
  const native = nativeParse(text);
  if (!native.ok) return { exit: 2 };
  const input = native.value;
  if (!isObject(input) || !keysAre(input, ['candidate', 'oracle_program'])) return { exit: 2 };
  const { candidate, oracle_program: program } = input;
  const fields = ['id', 'content', 'language', 'source_tier', 'provenance'];
  if (
    !isObject(candidate) ||
    !keysAre(candidate, fields) ||
    fields.some((f) => typeof candidate[f] !== 'string')
  )
    return { exit: 2 };
  if (!Array.isArray(program) || program.length === 0) return { exit: 2 };
  for (const [i, spec] of program.entries()) {
    if (!isObject(spec)) return { exit: 2 };
    if (spec.kind === 'always_pass' && keysAre(spec, ['kind'])) continue;
    if (spec.kind === 'always_fail' && keysAre(spec, ['kind', 'reason']) && typeof spec.reason === 'string')
      continue;
    if (
      spec.kind === 'composite' &&
      i === 0 &&
      keysAre(spec, ['kind', 'id']) &&
      typeof spec.id === 'string' &&
      spec.id !== ''
    )
      continue;
    return { exit: 2 };
  }
  const [head, ...rest] = program as Record<string, string>[];
  if (head!.kind !== 'composite') {
    if (rest.length > 0) return { exit: 2 };
    return head!.kind === 'always_pass'
      ? { exit: 0, verdict: { kind: 'pass', chain: ['unattested-pass'] } }
      : {
          exit: 1,
          verdict: {
            kind: 'fail',
            reasons: [{ kind: 'custom', subkind: 'no-oracle', message: head!.reason! }],
          },
        };
  }
  const chain = [head!.id!];
  for (const spec of rest) {
    if (spec.kind === 'always_fail')
      return {
        exit: 1,
        verdict: { kind: 'fail', reasons: [{ kind: 'custom', subkind: 'no-oracle', message: spec.reason! }] },
      };
    if (!chain.includes('unattested-pass')) chain.push('unattested-pass');
  }
  return { exit: 0, verdict: { kind: 'pass', chain } };
}

async function runInProcess(text: string, input: Buffer) {
  const result = await guardAsync(`${TARGET}: verdict command`, input, () =>
    verdictCommand.run([], { readStdin: async () => text, progress: () => {} }),
  );
  return { exitCode: result.exitCode, stdout: result.stdout ?? '', stderr: result.stderr ?? '' };
}

/** What every run must look like: a verdict line for 0 and 1, one error line and no verdict for 2. */
function expectShape(
  run: { exitCode: number; stdout: string; stderr: string },
  input: string,
): Verdict | undefined {
  expect([0, 1, 2], input).toContain(run.exitCode);
  if (run.exitCode === 2) {
    expect(run.stdout, `a refused input printed something; ${input}`).toBe('');
    expect(run.stderr, input).toMatch(/^oracle-gate verdict: [^\r\n]+\n$/);
    return undefined;
  }
  expect(run.stdout.endsWith('\n') && !run.stdout.slice(0, -1).includes('\n'), input).toBe(true);
  const verdict = VerdictSchema.parse(JSON.parse(run.stdout));
  expect(verdict.kind, `exit ${run.exitCode} with a ${verdict.kind} verdict; ${input}`).toBe(
    run.exitCode === 0 ? 'pass' : 'fail',
  );
  return verdict;
}

describe('fuzz: the verdict command', () => {
  it(
    'never throws; exits 0 only for a Pass the reference also computes, 1 only for its Fail, and 2 with one error line and no verdict otherwise',
    async () => {
      const runs = numRuns(1);
      const exits = [0, 0, 0];
      let refusedOnlyHere = 0;
      await fuzzAsync(
        TARGET,
        'exit 0 only for a Pass the reference computes',
        fc.asyncProperty(jsonInput(SEEDS, KEYS), async (input) => {
          const text = input.toString('utf8');
          const run = await runInProcess(text, input);
          const verdict = expectShape(run, `base64 ${b64(input)}`);
          exits[run.exitCode]!++;
          const expected = reference(text);
          if (run.exitCode === 2) {
            // Stricter than JSON.parse by design: duplicate keys, lone surrogates, deep nesting;
            // and only for those.
            if (expected.exit !== 2) {
              refusedOnlyHere++;
              expect(run.stderr, `refused a program the reference takes; base64 ${b64(input)}`).toMatch(
                /malformed JSON: (duplicate key|string holds a lone UTF-16 surrogate|nesting deeper)/,
              );
            }
            return;
          }
          expect(expected, `the command judged an input the reference refuses; base64 ${b64(input)}`).toEqual(
            {
              exit: run.exitCode,
              verdict,
            },
          );
        }),
        { runs },
      );
      console.log(
        `[fuzz] ${TARGET}: exit 0 x${exits[0]}, exit 1 x${exits[1]}, exit 2 x${exits[2]} ` +
          `(${refusedOnlyHere} refused that JSON.parse and the reference take)`,
      );
    },
    testTimeout(numRuns(1), 5),
  );

  it(
    'through node dist/cli.js: the process exits with the in-process exit code and prints the same, and never a pass verdict with a non-zero status',
    async () => {
      // Each case spawns node: a handful.
      const runs = numRuns(0.005, 8);
      const pass = JSON.stringify(SEEDS[0]);
      const failing = JSON.stringify(SEEDS[1]);
      const exits = [0, 0, 0];
      await fuzzAsync(
        TARGET,
        'the CLI process agrees with the command',
        fc.asyncProperty(jsonInput(SEEDS, KEYS), async (input) => {
          const text = input.toString('utf8');
          const cli = runCli(['verdict'], { stdin: text });
          const shaped = { exitCode: cli.status ?? -1, stdout: cli.stdout, stderr: cli.stderr };
          expectShape(shaped, `base64 ${b64(input)}`);
          exits[shaped.exitCode]!++;
          if (shaped.exitCode !== 0) expect(cli.stdout).not.toContain('"kind":"pass"');
          const inProcess = await runInProcess(text, input);
          expect({ exitCode: shaped.exitCode, stdout: shaped.stdout }).toEqual({
            exitCode: inProcess.exitCode,
            stdout: inProcess.stdout,
          });
          if (reference(text).exit === 2) expect(shaped.exitCode).toBe(2);
        }),
        {
          runs,
          examples: [
            [printable(Buffer.from(pass))],
            [printable(Buffer.from(failing))],
            [printable(Buffer.from(pass.slice(0, -1)))],
          ],
        },
      );
      console.log(
        `[fuzz] ${TARGET}: through the CLI, exit 0 x${exits[0]}, exit 1 x${exits[1]}, exit 2 x${exits[2]}`,
      );
      // The examples alone prove each exit status end to end.
      expect(exits.every((n) => n > 0)).toBe(true);
    },
    testTimeout(numRuns(0.005, 8), 1000),
  );
});
