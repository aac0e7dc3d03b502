import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGitHubApiServer, type GitHubApiServer } from './helpers/github-api-server.js';

/** The test server must catch what GitHub would refuse, or the action tests prove nothing. */
let server: GitHubApiServer;
beforeAll(async () => {
  server = await startGitHubApiServer();
});
afterAll(() => server.close());

async function send(method: string, path: string, body?: unknown, auth = 'token ghs_x') {
  const response = await fetch(server.url + path, {
    method,
    headers: { 'content-type': 'application/json', ...(auth ? { authorization: auth } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, violations: server.requests.at(-1)!.violations };
}

const annotation = { path: 'a.py', start_line: 1, end_line: 1, annotation_level: 'warning', message: 'm' };
const SHA = 'a'.repeat(40);

describe('the OpenAPI-validating test server', () => {
  it('answers a valid create with 201 and a check run id', async () => {
    const response = await fetch(`${server.url}/repos/o/r/check-runs`, {
      method: 'POST',
      headers: { authorization: 'token x', 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'n', head_sha: SHA, status: 'in_progress' }),
    });
    expect(response.status).toBe(201);
    expect(await response.json()).toMatchObject({
      id: expect.any(Number),
      status: 'in_progress',
      head_sha: SHA,
    });
  });

  it.each([
    [
      'a create without head_sha',
      'POST',
      '/repos/o/r/check-runs',
      { name: 'n' },
      "must have required property 'head_sha'",
    ],
    [
      'an unknown status',
      'POST',
      '/repos/o/r/check-runs',
      { name: 'n', head_sha: SHA, status: 'done' },
      'must be equal to one of the allowed values',
    ],
    [
      'neutral-less junk conclusion',
      'POST',
      '/repos/o/r/check-runs',
      { name: 'n', head_sha: SHA, conclusion: 'passed' },
      'must be equal to one of the allowed values',
    ],
    [
      'completed without a conclusion',
      'PATCH',
      '/repos/o/r/check-runs/1',
      { status: 'completed' },
      "must have required property 'conclusion'",
    ],
    ['a non-numeric check run id', 'PATCH', '/repos/o/r/check-runs/abc', {}, 'path parameter check_run_id'],
    [
      '51 annotations',
      'PATCH',
      '/repos/o/r/check-runs/1',
      { output: { summary: 's', annotations: Array(51).fill(annotation) } },
      'must NOT have more than 50 items',
    ],
    [
      'an annotation without a message',
      'PATCH',
      '/repos/o/r/check-runs/1',
      { output: { summary: 's', annotations: [{ ...annotation, message: undefined }] } },
      "must have required property 'message'",
    ],
    [
      'a summary over 65535 characters',
      'PATCH',
      '/repos/o/r/check-runs/1',
      { output: { summary: 'x'.repeat(65_536) } },
      'must NOT have more than 65535 characters',
    ],
    [
      'an annotation title over 255 characters',
      'PATCH',
      '/repos/o/r/check-runs/1',
      { output: { summary: 's', annotations: [{ ...annotation, title: 't'.repeat(256) }] } },
      'title over 255 characters',
    ],
    [
      'an annotation message over 64 KB',
      'PATCH',
      '/repos/o/r/check-runs/1',
      { output: { summary: 's', annotations: [{ ...annotation, message: 'é'.repeat(33_000) }] } },
      'message over 64 KB',
    ],
  ])('refuses %s with 422 and records it', async (_what, method, path, body, violation) => {
    const { status, violations } = await send(method, path, body);
    expect(status).toBe(422);
    expect(violations.join('\n')).toContain(violation);
  });

  it('refuses a path the description does not have, and a request without a token', async () => {
    expect(await send('POST', '/repos/o/r/check-run', {})).toMatchObject({
      status: 404,
      violations: [expect.stringContaining('no operation')],
    });
    expect(await send('GET', '/repos/o/r/pulls/1', undefined, '')).toMatchObject({ status: 401 });
  });
});
