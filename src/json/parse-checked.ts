import type { z } from 'zod';
import { formatJsonPath, strictParseJson, StrictJsonError } from './strict-parse.js';

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

/** One line naming the offending field for the first thing zod found wrong. */
export function describeZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid input';
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0] ?? '';
    return `${formatJsonPath([...issue.path, key])}: unknown field`;
  }
  if (issue.code === 'invalid_union') {
    // zod's discriminated unions already point at the discriminator; plain unions at the value.
    const path = issue.path.at(-1) === 'kind' ? issue.path : [...issue.path, 'kind'];
    return `${formatJsonPath(path)}: unknown kind`;
  }
  if (issue.code === 'invalid_type' && issue.message.includes('received undefined')) {
    return `${formatJsonPath(issue.path)}: missing field`;
  }
  return `${formatJsonPath(issue.path)}: ${issue.message}`;
}

/** Strict JSON (see strict-parse.ts) checked against a schema; every error is one line. */
export function parseChecked<S extends z.ZodType>(schema: S, text: string): Checked<z.output<S>> {
  let raw: unknown;
  try {
    raw = strictParseJson(text);
  } catch (e) {
    if (e instanceof StrictJsonError) {
      const where = e.path.length ? `${formatJsonPath(e.path)}: ` : '';
      return { ok: false, error: `${where}malformed JSON: ${e.message}` };
    }
    throw e;
  }
  const result = schema.safeParse(raw);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, error: describeZodError(result.error) };
}
