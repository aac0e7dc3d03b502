import { z } from 'zod';
import type { ActionInputs } from './action-inputs.js';

/** Which commits the gate grades, and where the check run goes. */
export interface GateTarget {
  owner: string;
  repo: string;
  baseSha: string;
  headSha: string;
  prNumber?: number;
  event: string;
}

/** What the event alone says: a target, or a pull request to look up first. */
export type TargetPlan =
  | { kind: 'ready'; target: GateTarget }
  | {
      kind: 'lookup';
      owner: string;
      repo: string;
      prNumber: number;
      event: string;
      /** Under workflow_run: the commit that run built, which the PR's head must still be. */
      expectedHeadSha?: string;
    };

/** The event cannot be gated; the message is one line a maintainer can act on. */
export class EventError extends Error {}

const Sha = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'is not a commit SHA');

const PullRequestEvent = z.object({
  pull_request: z.object({
    number: z.number().int().positive(),
    base: z.object({ sha: Sha }),
    head: z.object({ sha: Sha }),
  }),
});

const WorkflowRunEvent = z.object({ workflow_run: z.object({ head_sha: Sha }) });

/** The fields of `GET /repos/{owner}/{repo}/pulls/{number}` the gate uses. */
export const PullRequestResponse = z.object({
  number: z.number().int().positive(),
  base: z.object({ sha: Sha }),
  head: z.object({ sha: Sha }),
});

function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new EventError(`${what}: \`${issue.path.join('.')}\` ${issue.message}`);
}

/**
 * Plans the target from the event (GITHUB_EVENT_NAME and its payload) and the inputs:
 * - pull_request, pull_request_target: base and head SHAs from the payload;
 * - workflow_dispatch: the `pr-number` input's PR, looked up; in baseline mode without a PR,
 *   the workflow's own commit (GITHUB_SHA) is both base and head;
 * - workflow_run (the fork pattern): the `pr-number` input's PR, whose head must be the commit
 *   the triggering run built, so a PR number from an untrusted artifact can only name that PR.
 */
export function planTarget(
  eventName: string,
  payload: unknown,
  inputs: Pick<ActionInputs, 'mode' | 'prNumber'>,
  env: NodeJS.ProcessEnv,
): TargetPlan {
  const repository = env.GITHUB_REPOSITORY ?? '';
  const match = /^([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+)$/.exec(repository);
  if (!match) throw new EventError(`GITHUB_REPOSITORY is not owner/name: ${JSON.stringify(repository)}`);
  const [, owner, repo] = match as unknown as [string, string, string];

  switch (eventName) {
    case 'pull_request':
    case 'pull_request_target': {
      const pr = parse(PullRequestEvent, payload, `the ${eventName} payload`).pull_request;
      if (inputs.prNumber !== undefined && inputs.prNumber !== pr.number) {
        throw new EventError(
          `input \`pr-number\` is ${inputs.prNumber} but the ${eventName} event is for #${pr.number}`,
        );
      }
      return {
        kind: 'ready',
        target: {
          owner,
          repo,
          baseSha: pr.base.sha,
          headSha: pr.head.sha,
          prNumber: pr.number,
          event: eventName,
        },
      };
    }
    case 'workflow_dispatch': {
      if (inputs.prNumber !== undefined) {
        return { kind: 'lookup', owner, repo, prNumber: inputs.prNumber, event: eventName };
      }
      if (inputs.mode !== 'baseline') {
        throw new EventError('workflow_dispatch in grade mode needs the `pr-number` input');
      }
      const sha = parse(Sha, env.GITHUB_SHA, 'GITHUB_SHA');
      return { kind: 'ready', target: { owner, repo, baseSha: sha, headSha: sha, event: eventName } };
    }
    case 'workflow_run': {
      if (inputs.prNumber === undefined) throw new EventError('workflow_run needs the `pr-number` input');
      const run = parse(WorkflowRunEvent, payload, 'the workflow_run payload').workflow_run;
      return {
        kind: 'lookup',
        owner,
        repo,
        prNumber: inputs.prNumber,
        event: eventName,
        expectedHeadSha: run.head_sha,
      };
    }
    default:
      throw new EventError(
        `the ${JSON.stringify(eventName)} event is not supported: use pull_request, pull_request_target, workflow_dispatch or workflow_run`,
      );
  }
}

/** Completes a lookup plan with the pull request the API returned. */
export function targetFromPullRequest(
  plan: Extract<TargetPlan, { kind: 'lookup' }>,
  response: unknown,
): GateTarget {
  const pr = parse(PullRequestResponse, response, `pull request #${plan.prNumber}`);
  if (plan.expectedHeadSha !== undefined && pr.head.sha !== plan.expectedHeadSha) {
    throw new EventError(
      `pull request #${plan.prNumber} is at ${pr.head.sha}, not at ${plan.expectedHeadSha}, the commit the triggering run built; the newer commit gets its own run`,
    );
  }
  return {
    owner: plan.owner,
    repo: plan.repo,
    baseSha: pr.base.sha,
    headSha: pr.head.sha,
    prNumber: pr.number,
    event: plan.event,
  };
}
