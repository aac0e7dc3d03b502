import { accessSync, chmodSync, constants, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSampleRepo, type SampleRepo } from '../container/sample-repo.js';
import { gradeArgs, runGateCli, sampleOracle, tempDirs, type OracleCopy } from './helpers.js';

/**
 * The stages before `container` fail without the engine ever being asked for anything. The proof
 * does not count containers on a shared engine (other test files run their own): the CLI runs with
 * a `docker` first on its PATH that records each invocation and then runs the real one. The same
 * recorder, on an honest patch, shows that it does see the gate's containers.
 */
const tempDir = tempDirs('og-cli-early-');
let repo: SampleRepo;
let oracle: OracleCopy;
beforeAll(async () => {
  repo = await buildSampleRepo();
  oracle = await sampleOracle(tempDir(), inject('testImage'));
});
afterAll(() => repo.remove());

function realDocker(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'docker');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new Error('no docker on PATH');
}

/** A PATH whose `docker` appends its first argument to the returned log, then runs the real one. */
function recordingDocker(): { env: NodeJS.ProcessEnv; calls: () => string[] } {
  const dir = tempDir();
  const log = join(dir, 'calls.log');
  writeFileSync(
    join(dir, 'docker'),
    `#!/bin/sh\nprintf '%s\\n' "$1" >>'${log}'\nexec '${realDocker()}' "$@"\n`,
  );
  chmodSync(join(dir, 'docker'), 0o755);
  return {
    env: { ...process.env, PATH: `${dir}${delimiter}${process.env.PATH ?? ''}` },
    calls: () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
  };
}

const noContainerStage = (stderr: string) => !/^stage container/m.test(stderr);

describe('oracle-gate run: the stages before the container', () => {
  it('the recorder sees the docker calls of a run that reaches the container (control)', () => {
    const docker = recordingDocker();
    const run = runGateCli(gradeArgs(repo, oracle, 'honest', join(tempDir(), 'oracle.log')), docker.env);
    expect(run.status).toBe(0);
    expect(docker.calls()).toEqual(expect.arrayContaining(['create', 'start', 'rm']));
  });

  it('fails denied-path for a patch that edits a workflow, before any container starts', () => {
    const docker = recordingDocker();
    const log = join(tempDir(), 'oracle.log');
    const run = runGateCli(gradeArgs(repo, oracle, 'touches-workflow', log), docker.env);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe(
      '{"kind":"fail","reasons":[{"kind":"custom","subkind":"denied-path","message":"the patch touches a denied path: .github/workflows/ci.yml (modified; deny glob .github/**)"}]}\n',
    );
    expect(docker.calls()).toEqual([]);
    expect(noContainerStage(run.stderr)).toBe(true);
    expect(run.stderr).toMatch(/^stage path-policy: fail in \d+ ms: denied-path: /m);
    expect(readFileSync(log, 'utf8')).toContain('exit reason: not-run');
  });

  it('fails oracle-hash-mismatch when the oracle changed since it was pinned', async () => {
    const changed = await sampleOracle(tempDir(), inject('testImage'), {
      files: { 'tests/test_associativity.py': '# weakened\n' },
    });
    const docker = recordingDocker();
    const run = runGateCli(
      gradeArgs(repo, { dir: changed.dir, hash: oracle.hash }, 'honest', join(tempDir(), 'oracle.log')),
      docker.env,
    );
    expect(run.status).toBe(1);
    expect(run.verdict).toEqual({
      kind: 'fail',
      reasons: [
        {
          kind: 'custom',
          subkind: 'oracle-hash-mismatch',
          message: `the oracle directory hashes to ${changed.hash}, but the pinned oracle hash is ${oracle.hash}: the oracle changed since it was pinned (review the change, then pin the new hash)`,
        },
      ],
    });
    expect(run.testsHash).toBeUndefined();
    expect(run.stdout.split('\n')).toHaveLength(2);
    expect(docker.calls()).toEqual([]);
  });

  it('fails config-invalid with one line naming the field for a bad oracle.json', async () => {
    const bad = await sampleOracle(tempDir(), inject('testImage'), {
      config: { limits: { memory: '512m', cpus: 1, pids: 0 } },
    });
    const docker = recordingDocker();
    const run = runGateCli(gradeArgs(repo, bad, 'honest', join(tempDir(), 'oracle.log')), docker.env);
    expect(run.status).toBe(1);
    expect(run.verdict).toEqual({
      kind: 'fail',
      reasons: [
        {
          kind: 'custom',
          subkind: 'config-invalid',
          message: expect.stringMatching(/^oracle\.json: limits\.pids: /),
        },
      ],
    });
    expect(docker.calls()).toEqual([]);
    expect(noContainerStage(run.stderr)).toBe(true);
  });

  it('escapes untrusted text in its progress lines: no workflow command gets through', async () => {
    const hostile = await sampleOracle(tempDir(), inject('testImage'), {
      config: { env: { '##[error]forged': '1' } },
    });
    const run = runGateCli(gradeArgs(repo, hostile, 'honest', join(tempDir(), 'oracle.log')));
    expect(run.status).toBe(1);
    expect(run.verdict?.kind === 'fail' && run.verdict.reasons[0]?.message).toContain('##[error]forged');
    expect(run.stderr).toContain('##\\[error]forged');
    expect(run.stderr).not.toContain('##[');
  });
});
