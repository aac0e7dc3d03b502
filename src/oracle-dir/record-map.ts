import { z } from 'zod';

/**
 * A JSON object of `key -> value` read into a Map. Unlike z.record, every own key counts:
 * z.record builds a plain object and silently drops `__proto__`, which for a list of sealed files
 * would mean a file never checked. Issues point at the key (`files["a b"]`).
 */
export function recordAsMap<V extends z.ZodType>(
  checkKey: (key: string) => string | null,
  value: V,
): z.ZodType<Map<string, z.output<V>>> {
  return z.unknown().transform((input, ctx) => {
    const out = new Map<string, z.output<V>>();
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      ctx.addIssue({
        code: 'custom',
        message: input === undefined ? 'missing field' : 'expected an object',
        input,
      });
      return z.NEVER;
    }
    const record = input as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const keyProblem = checkKey(key);
      if (keyProblem !== null) {
        ctx.addIssue({ code: 'custom', path: [key], message: keyProblem, input: key });
        continue;
      }
      const parsed = value.safeParse(record[key]);
      if (!parsed.success) {
        for (const issue of parsed.error.issues)
          ctx.addIssue({
            code: 'custom',
            path: [key, ...issue.path],
            message: issue.message,
            input: record[key],
          });
        continue;
      }
      out.set(key, parsed.data);
    }
    return out;
  });
}
