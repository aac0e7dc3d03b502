import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { GateMode } from '../gate/report.js';

/** The action's inputs, validated (action.yml documents each). */
export interface ActionInputs {
  oraclePath: string;
  oracleHash: string;
  githubToken: string;
  mode: GateMode;
  checkName: string;
  failOnVerdict: boolean;
  repositoryPath: string;
  prNumber?: number;
  logPath: string;
}

/** An input the action cannot accept; its message is one line naming the input. */
export class InputError extends Error {}

// The runner passes input `foo-bar` as INPUT_FOO-BAR (spaces become `_`, the dash is kept).
function inputVariable(name: string): string {
  return `INPUT_${name.replace(/ /g, '_').toUpperCase()}`;
}

const BOOLEAN_TRUE = ['true', 'True', 'TRUE'];
const BOOLEAN_FALSE = ['false', 'False', 'FALSE'];

/** No control characters: a name or a path with one is an attack or an accident. */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const NO_CONTROLS = /^[^\u0000-\u001f\u007f]*$/u;

const schema = z.object({
  'oracle-path': z.string().min(1, 'required').regex(NO_CONTROLS, 'holds a control character'),
  'oracle-hash': z
    .string()
    .min(1, 'required')
    .regex(
      /^h1:[A-Za-z0-9+/]{43}=$/,
      'must be `h1:` and the base64 of a sha256, as `oracle-gate hash` prints it',
    ),
  'github-token': z.string().min(1, 'required (the default is the workflow token)'),
  mode: z.enum(['grade', 'baseline'], { error: 'must be `grade` or `baseline`' }),
  'check-name': z
    .string()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters')
    .regex(NO_CONTROLS, 'holds a control character'),
  'fail-on-verdict': z
    .string()
    .refine((v) => BOOLEAN_TRUE.includes(v) || BOOLEAN_FALSE.includes(v), 'must be `true` or `false`'),
  'repository-path': z.string().regex(NO_CONTROLS, 'holds a control character'),
  'pr-number': z.string().regex(/^(|[1-9][0-9]{0,9})$/, 'must be a pull request number'),
  'log-path': z.string().regex(NO_CONTROLS, 'holds a control character'),
});

const DEFAULTS: Record<string, string> = {
  mode: 'grade',
  'check-name': 'oracle-gate',
  'fail-on-verdict': 'true',
  'repository-path': '',
  'pr-number': '',
  'log-path': '',
};

/**
 * Reads and validates the inputs from the environment the runner sets. Defaults match action.yml
 * for the inputs the runner always sets anyway, so running the bundle by hand behaves the same.
 * Relative paths are taken from GITHUB_WORKSPACE, as a workflow author means them.
 */
export function readActionInputs(env: NodeJS.ProcessEnv): ActionInputs {
  const raw: Record<string, string> = {};
  for (const name of Object.keys(schema.shape)) {
    const value = (env[inputVariable(name)] ?? '').trim();
    raw[name] = value === '' ? (DEFAULTS[name] ?? '') : value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new InputError(`input \`${String(issue.path[0])}\` ${issue.message}`);
  }
  const v = parsed.data;
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const fromWorkspace = (p: string) => (isAbsolute(p) ? p : resolve(workspace, p));
  const prNumber = v['pr-number'] === '' ? undefined : Number(v['pr-number']);
  const tempDir = env.RUNNER_TEMP || tmpdir();
  return {
    oraclePath: fromWorkspace(v['oracle-path']),
    oracleHash: v['oracle-hash'],
    githubToken: v['github-token'],
    mode: v.mode,
    checkName: v['check-name'],
    failOnVerdict: BOOLEAN_TRUE.includes(v['fail-on-verdict']),
    repositoryPath: fromWorkspace(v['repository-path'] || workspace),
    ...(prNumber === undefined ? {} : { prNumber }),
    logPath: v['log-path'] ? fromWorkspace(v['log-path']) : join(tempDir, 'oracle-gate', 'oracle.log'),
  };
}
