import { describe, expect, it } from 'vitest';
import { planTarget, targetFromPullRequest } from '../../src/github/gate-target.js';
import { readFixtureJson } from '../helpers/fixtures.js';

const BASE = 'e5bd3914e2e596debea16f433f57875b5b90bcd6';
const HEAD = '6dcb09b5b57875f334f61aebed695e2e4193db5e';
const ENV = { GITHUB_REPOSITORY: 'octocat/Hello-World', GITHUB_SHA: 'f'.repeat(40) };
const grade = { mode: 'grade' as const };

describe('planTarget', () => {
  it.each(['pull_request', 'pull_request_target'])('takes base and head from a %s payload', (event) => {
    expect(planTarget(event, readFixtureJson('github/pull_request.opened.json'), grade, ENV)).toEqual({
      kind: 'ready',
      target: { owner: 'octocat', repo: 'Hello-World', baseSha: BASE, headSha: HEAD, prNumber: 42, event },
    });
  });

  it('takes the fork head SHA from the payload, for the base repository', () => {
    const plan = planTarget(
      'pull_request_target',
      readFixtureJson('github/pull_request.fork.synchronize.json'),
      grade,
      ENV,
    );
    expect(plan).toMatchObject({
      kind: 'ready',
      target: { owner: 'octocat', repo: 'Hello-World', headSha: HEAD },
    });
  });

  it('refuses a pr-number that names another PR than the event', () => {
    expect(() =>
      planTarget(
        'pull_request',
        readFixtureJson('github/pull_request.opened.json'),
        { mode: 'grade', prNumber: 7 },
        ENV,
      ),
    ).toThrow('input `pr-number` is 7 but the pull_request event is for #42');
  });

  it('looks the PR up under workflow_dispatch', () => {
    expect(
      planTarget(
        'workflow_dispatch',
        readFixtureJson('github/workflow_dispatch.json'),
        { mode: 'grade', prNumber: 42 },
        ENV,
      ),
    ).toEqual({
      kind: 'lookup',
      owner: 'octocat',
      repo: 'Hello-World',
      prNumber: 42,
      event: 'workflow_dispatch',
    });
    expect(() => planTarget('workflow_dispatch', {}, grade, ENV)).toThrow(
      'workflow_dispatch in grade mode needs the `pr-number` input',
    );
  });

  it('grades the workflow commit itself in baseline mode without a PR', () => {
    expect(planTarget('workflow_dispatch', {}, { mode: 'baseline' }, ENV)).toMatchObject({
      kind: 'ready',
      target: { baseSha: 'f'.repeat(40), headSha: 'f'.repeat(40) },
    });
  });

  it('under workflow_run, requires pr-number and pins the head to the commit the run built', () => {
    const payload = readFixtureJson('github/workflow_run.completed.json');
    const plan = planTarget('workflow_run', payload, { mode: 'grade', prNumber: 42 }, ENV);
    expect(plan).toMatchObject({ kind: 'lookup', prNumber: 42, expectedHeadSha: HEAD });
    expect(() => planTarget('workflow_run', payload, grade, ENV)).toThrow(
      'workflow_run needs the `pr-number` input',
    );
    if (plan.kind !== 'lookup') throw new Error('unreachable');
    expect(
      targetFromPullRequest(plan, { number: 42, base: { sha: BASE }, head: { sha: HEAD } }),
    ).toMatchObject({
      baseSha: BASE,
      headSha: HEAD,
    });
    expect(() =>
      targetFromPullRequest(plan, { number: 42, base: { sha: BASE }, head: { sha: 'a'.repeat(40) } }),
    ).toThrow(`pull request #42 is at ${'a'.repeat(40)}, not at ${HEAD}`);
  });

  it('refuses other events, a malformed payload, and a bad GITHUB_REPOSITORY', () => {
    expect(() => planTarget('push', {}, grade, ENV)).toThrow('the "push" event is not supported');
    expect(() =>
      planTarget(
        'pull_request',
        { pull_request: { number: 1, base: { sha: 'main' }, head: { sha: HEAD } } },
        grade,
        ENV,
      ),
    ).toThrow('the pull_request payload: `pull_request.base.sha` is not a commit SHA');
    expect(() => planTarget('pull_request', {}, grade, { GITHUB_REPOSITORY: 'a/b/c' })).toThrow(
      'GITHUB_REPOSITORY is not owner/name',
    );
  });
});
