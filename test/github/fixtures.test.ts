import { describe, expect, it } from 'vitest';
import { readFixtureJson } from '../helpers/fixtures.js';
import { describeErrors, webhookValidator } from './helpers/openapi.js';

describe('the event payload fixtures', () => {
  it.each([
    ['github/pull_request.opened.json', 'pull-request-opened'],
    ['github/pull_request.fork.synchronize.json', 'pull-request-synchronize'],
    ['github/workflow_dispatch.json', 'workflow-dispatch'],
    ['github/workflow_run.completed.json', 'workflow-run-completed'],
  ])('%s is a valid %s webhook payload per GitHub OpenAPI description', (file, schema) => {
    const validate = webhookValidator(schema);
    expect(validate(readFixtureJson(file)), describeErrors(validate.errors).join('\n')).toBe(true);
  });

  it('the fork payload has its head in another repository', () => {
    const payload = readFixtureJson<{
      pull_request: {
        head: { repo: { full_name: string; fork: boolean } };
        base: { repo: { full_name: string } };
      };
    }>('github/pull_request.fork.synchronize.json');
    expect(payload.pull_request.head.repo.fork).toBe(true);
    expect(payload.pull_request.head.repo.full_name).not.toBe(payload.pull_request.base.repo.full_name);
  });
});
