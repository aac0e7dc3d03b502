import { z } from 'zod';
import { AlwaysFail, AlwaysPass, Composite, type Oracle } from './oracle.js';

/**
 * The conformance input: a candidate and a flat oracle program. Decisions (see README, "oracle
 * programs"): a program holds one or more entries; a composite may stand only in first place and
 * then owns every entry after it; without a composite the program holds exactly one oracle; there
 * is no nesting. Unknown keys are an error everywhere, so a typo can never change a verdict.
 */
export const CandidateSchema = z
  .object({
    id: z.string(),
    content: z.string(),
    language: z.string(),
    source_tier: z.string(),
    provenance: z.string(),
  })
  .strict();
export type Candidate = z.infer<typeof CandidateSchema>;

const OracleSpecSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('always_pass') }).strict(),
  z.object({ kind: z.literal('always_fail'), reason: z.string() }).strict(),
  z.object({ kind: z.literal('composite'), id: z.string().min(1) }).strict(),
]);
export type OracleSpec = z.infer<typeof OracleSpecSchema>;

export const VerdictInputSchema = z
  .object({
    candidate: CandidateSchema,
    oracle_program: z.array(OracleSpecSchema).min(1),
  })
  .strict()
  .superRefine((input, ctx) => {
    const program = input.oracle_program;
    program.forEach((spec, i) => {
      if (spec.kind === 'composite' && i > 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['oracle_program', i],
          message: 'a composite may only stand first in the program (no nesting)',
        });
      }
    });
    if (program[0]?.kind !== 'composite' && program.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['oracle_program'],
        message: 'a program of more than one oracle must start with a composite that owns them',
      });
    }
  });
export type VerdictInput = z.infer<typeof VerdictInputSchema>;

function leaf(spec: Exclude<OracleSpec, { kind: 'composite' }>): Oracle<Candidate> {
  return spec.kind === 'always_pass' ? new AlwaysPass() : new AlwaysFail(spec.reason);
}

/** Builds the oracle a validated program describes. */
export function buildProgram(program: VerdictInput['oracle_program']): Oracle<Candidate> {
  const [head, ...rest] = program;
  if (head === undefined) throw new Error('empty oracle program');
  if (head.kind !== 'composite') return leaf(head);
  const composite = new Composite<Candidate>(head.id);
  for (const spec of rest) {
    if (spec.kind === 'composite') throw new Error('nested composite');
    composite.register(leaf(spec));
  }
  return composite;
}
