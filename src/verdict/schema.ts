import { z } from 'zod';

/** Why an oracle said no. oracle/1 defines only the `custom` kind; the gate's own reasons use it. */
export const FailReasonSchema = z
  .object({
    kind: z.literal('custom'),
    subkind: z.string(),
    message: z.string(),
  })
  .strict();
export type FailReason = z.infer<typeof FailReasonSchema>;

export const PassVerdictSchema = z.object({ kind: z.literal('pass'), chain: z.array(z.string()) }).strict();
export const FailVerdictSchema = z
  .object({ kind: z.literal('fail'), reasons: z.array(FailReasonSchema).min(1) })
  .strict();
export const VerdictSchema = z.discriminatedUnion('kind', [PassVerdictSchema, FailVerdictSchema]);

export type PassVerdict = z.infer<typeof PassVerdictSchema>;
export type FailVerdict = z.infer<typeof FailVerdictSchema>;
export type Verdict = z.infer<typeof VerdictSchema>;

export function pass(chain: readonly string[]): PassVerdict {
  return { kind: 'pass', chain: [...chain] };
}

export function fail(subkind: string, message: string): FailVerdict {
  return { kind: 'fail', reasons: [{ kind: 'custom', subkind, message }] };
}

export function failWith(reasons: readonly FailReason[]): FailVerdict {
  if (reasons.length === 0) throw new Error('a Fail verdict needs at least one reason');
  return { kind: 'fail', reasons: [...reasons] };
}
