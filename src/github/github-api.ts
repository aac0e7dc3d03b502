import { getOctokit } from '@actions/github';
import type { CheckAnnotation } from '../report/annotations.js';
import { withRetry, type RetryOptions } from './retry.js';

/** The body of a check run create or update, as the REST API names its fields. */
export interface CheckRunFields {
  name?: string;
  head_sha?: string;
  status?: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure';
  started_at?: string;
  completed_at?: string;
  details_url?: string;
  external_id?: string;
  output?: { title: string; summary: string; annotations?: CheckAnnotation[] };
}

/** The three calls the action makes, each retried per retry.ts. */
export interface GitHubApi {
  createCheckRun(fields: CheckRunFields & { name: string; head_sha: string }): Promise<number>;
  updateCheckRun(checkRunId: number, fields: CheckRunFields): Promise<void>;
  getPullRequest(prNumber: number): Promise<unknown>;
}

/** One API call may not hang the step: past this it is abandoned (and retried as a failure). */
const REQUEST_TIMEOUT_MS = 30_000;

export interface GitHubApiOptions {
  token: string;
  owner: string;
  repo: string;
  /** GITHUB_API_URL; https://api.github.com when unset (GitHub Enterprise sets its own). */
  baseUrl?: string;
  retry?: RetryOptions;
  /** Where Octokit's own warnings go (already made log-safe by the caller). */
  log?: (line: string) => void;
}

export function gitHubApi(options: GitHubApiOptions): GitHubApi {
  const log = options.log ?? (() => {});
  const octokit = getOctokit(options.token, {
    baseUrl: options.baseUrl || 'https://api.github.com',
    log: { debug: () => {}, info: () => {}, warn: log, error: log },
  });
  const { owner, repo } = options;
  const request = () => ({ signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return {
    async createCheckRun(fields) {
      const response = await withRetry(
        'create the check run',
        () => octokit.rest.checks.create({ owner, repo, ...fields, request: request() }),
        options.retry,
      );
      return response.data.id;
    },
    async updateCheckRun(checkRunId, fields) {
      await withRetry(
        'update the check run',
        () =>
          octokit.rest.checks.update({
            owner,
            repo,
            check_run_id: checkRunId,
            ...fields,
            request: request(),
          }),
        options.retry,
      );
    },
    async getPullRequest(prNumber) {
      const response = await withRetry(
        `read pull request #${prNumber}`,
        () => octokit.rest.pulls.get({ owner, repo, pull_number: prNumber, request: request() }),
        options.retry,
      );
      return response.data;
    },
  };
}
