import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/gate/report.js';
import { readFixtureJson } from '../helpers/fixtures.js';
import { emptyReport } from '../report/helpers/hostile.js';
import { markdownViolations } from '../report/helpers/markdown-safety.js';
import {
  startGitHubApiServer,
  type GitHubApiServer,
  type ServerBehaviour,
} from './helpers/github-api-server.js';
import { runInProcess } from './helpers/run-in-process.js';
import { makeTempRepo, payloadWithShas } from './helpers/temp-repo.js';
import { removeRunnerTemps } from './helpers/runner-temp.js';

/** The action's run(), in process, with synthetic gate reports: what phase 2 repeats through dist. */
const HASH = 'h1:' + 'A'.repeat(43) + '=';
let server: GitHubApiServer | undefined;
afterAll(removeRunnerTemps);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function act(
  gate: GateReport | (() => Promise<GateReport>),
  options: { behaviour?: ServerBehaviour; fixture?: string; inputs?: Record<string, string> } = {},
) {
  const repo = makeTempRepo();
  server = await startGitHubApiServer(options.behaviour);
  const run = await runInProcess({
    apiUrl: server.url,
    eventName: 'pull_request',
    payload: payloadWithShas(
      readFixtureJson(`github/${options.fixture ?? 'pull_request.opened.json'}`),
      repo.baseSha,
      repo.headSha,
    ),
    inputs: { 'oracle-path': 'oracle', 'oracle-hash': HASH, ...options.inputs },
    workspace: repo.dir,
    gate,
  });
  return { run, server, repo };
}

const passReport = (overrides: Partial<GateReport> = {}): GateReport =>
  emptyReport({
    verdict: { kind: 'pass', chain: ['oracle-gate', 'config', 'oracle-hash', 'path-policy', 'tests'] },
    attested: true,
    testsHash: 'c'.repeat(64),
    oracleHash: HASH,
    imageDigest: `registry.example/app@sha256:${'d'.repeat(64)}`,
    diffSha256: 'e'.repeat(64),
    ...overrides,
  });

const hunks = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    path: `docs/p${i}.md`,
    oldStart: 3,
    oldLines: 1,
    newStart: 3,
    newLines: 2,
    reason: 'outside the allow-list',
  }));

describe('run() with a synthetic gate', () => {
  it('hands the gate the event SHAs, the resolved paths and the pinned hash', async () => {
    const { run, repo } = await act(passReport());
    expect(run.gateRequests).toEqual([
      expect.objectContaining({
        repoDir: repo.dir,
        baseSha: repo.baseSha,
        headSha: repo.headSha,
        oracleDir: `${repo.dir}/oracle`,
        pinnedOracleHash: HASH,
        mode: 'grade',
        logPath: `${run.runnerTemp}/oracle-gate/oracle.log`,
      }),
    ]);
  });

  it('a Pass concludes success, passes the step and sets the outputs', async () => {
    const { run, server } = await act(passReport());
    expect(server.violations()).toEqual([]);
    expect([...server.checkRuns.values()]).toEqual([
      expect.objectContaining({ conclusion: 'success', status: 'completed' }),
    ]);
    expect(run.status).toBe(0);
    expect(run.commands).toEqual([]);
    expect(run.outputs).toMatchObject({
      verdict: 'pass',
      attested: 'true',
      'verdict-json': '{"kind":"pass","chain":["oracle-gate","config","oracle-hash","path-policy","tests"]}',
      'tests-hash': 'c'.repeat(64),
      'oracle-hash': HASH,
      'diff-sha256': 'e'.repeat(64),
    });
  });

  it('120 dropped hunks reach GitHub as 120 warning annotations over 3 or more valid requests', async () => {
    const { run, server } = await act(passReport({ droppedHunks: hunks(120) }));
    expect(server.violations()).toEqual([]);
    const updates = server.requests.filter((r) => r.operationId === 'checks/update');
    expect(updates.length).toBeGreaterThanOrEqual(3);
    const run0 = [...server.checkRuns.values()][0]!;
    expect(run0.annotations).toHaveLength(120);
    expect(
      run0.annotations.every((a) => (a as { annotation_level: string }).annotation_level === 'warning'),
    ).toBe(true);
    expect(JSON.parse(run.outputs['dropped-hunks']!)).toHaveLength(120);
    expect(run.outputs['dropped-hunks-count']).toBe('120');
    expect(run.summary).toContain('### Dropped hunks (120)');
    expect(run.commands).toEqual([]); // the annotations went to the check run, not the log
  });

  it('an unattested Pass fails the check and the step', async () => {
    const { run, server } = await act(
      passReport({ verdict: { kind: 'pass', chain: ['unattested-pass'] }, attested: false }),
    );
    expect([...server.checkRuns.values()][0]!.conclusion).toBe('failure');
    expect(run.status).toBe(1);
    expect(run.outputs).toMatchObject({ verdict: 'pass', attested: 'false' });
  });

  it('a Pass whose check run cannot be completed fails the step: the required check would never pass', async () => {
    const { run } = await act(passReport(), {
      behaviour: { failFirst: { 'checks/update': Array.from({ length: 4 }, () => ({ status: 502 })) } },
    });
    expect(run.status).toBe(1);
    expect(run.commands.map((c) => c.name)).toEqual(['error']);
    expect(run.commands[0]!.data).toContain('the report was not fully delivered: the check run');
  });

  it('a gate that throws is a Fail, and the open check run is completed as failure', async () => {
    const { run, server } = await act(async () => {
      throw new Error('docker exploded');
    });
    expect([...server.checkRuns.values()][0]).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(run.status).toBe(1);
    expect(JSON.parse(run.outputs['verdict-json']!)).toEqual({
      kind: 'fail',
      reasons: [
        {
          kind: 'custom',
          subkind: 'internal-error',
          message: 'the action stopped before a verdict: docker exploded',
        },
      ],
    });
  });

  it('on a fork (403 on create), the job summary and workflow-command annotations carry the report', async () => {
    const report = emptyReport({
      verdict: { kind: 'fail', reasons: [{ kind: 'custom', subkind: 'denied-path', message: 'denied' }] },
      deniedTouches: Array.from({ length: 12 }, (_, i) => ({
        path: `.github/w${i}.yml`,
        change: 'added' as const,
        rule: 'deny glob .github/**',
      })),
      droppedHunks: hunks(120),
    });
    const { run, server } = await act(report, {
      fixture: 'pull_request.fork.synchronize.json',
      behaviour: { refuse: { 'checks/create': { status: 403 } } },
    });
    expect(server.requests).toHaveLength(1);
    expect(run.status).toBe(1);
    const errors = run.commands.filter((c) => c.name === 'error');
    const warnings = run.commands.filter((c) => c.name === 'warning');
    expect(errors).toHaveLength(10); // 8 paths + "4 more" + the step's own failure
    expect(errors[0]).toMatchObject({
      form: 'v2',
      properties: {
        file: '.github/w0.yml',
        line: '1',
        endLine: '1',
        title: 'oracle-gate: denied path (added)',
      },
    });
    expect(errors[8]!.data).toContain('4 more failures are not shown here');
    expect(errors[9]!.data).toBe('oracle-gate: Fail: denied-path: denied');
    expect(warnings).toHaveLength(10);
    expect(warnings[0]).toMatchObject({ properties: { file: 'docs/p0.md', line: '3', endLine: '4' } });
    expect(run.summary).toContain('### Denied paths (12)');
    expect(run.summary).toContain('### Dropped hunks (120)');
    expect(markdownViolations(run.summary)).toEqual([]);
  });
});

describe('output injection through run()', () => {
  const hostile =
    'name ::error::owned %0A::warning::x\n::error file=a::nl\r\n##[error]legacy <script>alert(1)</script> | `x` [l](https://e.x) ' +
    'z'.repeat(100 * 1024);
  const report = emptyReport({
    verdict: {
      kind: 'fail',
      reasons: [{ kind: 'custom', subkind: 'hidden-tests-failed', message: hostile }],
    },
    tests: [
      {
        id: `oracle_tests/test_x.py::${hostile}`,
        suite: 'hidden',
        status: 'failed',
        message: hostile,
        line: 2,
      },
    ],
  });

  it('reaches the check run summary and annotations harmless and cut', async () => {
    const { run, server } = await act(report);
    expect(server.violations()).toEqual([]);
    const checkRun = [...server.checkRuns.values()][0]!;
    expect(markdownViolations(checkRun.output.summary!)).toEqual([]);
    expect(checkRun.output.summary).not.toContain('<script>');
    expect(checkRun.output.summary!.length).toBeLessThan(65_535);
    expect(run.summary).toContain('&#60;script&#62;');
    const [annotation] = checkRun.annotations as { message: string; title: string; path: string }[];
    expect(annotation!.path).toBe('oracle_tests/test_x.py');
    expect(Buffer.byteLength(annotation!.message)).toBeLessThanOrEqual(64_000);
    expect(Buffer.byteLength(annotation!.title)).toBeLessThanOrEqual(255);
    // The job log holds exactly one command: the step's own failure, whose text stays its data.
    expect(run.commands.map((c) => c.name)).toEqual(['error']);
    expect(
      run.commands[0]!.data.startsWith(
        'oracle-gate: Fail: hidden-tests-failed: name ::error::owned %0A::warning::x',
      ),
    ).toBe(true);
    for (const line of run.stdout.split('\n')) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(4_200);
    expect(markdownViolations(run.summary)).toEqual([]);
  });

  it('reaches the job log, summary and workflow annotations harmless and cut on a fork', async () => {
    const { run } = await act(report, {
      fixture: 'pull_request.fork.synchronize.json',
      behaviour: { refuse: { 'checks/create': { status: 403 } } },
    });
    expect(run.commands.map((c) => [c.form, c.name])).toEqual([
      ['v2', 'error'],
      ['v2', 'error'],
    ]);
    const [annotation] = run.commands;
    expect(annotation!.properties.file).toBe('oracle_tests/test_x.py');
    expect(annotation!.data).toContain(
      '::error::owned %0A::warning::x\n::error file=a::nl\n##\\[error]legacy',
    );
    expect(Buffer.byteLength(annotation!.data)).toBeLessThanOrEqual(4_096);
    expect(run.summary).toContain('_No check run: the token cannot write check runs');
    expect(run.summary).toContain('&#60;script&#62;');
    expect(markdownViolations(run.summary)).toEqual([]);
  });
});
