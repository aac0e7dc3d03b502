import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readActionInputs } from '../../src/github/action-inputs.js';
import { renderOutputs } from '../../src/report/action-outputs.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { emptyReport } from '../report/helpers/hostile.js';
import { actionYmlInputs } from './helpers/run-action.js';

const HASH = 'h1:' + 'Ab+/'.repeat(10) + 'xyz=';

function env(inputs: Record<string, string>, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { GITHUB_WORKSPACE: '/ws', RUNNER_TEMP: '/rt', ...extra };
  for (const [k, v] of Object.entries(inputs)) out[`INPUT_${k.toUpperCase()}`] = v;
  return out;
}

describe('readActionInputs', () => {
  it('reads INPUT_ variables named as the runner names them (dash kept, upper case)', () => {
    const inputs = readActionInputs(
      env({
        'oracle-path': 'oracle',
        'oracle-hash': HASH,
        'github-token': 't',
        'pr-number': '42',
        'fail-on-verdict': 'False',
      }),
    );
    expect(inputs).toEqual({
      oraclePath: '/ws/oracle',
      oracleHash: HASH,
      githubToken: 't',
      mode: 'grade',
      checkName: 'oracle-gate',
      failOnVerdict: false,
      repositoryPath: '/ws',
      prNumber: 42,
      logPath: '/rt/oracle-gate/oracle.log',
    });
  });

  it.each([
    [{ 'oracle-path': '' }, 'input `oracle-path` required'],
    [{ 'oracle-hash': 'h1:short' }, 'input `oracle-hash` must be `h1:` and the base64 of a sha256'],
    [{ 'oracle-hash': 'sha256:' + 'a'.repeat(64) }, 'input `oracle-hash` must be'],
    [{ mode: 'grading' }, 'input `mode` must be `grade` or `baseline`'],
    [{ 'fail-on-verdict': 'yes' }, 'input `fail-on-verdict` must be `true` or `false`'],
    [{ 'pr-number': '0' }, 'input `pr-number` must be a pull request number'],
    [{ 'pr-number': '12abc' }, 'input `pr-number` must be a pull request number'],
    [{ 'check-name': 'x'.repeat(101) }, 'input `check-name` must be at most 100 characters'],
    [{ 'oracle-path': 'a\u0007b' }, 'input `oracle-path` holds a control character'],
    [{ 'github-token': '' }, 'input `github-token` required'],
  ])('refuses %j with one line naming the input', (override, message) => {
    const base = { 'oracle-path': 'oracle', 'oracle-hash': HASH, 'github-token': 't' };
    expect(() => readActionInputs(env({ ...base, ...override }))).toThrow(message);
  });
});

describe('action.yml', () => {
  it('declares exactly the inputs the action reads, and runs dist/index.js on node24', () => {
    expect([...actionYmlInputs().keys()].sort()).toEqual([
      'check-name',
      'fail-on-verdict',
      'github-token',
      'log-path',
      'mode',
      'oracle-hash',
      'oracle-path',
      'pr-number',
      'repository-path',
    ]);
    const text = readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8');
    expect(text).toMatch(/^runs:\n {2}using: node24\n {2}main: dist\/index\.js\n/m);
  });

  it('declares every output the action sets', () => {
    const text = readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8');
    const block = /^outputs:\n([\s\S]*?)^\S/m.exec(text)![1]!;
    const declared = [...block.matchAll(/^ {2}([a-z0-9-]+):/gm)].map((m) => m[1]).sort();
    expect(declared).toEqual(Object.keys(renderOutputs(emptyReport(), {})).sort());
  });
});
