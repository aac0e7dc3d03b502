import { z } from 'zod';
import { parseChecked, type Checked } from '../json/parse-checked.js';
import { globProblem, normalizeGlob } from './glob.js';
import { recordAsMap } from './record-map.js';
import { repoPathProblem } from './repo-path.js';

/**
 * `oracle.json`: the gate's configuration, owned by a human and validated strictly. Unknown keys
 * are errors at every level, so a typo never silently leaves a default in force. Defaults are
 * DESIGN.md's; see DEFAULTS below.
 */

// The image reference grammar of distribution/reference, digest required and no tag.
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[[0-9a-fA-F:]+\\])(?::[0-9]+)?`;
const NAME = `(?:${DOMAIN}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const IMAGE_NAME = new RegExp(`^${NAME}$`);
const IMAGE_NAME_WITH_TAG = new RegExp(`^${NAME}:[\\w][\\w.-]{0,127}$`);

function imageProblem(image: string): string | null {
  if (image.length > 512) return 'image reference longer than 512 characters';
  const at = image.lastIndexOf('@');
  if (at === -1)
    return IMAGE_NAME.test(image) || IMAGE_NAME_WITH_TAG.test(image)
      ? 'must be pinned by digest, name@sha256:<64 hex>; a tag can move, so it alone is refused'
      : 'must be an image reference pinned by digest, name@sha256:<64 hex>';
  const [name, digest] = [image.slice(0, at), image.slice(at + 1)];
  if (!/^sha256:[0-9a-f]{64}$/.test(digest))
    return 'the digest must be sha256: followed by 64 lowercase hex digits';
  if (IMAGE_NAME_WITH_TAG.test(name))
    return 'drop the tag: the digest alone pins the image (name@sha256:<64 hex>)';
  if (!IMAGE_NAME.test(name))
    return 'the name before @ is not an image name (lowercase path components, optional registry host)';
  return null;
}

/** Variables the gate sets, which oracle.json may not override (HOME: see src/container/run-config.ts). */
export const RESERVED_ENV = [
  'TZ',
  'LC_ALL',
  'PYTHONHASHSEED',
  'SOURCE_DATE_EPOCH',
  'ORACLE_REPORT_DIR',
  'HOME',
] as const;

function envKeyProblem(key: string): string | null {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,255}$/.test(key))
    return 'not a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*)';
  if ((RESERVED_ENV as readonly string[]).includes(key))
    return `set by the gate (${RESERVED_ENV.join(', ')}); it cannot be overridden`;
  if (key.startsWith('ORACLE_')) return 'names starting with ORACLE_ are reserved for the gate';
  if (key.startsWith('GIT_')) return "GIT_* variables would change the harness's git";
  return null;
}

// Where the hidden tests land in the checkout; the harness uses it in shell commands, so the
// character set is narrow on top of the repository-path rules.
function destProblem(dest: string): string | null {
  const problem = repoPathProblem(dest);
  if (problem) return problem;
  if (!dest.split('/').every((s) => /^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(s)))
    return 'use only letters, digits, . _ - and / (no segment starting with -)';
  return null;
}

const MEMORY_UNITS = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as const;

/** Bytes of a memory limit as oracle.json writes it (`512m`, `2g`). */
export function memoryBytes(memory: string): number {
  const match = /^([1-9][0-9]{0,9})([kmg])$/.exec(memory);
  if (!match) throw new Error(`not a memory size: ${memory}`);
  return Number(match[1]) * MEMORY_UNITS[match[2] as keyof typeof MEMORY_UNITS];
}

function memoryProblem(memory: string): string | null {
  if (!/^[1-9][0-9]{0,9}[kmg]$/.test(memory)) return 'a size with a unit: <n>k, <n>m or <n>g (e.g. 2g)';
  if (memoryBytes(memory) < 6 * 1024 ** 2) return 'at least 6m (Docker refuses less)';
  return null;
}

function userProblem(user: string): string | null {
  const match = /^([0-9]{1,10}):([0-9]{1,10})$/.exec(user);
  if (!match) return 'numeric uid:gid, e.g. 1000:1000';
  const [uid, gid] = [Number(match[1]), Number(match[2])];
  if (uid > 2 ** 31 - 1 || gid > 2 ** 31 - 1) return 'uid and gid must be below 2^31';
  if (uid === 0) return 'the tests never run as root (uid 0)';
  return null;
}

/** A string refined by a function returning the problem or null. */
const checked = (problem: (value: string) => string | null) =>
  z.string().superRefine((value, ctx) => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: 'custom', message, input: value });
  });

const command = z
  .string()
  .max(65536, 'command longer than 65536 characters')
  .refine((c) => c.trim() !== '', 'empty command')
  .refine((c) => !c.includes('\u0000'), 'command holds a NUL character');

const glob = checked(globProblem).transform(normalizeGlob);

export const DEFAULTS = {
  hidden_tests_dest: 'oracle_tests',
  timeout_seconds: 900,
  limits: { memory: '2g', cpus: 2, pids: 512 },
  source_date_epoch: 315532800,
  user: '1000:1000',
  flake: { window: 20, min_runs: 5, freeze_above: 0.2, unfreeze_below: 0.05, freeze_budget: 0.1 },
} as const;

export const FlakeParamsSchema = z
  .strictObject({
    window: z
      .number()
      .int('an integer')
      .min(1, 'at least 1')
      .max(1000, 'at most 1000')
      .default(DEFAULTS.flake.window),
    min_runs: z.number().int('an integer').min(1, 'at least 1').default(DEFAULTS.flake.min_runs),
    freeze_above: z
      .number()
      .gt(0, 'above 0 (0 would freeze every test)')
      .max(1, 'a failure rate, at most 1')
      .default(DEFAULTS.flake.freeze_above),
    unfreeze_below: z
      .number()
      .min(0, 'a failure rate, at least 0')
      .max(1, 'a failure rate, at most 1')
      .default(DEFAULTS.flake.unfreeze_below),
    freeze_budget: z
      .number()
      .min(0, 'a fraction, at least 0')
      .max(1, 'a fraction, at most 1')
      .default(DEFAULTS.flake.freeze_budget),
  })
  .superRefine((flake, ctx) => {
    if (flake.min_runs > flake.window)
      ctx.addIssue({
        code: 'custom',
        path: ['min_runs'],
        message: 'must not exceed window',
        input: flake.min_runs,
      });
    if (flake.unfreeze_below >= flake.freeze_above)
      ctx.addIssue({
        code: 'custom',
        path: ['unfreeze_below'],
        message: 'must be below freeze_above, or a test at the threshold would flap',
        input: flake.unfreeze_below,
      });
  });
export type FlakeParams = z.output<typeof FlakeParamsSchema>;

export const OracleConfigSchema = z.strictObject({
  image: checked(imageProblem),
  existing_suite: z
    .strictObject({
      command,
      /** Globs restored to their base-commit version before the suite runs. */
      paths: z.array(glob).max(10000, 'at most 10000 globs').default([]),
    })
    .optional(),
  hidden_tests: z.strictObject({
    command,
    dest: checked(destProblem).default(DEFAULTS.hidden_tests_dest),
  }),
  env: recordAsMap(
    envKeyProblem,
    z
      .string()
      .max(32768, 'value longer than 32768 characters')
      .refine((v) => !v.includes('\u0000'), 'value holds a NUL character'),
  )
    .refine((env) => env.size <= 256, 'at most 256 variables')
    .prefault({}),
  timeout_seconds: z
    .number()
    .int('whole seconds')
    .min(1, 'at least 1 second')
    .max(21600, 'at most 21600 seconds (6 hours, the GitHub job limit)')
    .default(DEFAULTS.timeout_seconds),
  limits: z
    .strictObject({
      memory: checked(memoryProblem).default(DEFAULTS.limits.memory),
      cpus: z.number().gt(0, 'above 0').max(1024, 'at most 1024').default(DEFAULTS.limits.cpus),
      pids: z
        .number()
        .int('an integer')
        .min(1, 'at least 1')
        .max(4194304, 'at most 4194304')
        .default(DEFAULTS.limits.pids),
    })
    .prefault({}),
  source_date_epoch: z
    .number()
    .int('whole seconds')
    .min(0, 'at least 0')
    .max(253402300799, 'at most 253402300799 (year 9999)')
    .default(DEFAULTS.source_date_epoch),
  user: checked(userProblem).default(DEFAULTS.user),
  policy: z
    .strictObject({
      allow_symlinks: z.boolean().default(false),
      allow_submodules: z.boolean().default(false),
      allow_gitattributes: z.boolean().default(false),
    })
    .prefault({}),
  flake: FlakeParamsSchema.prefault({}),
});
export type OracleConfig = z.output<typeof OracleConfigSchema>;
export type PathPolicyOptions = OracleConfig['policy'];

/** Parses oracle.json's text; the error is one line naming the field. */
export function parseOracleConfig(text: string): Checked<OracleConfig> {
  return parseChecked(OracleConfigSchema, text);
}
