import type { GateReport } from '../gate/report.js';
import { inBatches, renderAnnotations, type CheckAnnotation } from '../report/annotations.js';
import { capUtf8 } from '../report/cap-text.js';
import { ANNOTATIONS_PER_REQUEST } from '../report/github-limits.js';
import { conclusionOf, verdictTitle } from '../report/verdict-title.js';
import type { GitHubApi } from './github-api.js';
import { failedAttemptOf } from './retry.js';
import { thrownText } from '../errors/thrown-text.js';

/** How the report reaches GitHub: a check run, or (no check-write access) the job itself. */
export type ReportChannel = { kind: 'check-run'; checkRunId: number } | { kind: 'job'; why: string };

export interface DeliveryResult {
  channel: ReportChannel;
  /** Whether every annotation reached the check run (false sends them as workflow commands). */
  annotationsDelivered: boolean;
  /** What went wrong while reporting; any entry fails the step, whatever the verdict. */
  problems: string[];
}

export interface CheckRunReporterOptions {
  checkName: string;
  headSha: string;
  detailsUrl?: string;
  now?: () => Date;
  log?: (line: string) => void;
}

/**
 * The check run on the PR head: created `in_progress` when the gate starts, completed with the
 * verdict's conclusion, title, summary and first 50 annotations, then given the remaining
 * annotations 50 per update (the verdict lands first, so lost annotations never lose it).
 *
 * Creation that GitHub refuses with 401, 403 or 404 (not a rate limit: those are retried) means
 * the token cannot write checks, as on a fork's pull_request: the report then goes to the job
 * (summary, annotations, exit status) and that is not a problem. Any other failure is a problem:
 * the step fails, since a missing or unfinished check run is a required check that never passes.
 */
export class CheckRunReporter {
  private channel: ReportChannel | undefined;
  private readonly problems: string[] = [];
  private readonly now: () => Date;
  private readonly log: (line: string) => void;

  constructor(
    private readonly api: GitHubApi,
    private readonly options: CheckRunReporterOptions,
  ) {
    this.now = options.now ?? (() => new Date());
    this.log = options.log ?? (() => {});
  }

  async start(): Promise<ReportChannel> {
    try {
      const checkRunId = await this.api.createCheckRun({
        name: this.options.checkName,
        head_sha: this.options.headSha,
        status: 'in_progress',
        started_at: this.timestamp(),
        ...(this.options.detailsUrl ? { details_url: this.options.detailsUrl } : {}),
        output: {
          title: 'Grading',
          summary: `oracle-gate is grading ${this.options.headSha}.`,
        },
      });
      this.channel = { kind: 'check-run', checkRunId };
      this.log(`check run ${checkRunId} created on ${this.options.headSha}`);
    } catch (error) {
      const { status, headers } = failedAttemptOf(error);
      // A 403 that is a rate limit was retried and gave up: that is a problem, not a refusal.
      const rateLimited = headers['x-ratelimit-remaining'] === '0' || headers['retry-after'] !== undefined;
      const refused = status === 401 || status === 404 || (status === 403 && !rateLimited);
      const why = refused
        ? `the token cannot write check runs (HTTP ${status}), as on a fork's pull request`
        : `the check run could not be created: ${describe(error)}`;
      if (!refused) this.problems.push(why);
      this.channel = { kind: 'job', why };
      this.log(`${why}; the job summary, annotations and exit status carry the report`);
    }
    return this.channel;
  }

  async finish(report: GateReport, summary: string): Promise<DeliveryResult> {
    const channel = this.channel ?? (await this.start());
    if (channel.kind === 'job') {
      return { channel, annotationsDelivered: false, problems: [...this.problems] };
    }
    const annotations = renderAnnotations(report);
    const [first = [], ...rest] = inBatches(annotations, ANNOTATIONS_PER_REQUEST);
    const output = { title: verdictTitle(report), summary };
    const complete = (withFirst: CheckAnnotation[]) =>
      this.api.updateCheckRun(channel.checkRunId, {
        status: 'completed',
        conclusion: conclusionOf(report),
        completed_at: this.timestamp(),
        output: withAnnotations(output, withFirst),
      });
    try {
      await complete(first);
    } catch (error) {
      // GitHub validates annotations (a path it cannot place, say) and refuses the whole request
      // with 422; the conclusion must land all the same, so it goes once more without them.
      const refusedAnnotations = first.length > 0 && failedAttemptOf(error).status === 422;
      this.problems.push(
        refusedAnnotations
          ? `check run ${channel.checkRunId} refused its annotations: ${describe(error)}`
          : `the check run ${channel.checkRunId} could not be completed: ${describe(error)}`,
      );
      if (refusedAnnotations) {
        try {
          await complete([]);
        } catch (again) {
          this.problems.push(
            `the check run ${channel.checkRunId} could not be completed: ${describe(again)}`,
          );
        }
      }
      return { channel, annotationsDelivered: false, problems: [...this.problems] };
    }
    let annotationsDelivered = true;
    for (const [i, batch] of rest.entries()) {
      try {
        await this.api.updateCheckRun(channel.checkRunId, { output: withAnnotations(output, batch) });
      } catch (error) {
        const sent = ANNOTATIONS_PER_REQUEST * (i + 1);
        this.problems.push(
          `annotations ${sent + 1}-${annotations.length} could not be added to check run ${channel.checkRunId}: ${describe(error)}`,
        );
        annotationsDelivered = false;
        break;
      }
    }
    this.log(
      `check run ${channel.checkRunId} completed: ${conclusionOf(report)}, ${annotations.length} annotations in ${rest.length + 1} requests`,
    );
    return { channel, annotationsDelivered, problems: [...this.problems] };
  }

  private timestamp(): string {
    return this.now()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }
}

function withAnnotations(
  output: { title: string; summary: string },
  annotations: CheckAnnotation[],
): { title: string; summary: string; annotations?: CheckAnnotation[] } {
  return annotations.length > 0 ? { ...output, annotations } : output;
}

/** One line about an API error; its text comes from GitHub or the network, and is bounded. */
export function describe(error: unknown): string {
  const status = failedAttemptOf(error).status;
  const message = thrownText(error);
  return capUtf8(`${status === undefined ? '' : `HTTP ${status}: `}${message.split('\n')[0]}`, 500);
}
