import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runGate } from '../../src/gate/run-gate.js';
import { verdictTitle } from '../../src/report/verdict-title.js';
import { serializeVerdict } from '../../src/verdict/serialize.js';
import { readFixtureJson } from '../helpers/fixtures.js';
import { markdownViolations } from '../report/helpers/markdown-safety.js';
import {
  startGitHubApiServer,
  type GitHubApiServer,
  type ServerBehaviour,
} from './helpers/github-api-server.js';
import { runAction, type ActionRun } from './helpers/run-action.js';
import { makeTempRepo, payloadWithShas, type TempRepo } from './helpers/temp-repo.js';
import { bundleOnce } from './helpers/bundle.js';
import { removeRunnerTemps } from './helpers/runner-temp.js';

/**
 * The bundled action, run as the runner runs it, against the OpenAPI-validating server. The oracle
 * directory here is empty, so the real gate fails closed at its first stage (`config-invalid`:
 * no oracle.json) without running a container: every verdict here is that Fail. The runs over a
 * real oracle and container are in action-gate.e2e.test.ts.
 */
const HASH = 'h1:' + 'A'.repeat(43) + '=';
let server: GitHubApiServer | undefined;

beforeAll(() => bundleOnce());
afterAll(removeRunnerTemps);
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function gate(
  options: {
    behaviour?: ServerBehaviour;
    eventName?: string;
    fixture?: string;
    inputs?: Record<string, string>;
    repo?: TempRepo;
  } = {},
): Promise<{ run: ActionRun; server: GitHubApiServer; repo: TempRepo }> {
  const repo = options.repo ?? makeTempRepo();
  server = await startGitHubApiServer({
    pullRequests: { 42: { baseSha: repo.baseSha, headSha: repo.headSha } },
    ...options.behaviour,
  });
  const oracle = mkdtempSync(join(tmpdir(), 'oracle-gate-oracle-'));
  const run = await runAction({
    apiUrl: server.url,
    eventName: options.eventName ?? 'pull_request',
    payload: payloadWithShas(
      readFixtureJson(`github/${options.fixture ?? 'pull_request.opened.json'}`),
      repo.baseSha,
      repo.headSha,
    ),
    inputs: { 'oracle-path': oracle, 'oracle-hash': HASH, ...options.inputs },
    workspace: repo.dir,
  });
  return { run, server, repo };
}

/** The gate's verdict on an empty oracle directory, computed in process: no container runs. */
async function emptyOracleReport(repo: TempRepo) {
  const oracleDir = mkdtempSync(join(tmpdir(), 'oracle-gate-oracle-'));
  const report = await runGate({
    repoDir: repo.dir,
    baseSha: repo.baseSha,
    headSha: repo.headSha,
    oracleDir,
    pinnedOracleHash: HASH,
    mode: 'grade',
    logPath: join(oracleDir, '..', `${basename(oracleDir)}.log`),
  });
  expect(report.verdict).toMatchObject({ kind: 'fail', reasons: [{ subkind: 'config-invalid' }] });
  return { json: serializeVerdict(report.verdict), title: verdictTitle(report) };
}

describe('node dist/index.js on a pull_request, as the runner runs it', () => {
  it('creates one check run in progress on the head, completes it as failure, sets every output, exits 1', async () => {
    const { run, server, repo } = await gate();
    const expected = await emptyOracleReport(repo);
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.method, r.operationId, r.status])).toEqual([
      ['POST', 'checks/create', 201],
      ['PATCH', 'checks/update', 200],
    ]);
    expect(server.requests[0]!.body).toMatchObject({
      name: 'oracle-gate',
      head_sha: repo.headSha,
      status: 'in_progress',
      details_url: 'https://github.com/octocat/Hello-World/actions/runs/1658821493',
    });
    expect(server.requests[1]!.body).toMatchObject({
      status: 'completed',
      conclusion: 'failure',
      output: { title: expected.title },
    });
    const [checkRun] = [...server.checkRuns.values()];
    expect(server.checkRuns.size).toBe(1);
    expect(checkRun).toMatchObject({ head_sha: repo.headSha, status: 'completed', conclusion: 'failure' });

    expect(run.status).toBe(1);
    expect(run.outputs).toEqual({
      verdict: 'fail',
      'verdict-json': expected.json,
      attested: 'false',
      'tests-hash': '',
      'oracle-hash': '',
      'diff-sha256': '',
      'dropped-hunks': '[]',
      'dropped-hunks-count': '0',
      quarantined: 'false',
      'log-path': join(run.runnerTemp, 'oracle-gate', 'oracle.log'),
      'check-run-id': String(checkRun!.id),
    });
    expect(existsSync(run.outputs['log-path']!)).toBe(true);
    expect(readFileSync(run.outputs['log-path']!, 'utf8')).toContain(`  | ${expected.json}`);
    expect(run.summary).toContain('## ❌ oracle-gate: Fail');
    expect(run.summary).toContain(`<code>${repo.headSha}</code>`);
    expect(markdownViolations(run.summary)).toEqual([]);
    expect(run.summary.length).toBeLessThanOrEqual(65_535);
    // The only workflow command is the step's own failure.
    expect(run.commands.map((c) => [c.name, c.data])).toEqual([['error', `oracle-gate: ${expected.title}`]]);
    expect(run.stderr).toBe('');
  });

  it('with fail-on-verdict false, the check run carries the Fail and the step passes', async () => {
    const { run, server } = await gate({ inputs: { 'fail-on-verdict': 'false' } });
    expect(run.status).toBe(0);
    expect(run.outputs.verdict).toBe('fail');
    expect([...server.checkRuns.values()][0]!.conclusion).toBe('failure');
    expect(run.commands).toEqual([]);
  });

  it('retries 5xx and rate limits, and still creates exactly one check run', async () => {
    const { run, server } = await gate({
      behaviour: {
        failFirst: {
          'checks/create': [{ status: 503, headers: { 'retry-after': '0' } }],
          'checks/update': [{ status: 429, headers: { 'retry-after': '0' } }],
        },
      },
    });
    expect(server.requests.map((r) => r.status)).toEqual([503, 201, 429, 200]);
    expect(server.checkRuns.size).toBe(1);
    expect([...server.checkRuns.values()][0]!.conclusion).toBe('failure');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('could not create the check run (503, attempt 1); retrying in 0 ms');
  });

  it('under workflow_dispatch, reads the PR to find base and head', async () => {
    const { run, server, repo } = await gate({
      eventName: 'workflow_dispatch',
      fixture: 'workflow_dispatch.json',
      inputs: { 'pr-number': '42' },
    });
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.method, r.path])).toEqual([
      ['GET', '/repos/octocat/Hello-World/pulls/42'],
      ['POST', '/repos/octocat/Hello-World/check-runs'],
      ['PATCH', `/repos/octocat/Hello-World/check-runs/${run.outputs['check-run-id']}`],
    ]);
    expect(server.requests[1]!.body).toMatchObject({ head_sha: repo.headSha });
    expect(run.status).toBe(1);
  });

  it('refuses invalid inputs before any API call: a Fail in the job summary and the exit status', async () => {
    const { run, server } = await gate({ inputs: { 'oracle-hash': 'sha256:abc' } });
    expect(server.requests).toEqual([]);
    expect(run.status).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(JSON.parse(run.outputs['verdict-json']!)).toMatchObject({
      reasons: [
        { subkind: 'config-invalid', message: expect.stringContaining('input `oracle-hash` must be') },
      ],
    });
    expect(run.outputs['check-run-id']).toBe('');
    expect(run.summary).toContain('No check run: the action stopped before it could open a check run');
  });

  it('a PR lookup that fails is a Fail, never a Pass', async () => {
    const { run, server } = await gate({
      eventName: 'workflow_dispatch',
      fixture: 'workflow_dispatch.json',
      inputs: { 'pr-number': '7' },
    });
    expect(server.requests.map((r) => r.status)).toEqual([404]);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.outputs['verdict-json']!)).toMatchObject({
      reasons: [{ subkind: 'github-api-error' }],
    });
  });
});

describe('node dist/index.js when something is badly wrong', () => {
  it('an event payload that is not JSON still ends in verdict=fail and a failed step', async () => {
    const repo = makeTempRepo();
    server = await startGitHubApiServer();
    const run = await runAction({
      apiUrl: server.url,
      eventName: 'pull_request',
      payload: {},
      inputs: { 'oracle-path': 'oracle', 'oracle-hash': HASH },
      workspace: repo.dir,
      env: { GITHUB_EVENT_PATH: join(repo.dir, 'src/app.py') },
    });
    expect(run.status).toBe(1);
    expect(run.outputs).toEqual({ verdict: 'fail' });
    expect(run.commands.map((c) => c.name)).toEqual(['error']);
    expect(run.commands[0]!.data).toContain('oracle-gate: internal error:');
    expect(server.requests).toEqual([]);
  });
});

describe('node dist/index.js on a fork PR, whose token cannot write checks', () => {
  it('puts the report in the job summary and annotations, fetches the fork head as data, and exits with the verdict', async () => {
    const repo = makeTempRepo({ headOnlyInOrigin: true });
    const { run, server } = await gate({
      repo,
      fixture: 'pull_request.fork.synchronize.json',
      behaviour: { refuse: { 'checks/create': { status: 403 } } },
      // The exit status carries the verdict where no check run can: fail-on-verdict cannot waive it.
      inputs: { 'fail-on-verdict': 'false' },
    });
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.operationId, r.status])).toEqual([['checks/create', 403]]);
    expect(run.stdout).toContain(`fetching ${repo.headSha} from origin (as objects; nothing is checked out)`);
    expect(run.status).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(run.outputs['check-run-id']).toBe('');
    expect(run.summary).toContain(
      "_No check run: the token cannot write check runs &#40;HTTP 403&#41;, as on a fork&#39;s pull request. This summary and the step's exit status carry the verdict._",
    );
    expect(run.summary).toContain('## ❌ oracle-gate: Fail');
    expect(markdownViolations(run.summary)).toEqual([]);
    expect(run.commands.filter((c) => c.name === 'error').map((c) => c.data)).toEqual([
      `oracle-gate: ${(await emptyOracleReport(repo)).title}`,
    ]);
  });
});
