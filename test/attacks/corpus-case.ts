import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { fixturePath } from '../helpers/fixtures.js';

/**
 * One case of fixtures/attacks/cases/<name>/case.json: a patch, as edits to a base commit, and
 * the verdict the whole gate must give it. The edits are applied to git's index, not to a work
 * tree, so a case can hold what a checkout cannot express: non-UTF-8 names, symlinks, gitlinks.
 */
export const CORPUS = fixturePath('attacks');

/** A repository path: text (any Unicode, newlines included) or raw bytes in base64. */
const PathSchema = z.union([z.string().min(1), z.strictObject({ base64: z.string().min(1) })]);
export type CasePath = z.infer<typeof PathSchema>;

const ModeSchema = z.enum(['100644', '100755']);

export const EditSchema = z.union([
  z.strictObject({ write: PathSchema, text: z.string(), mode: ModeSchema.optional() }),
  z.strictObject({ write: PathSchema, file: z.string().min(1), mode: ModeSchema.optional() }),
  z.strictObject({ write: PathSchema, base64: z.string(), mode: ModeSchema.optional() }),
  /** Replaces the one occurrence of `old` in a file of the case's starting tree. */
  z.strictObject({ edit: PathSchema, old: z.string().min(1), new: z.string() }),
  z.strictObject({ delete: PathSchema }),
  z.strictObject({ rename: PathSchema, to: PathSchema }),
  z.strictObject({ copy: PathSchema, to: PathSchema }),
  z.strictObject({ symlink: PathSchema, target: z.string().min(1) }),
  z.strictObject({ gitlink: PathSchema, commit: z.string().regex(/^[0-9a-f]{40}$/) }),
  z.strictObject({ chmod: PathSchema, mode: ModeSchema }),
]);
export type Edit = z.infer<typeof EditSchema>;

/** The families the issue names; every one needs at least one attack. */
export const ATTACK_FAMILIES = [
  'edits-existing-test',
  'deletes-existing-test',
  'weakens-existing-test',
  'adds-empty-test',
  'touches-oracle',
  'touches-sealed-fixture',
  'adds-unsealed-fixture',
  'renames-into-denied-path',
  'copies-into-denied-path',
  'symlink-into-denied-path',
  'symlink-out-of-repository',
  'submodule-pointer',
  'gitattributes',
  'runner-config',
  'exits-at-import',
  'forged-report',
  'forged-output',
  'always-equal',
  'hard-coded-answers',
  'reads-git-history',
  'reaches-network',
  'fork-bomb',
  'fills-disk',
  'fills-memory',
  'sleeps-past-limit',
  'hostile-path-names',
] as const;

export const CaseSchema = z.strictObject({
  /** One line: what the patch does. */
  about: z.string().min(1),
  kind: z.enum(['attack', 'honest']),
  /** Attacks: which family of ATTACK_FAMILIES (more may be added); honest patches: their shape. */
  family: z.string().min(1),
  /**
   * `base`: the oracle lies outside the repository; `oracle-in-repo`: at `.oracle/` on the base
   * branch; `child-process-oracle`: outside, with hidden tests that call the code under test in a
   * child process (fixtures/attacks/oracle-child-process over oracle/).
   */
  setup: z.enum(['base', 'oracle-in-repo', 'child-process-oracle']).default('base'),
  edits: z.array(EditSchema).min(1),
  expect: z.union([
    z.strictObject({ verdict: z.literal('pass') }),
    z.strictObject({
      verdict: z.literal('fail'),
      /** The first reason's subkind. */
      subkind: z.string().min(1),
      /** Text the first reason's message must contain: the reason, not just its kind. */
      message: z.string().min(1).optional(),
    }),
  ]),
});
export type CorpusCase = z.infer<typeof CaseSchema> & { name: string; dir: string };

export function loadCorpus(): CorpusCase[] {
  const root = join(CORPUS, 'cases');
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const dir = join(root, name);
      const raw: unknown = JSON.parse(readFileSync(join(dir, 'case.json'), 'utf8'));
      const parsed = CaseSchema.safeParse(raw);
      if (!parsed.success)
        throw new Error(`fixtures/attacks/cases/${name}/case.json: ${parsed.error.message}`);
      return { ...parsed.data, name, dir };
    });
}

export function pathBytes(path: CasePath): Buffer {
  return typeof path === 'string' ? Buffer.from(path, 'utf8') : Buffer.from(path.base64, 'base64');
}

export function expectedText(c: Pick<CorpusCase, 'expect'>): string {
  return c.expect.verdict === 'pass' ? 'pass' : `fail ${c.expect.subkind}`;
}
