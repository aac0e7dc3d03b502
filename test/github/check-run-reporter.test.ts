import { afterEach, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/gate/report.js';
import { CheckRunReporter } from '../../src/github/check-run-reporter.js';
import { gitHubApi } from '../../src/github/github-api.js';
import { renderSummary } from '../../src/report/summary-markdown.js';
import { emptyReport } from '../report/helpers/hostile.js';
import { markdownViolations } from '../report/helpers/markdown-safety.js';
import {
  startGitHubApiServer,
  type GitHubApiServer,
  type ServerBehaviour,
} from './helpers/github-api-server.js';

const HEAD = '6dcb09b5b57875f334f61aebed695e2e4193db5e';
let server: GitHubApiServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function reporterAgainst(behaviour: ServerBehaviour = {}) {
  server = await startGitHubApiServer(behaviour);
  const sleeps: number[] = [];
  const api = gitHubApi({
    token: 'ghs_test',
    owner: 'octocat',
    repo: 'Hello-World',
    baseUrl: server.url,
    retry: { sleep: async (ms) => void sleeps.push(ms) },
  });
  const reporter = new CheckRunReporter(api, {
    checkName: 'oracle-gate',
    headSha: HEAD,
    now: () => new Date('2026-05-04T01:14:52.123Z'),
  });
  return { reporter, server, sleeps };
}

function passReport(overrides: Partial<GateReport> = {}): GateReport {
  return emptyReport({
    verdict: { kind: 'pass', chain: ['oracle-gate', 'config', 'tests'] },
    attested: true,
    testsHash: 'a'.repeat(64),
    ...overrides,
  });
}

function hunks(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    path: `docs/page-${i}.md`,
    oldStart: i + 1,
    oldLines: 2,
    newStart: i + 1,
    newLines: i % 5 === 0 ? 0 : 3,
    reason: 'outside the allow-list',
  }));
}

describe('the check run, against a server that validates every request with GitHub OpenAPI description', () => {
  it('creates it in progress on the head SHA, then completes a Pass as success', async () => {
    const { reporter, server } = await reporterAgainst();
    const channel = await reporter.start();
    expect(channel.kind).toBe('check-run');
    const report = passReport();
    const result = await reporter.finish(report, renderSummary(report));
    expect(result.problems).toEqual([]);
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.operationId, r.status])).toEqual([
      ['checks/create', 201],
      ['checks/update', 200],
    ]);
    expect(server.requests[0]!.body).toEqual({
      name: 'oracle-gate',
      head_sha: HEAD,
      status: 'in_progress',
      started_at: '2026-05-04T01:14:52Z',
      output: { title: 'Grading', summary: `oracle-gate is grading ${HEAD}.` },
    });
    const run = [...server.checkRuns.values()][0]!;
    expect(run).toMatchObject({ status: 'completed', conclusion: 'success', head_sha: HEAD });
    expect(run.output.title).toBe('Pass: oracle-gate > config > tests');
  });

  it('sends 120 dropped hunks as 120 warning annotations over 3 requests, the verdict in the first', async () => {
    const { reporter, server } = await reporterAgainst();
    await reporter.start();
    const report = passReport({ droppedHunks: hunks(120) });
    const result = await reporter.finish(report, renderSummary(report));
    expect(result).toMatchObject({ annotationsDelivered: true, problems: [] });
    expect(server.violations()).toEqual([]);
    const updates = server.requests.filter((r) => r.operationId === 'checks/update');
    expect(updates.length).toBeGreaterThanOrEqual(3);
    const sizes = updates.map(
      (r) => (r.body as { output: { annotations?: unknown[] } }).output.annotations?.length ?? 0,
    );
    expect(sizes).toEqual([50, 50, 20]);
    expect(updates[0]!.body).toMatchObject({ status: 'completed', conclusion: 'success' });
    const run = [...server.checkRuns.values()][0]!;
    expect(run.annotations).toHaveLength(120);
    expect(
      run.annotations.every((a) => (a as { annotation_level: string }).annotation_level === 'warning'),
    ).toBe(true);
    expect(run.annotations[0]).toMatchObject({ path: 'docs/page-0.md', start_line: 1, end_line: 1 });
    expect(run.annotations[1]).toMatchObject({ path: 'docs/page-1.md', start_line: 2, end_line: 4 });
  });

  it('completes a Fail as failure, never neutral, with the first reason in the title', async () => {
    const { reporter, server } = await reporterAgainst();
    await reporter.start();
    const report = emptyReport({
      verdict: {
        kind: 'fail',
        reasons: [{ kind: 'custom', subkind: 'denied-path', message: 'the patch touches conftest.py' }],
      },
      deniedTouches: [{ path: 'conftest.py', change: 'added', rule: 'deny glob **/conftest.py' }],
    });
    await reporter.finish(report, renderSummary(report));
    expect(server.violations()).toEqual([]);
    const run = [...server.checkRuns.values()][0]!;
    expect(run.conclusion).toBe('failure');
    expect(run.output.title).toBe('Fail: denied-path: the patch touches conftest.py');
    expect(run.annotations).toEqual([
      expect.objectContaining({ annotation_level: 'failure', path: 'conftest.py' }),
    ]);
  });

  it('completes an unattested Pass as failure', async () => {
    const { reporter, server } = await reporterAgainst();
    await reporter.start();
    const report = passReport({ verdict: { kind: 'pass', chain: ['unattested-pass'] }, attested: false });
    await reporter.finish(report, renderSummary(report));
    expect([...server.checkRuns.values()][0]!.conclusion).toBe('failure');
  });

  it('takes a 403 on creation as a read-only token: the job carries the report, and that is no problem', async () => {
    const { reporter, server } = await reporterAgainst({ refuse: { 'checks/create': { status: 403 } } });
    const channel = await reporter.start();
    expect(channel).toEqual({
      kind: 'job',
      why: "the token cannot write check runs (HTTP 403), as on a fork's pull request",
    });
    const result = await reporter.finish(passReport(), 'summary');
    expect(result).toEqual({ channel, annotationsDelivered: false, problems: [] });
    expect(server.requests).toHaveLength(1);
  });

  it('retries 5xx and rate limits with backoff, then succeeds', async () => {
    const reset = String(Math.floor(Date.now() / 1000) + 2);
    const { reporter, server, sleeps } = await reporterAgainst({
      failFirst: {
        'checks/create': [{ status: 502 }, { status: 429, headers: { 'retry-after': '3' } }],
        'checks/update': [
          { status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': reset } },
          { status: 503 },
        ],
      },
    });
    expect((await reporter.start()).kind).toBe('check-run');
    const result = await reporter.finish(passReport(), 'summary');
    expect(result.problems).toEqual([]);
    expect(server.requests.map((r) => r.status)).toEqual([502, 429, 201, 403, 503, 200]);
    expect(sleeps).toHaveLength(4);
    expect(sleeps[0]).toBe(1_000);
    expect(sleeps[1]).toBe(3_000);
    expect(sleeps[2]).toBeGreaterThan(0);
    expect(sleeps[2]).toBeLessThanOrEqual(2_000);
    expect(sleeps[3]).toBe(2_000); // the second attempt of this update: backoff doubles
    expect([...server.checkRuns.values()][0]!.conclusion).toBe('success');
  });

  it('gives up after 4 attempts and reports the problem; the check run is then never completed as a Pass', async () => {
    const { reporter, server } = await reporterAgainst({
      failFirst: { 'checks/update': Array.from({ length: 4 }, () => ({ status: 500 })) },
    });
    await reporter.start();
    const result = await reporter.finish(passReport(), 'summary');
    expect(result.annotationsDelivered).toBe(false);
    expect(result.problems).toEqual([expect.stringContaining('could not be completed: HTTP 500')]);
    expect(server.requests.filter((r) => r.operationId === 'checks/update')).toHaveLength(4);
    expect([...server.checkRuns.values()][0]!.status).toBe('in_progress');
  });

  it('reports a failed annotation batch as a problem, after the verdict landed', async () => {
    const { reporter, server } = await reporterAgainst({
      failFirst: {
        'checks/update': [{ status: 200 }, ...Array.from({ length: 4 }, () => ({ status: 500 }))],
      },
    });
    await reporter.start();
    const report = passReport({ droppedHunks: hunks(60) });
    const result = await reporter.finish(report, renderSummary(report));
    expect(result.annotationsDelivered).toBe(false);
    expect(result.problems).toEqual([expect.stringContaining('annotations 51-60 could not be added')]);
    expect(server.violations()).toEqual([]);
  });

  it('lands the conclusion without annotations when GitHub refuses them, and reports the problem', async () => {
    const { reporter, server } = await reporterAgainst({ refuseAnnotations: { status: 422 } });
    await reporter.start();
    const report = emptyReport({
      verdict: { kind: 'fail', reasons: [{ kind: 'custom', subkind: 'hidden-tests-failed', message: 'x' }] },
      tests: [{ id: 'TestX::test_y', suite: 'hidden', status: 'failed', message: 'boom' }],
    });
    const result = await reporter.finish(report, renderSummary(report));
    expect(server.requests.map((r) => [r.operationId, r.status])).toEqual([
      ['checks/create', 201],
      ['checks/update', 422],
      ['checks/update', 200],
    ]);
    const run = [...server.checkRuns.values()][0]!;
    expect(run).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(run.annotations).toEqual([]);
    expect(result.annotationsDelivered).toBe(false);
    expect(result.problems).toEqual([expect.stringContaining('refused its annotations')]);
  });

  it('a rate limit that outlasts the retries is a problem, not a read-only token', async () => {
    const { reporter } = await reporterAgainst({
      refuse: {
        'checks/create': {
          status: 403,
          headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '9999999999' },
        },
      },
    });
    expect((await reporter.start()).kind).toBe('job');
    expect((await reporter.finish(passReport(), 's')).problems).toEqual([
      expect.stringContaining('the check run could not be created: HTTP 403'),
    ]);
  });

  it('an error other than 401/403/404 on creation falls back to the job and is a problem', async () => {
    const { reporter } = await reporterAgainst({ refuse: { 'checks/create': { status: 422 } } });
    const channel = await reporter.start();
    expect(channel.kind).toBe('job');
    expect((await reporter.finish(passReport(), 's')).problems).toEqual([
      expect.stringContaining('the check run could not be created: HTTP 422'),
    ]);
  });

  it('keeps hostile test output inert and within limits all the way to the API', async () => {
    const hostile =
      '::error::owned%0A::warning::x\n##[error]y\r\n<script>alert(1)</script> | `[a](b)` ' +
      'z'.repeat(100 * 1024);
    const { reporter, server } = await reporterAgainst();
    await reporter.start();
    const report = emptyReport({
      verdict: {
        kind: 'fail',
        reasons: [{ kind: 'custom', subkind: 'hidden-tests-failed', message: hostile }],
      },
      tests: [
        {
          id: hostile,
          suite: 'hidden',
          status: 'failed',
          message: hostile,
          file: 'oracle_tests/test_x.py',
          line: 4,
        },
      ],
    });
    await reporter.finish(report, renderSummary(report));
    expect(server.violations()).toEqual([]);
    const run = [...server.checkRuns.values()][0]!;
    expect(markdownViolations(run.output.summary!)).toEqual([]);
    expect(Buffer.byteLength(run.output.title!)).toBeLessThanOrEqual(255);
    const annotation = run.annotations[0] as { message: string; title: string };
    expect(Buffer.byteLength(annotation.message)).toBeLessThanOrEqual(64_000);
    expect(annotation.message.endsWith('…[cut]')).toBe(true);
    expect(Buffer.byteLength(annotation.title)).toBeLessThanOrEqual(255);
  });
});
