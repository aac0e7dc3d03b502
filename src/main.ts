import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as core from '@actions/core';
import type { GateReport } from './gate/report.js';
import { runGate, type GateRequest } from './gate/run-gate.js';
import { InputError, readActionInputs, type ActionInputs } from './github/action-inputs.js';
import { CheckRunReporter, describe, type DeliveryResult } from './github/check-run-reporter.js';
import { CommitsMissingError, ensureCommits } from './github/ensure-commits.js';
import { EventError, planTarget, targetFromPullRequest, type GateTarget } from './github/gate-target.js';
import { gitHubApi, type GitHubApi } from './github/github-api.js';
import { issueAnnotations, logLine, writeJobSummary } from './github/job-report.js';
import type { RetryOptions } from './github/retry.js';
import { renderOutputs } from './report/action-outputs.js';
import { renderAnnotations } from './report/annotations.js';
import { capUtf8, utf8Length } from './report/cap-text.js';
import { STEP_SUMMARY_MAX_BYTES } from './report/github-limits.js';
import { escapeMarkdownText } from './report/escape-markdown.js';
import { renderLogLines } from './report/log-report.js';
import { renderSummary, type SummaryContext } from './report/summary-markdown.js';
import { countsAsPass, verdictTitle } from './report/verdict-title.js';
import { toWorkflowAnnotations } from './report/workflow-annotations.js';
import { fail } from './verdict/schema.js';
import { thrownText } from './errors/thrown-text.js';

/** What run() uses from the outside world; tests replace parts of it. */
export interface ActionDependencies {
  env: NodeJS.ProcessEnv;
  runGate: (request: GateRequest) => Promise<GateReport>;
  retry: RetryOptions;
  now: () => Date;
}

/** Why the action could not get as far as a verdict: its subkind and a one-line message. */
function setupFailure(error: unknown): { subkind: string; message: string } {
  const message = capUtf8(thrownText(error), 2_000);
  if (error instanceof InputError) return { subkind: 'config-invalid', message };
  if (error instanceof EventError) return { subkind: 'event-invalid', message };
  if (error instanceof CommitsMissingError) return { subkind: 'commits-missing', message };
  if (typeof (error as { status?: unknown })?.status === 'number') {
    return { subkind: 'github-api-error', message: describe(error) };
  }
  return { subkind: 'internal-error', message: `the action stopped before a verdict: ${message}` };
}

/** A Fail for anything that went wrong before the gate gave its verdict. */
function setupFailureReport(error: unknown, mode: ActionInputs['mode']): GateReport {
  const { subkind, message } = setupFailure(error);
  return {
    verdict: fail(subkind, message),
    attested: false,
    mode,
    deniedTouches: [],
    droppedHunks: [],
    tests: [],
    stages: [],
    quarantined: false,
    notes: [],
  };
}

async function readEventPayload(env: NodeJS.ProcessEnv): Promise<unknown> {
  const path = env.GITHUB_EVENT_PATH;
  if (!path) throw new EventError('GITHUB_EVENT_PATH is not set: run the action from a workflow');
  try {
    return JSON.parse(await readFile(path, 'utf8')) as unknown;
  } catch (error) {
    throw new EventError(`the event payload ${path} could not be read: ${describe(error)}`);
  }
}

function workflowRunUrl(env: NodeJS.ProcessEnv): string | undefined {
  const { GITHUB_SERVER_URL: server, GITHUB_REPOSITORY: repository, GITHUB_RUN_ID: runId } = env;
  if (!server || !repository || !runId || !/^\d+$/.test(runId) || !/^https?:\/\/[^\s]+$/.test(server))
    return undefined;
  return `${server}/${repository}/actions/runs/${runId}`;
}

/**
 * The action: validate inputs, find base and head from the event, open the check run, make sure
 * the commits are present (as data), run the gate, and report: check run, job summary, log,
 * outputs and exit status. Everything that goes wrong before the verdict is a Fail, reported on
 * the same channels; nothing that goes wrong while reporting can turn a Fail into a Pass.
 */
export async function run(overrides: Partial<ActionDependencies> = {}): Promise<void> {
  const deps: ActionDependencies = {
    env: process.env,
    runGate,
    retry: {},
    now: () => new Date(),
    ...overrides,
  };
  const env = deps.env;
  let inputs: ActionInputs | undefined;
  let target: GateTarget | undefined;
  let reporter: CheckRunReporter | undefined;
  let report: GateReport;
  const retry: RetryOptions = {
    ...deps.retry,
    onRetry: (what, failure, delayMs, attempt) =>
      logLine(
        `could not ${what} (${failure.status ?? 'no response'}, attempt ${attempt}); retrying in ${delayMs} ms`,
      ),
  };

  try {
    inputs = readActionInputs(env);
    const plan = planTarget(env.GITHUB_EVENT_NAME ?? '', await readEventPayload(env), inputs, env);
    const api: GitHubApi = gitHubApi({
      token: inputs.githubToken,
      ...(plan.kind === 'ready' ? plan.target : plan),
      ...(env.GITHUB_API_URL ? { baseUrl: env.GITHUB_API_URL } : {}),
      retry,
      log: logLine,
    });
    target =
      plan.kind === 'ready'
        ? plan.target
        : targetFromPullRequest(plan, await api.getPullRequest(plan.prNumber));
    logLine(
      `oracle-gate: ${inputs.mode} ${target.prNumber ? `pull request #${target.prNumber}` : 'commit'}, base ${target.baseSha}, head ${target.headSha}`,
    );
    const detailsUrl = workflowRunUrl(env);
    reporter = new CheckRunReporter(api, {
      checkName: inputs.checkName,
      headSha: target.headSha,
      ...(detailsUrl ? { detailsUrl } : {}),
      now: deps.now,
      log: logLine,
    });
    await reporter.start();
    await ensureCommits(inputs.repositoryPath, [target.baseSha, target.headSha], target.prNumber, logLine);
    mkdirSync(dirname(inputs.logPath), { recursive: true });
    report = await deps.runGate({
      repoDir: inputs.repositoryPath,
      baseSha: target.baseSha,
      headSha: target.headSha,
      oracleDir: inputs.oraclePath,
      pinnedOracleHash: inputs.oracleHash,
      mode: inputs.mode,
      logPath: inputs.logPath,
      progress: logLine,
    });
  } catch (error) {
    report = setupFailureReport(error, inputs?.mode ?? 'grade');
  }

  await deliver(report, { inputs, target, reporter });
}

async function deliver(
  report: GateReport,
  state: { inputs?: ActionInputs; target?: GateTarget; reporter?: CheckRunReporter },
): Promise<void> {
  const { inputs, target, reporter } = state;
  const logPath = report.logPath ?? inputs?.logPath;
  const context: SummaryContext = {
    ...(target ? { headSha: target.headSha, baseSha: target.baseSha } : {}),
    ...(inputs ? { pinnedOracleHash: inputs.oracleHash } : {}),
    ...(logPath ? { logPath } : {}),
  };

  for (const line of renderLogLines(report, context)) core.info(line);
  if (logPath) writeLogIfAbsent(logPath, renderLogLines(report, context));

  const summary = renderSummary(report, context);
  const delivery: DeliveryResult = reporter
    ? await reporter.finish(report, summary)
    : {
        channel: { kind: 'job', why: 'the action stopped before it could open a check run' },
        annotationsDelivered: false,
        problems: [],
      };

  const jobNote =
    delivery.channel.kind === 'job'
      ? `_No check run: ${escapeMarkdownText(delivery.channel.why)}. This summary and the step's exit status carry the verdict._\n\n`
      : '';
  // The job summary may hold 1 MiB, so it gets the fuller report the check run's 64 KB could not.
  await writeJobSummary(
    jobNote + renderSummary(report, context, STEP_SUMMARY_MAX_BYTES - utf8Length(jobNote)),
  );
  if (!delivery.annotationsDelivered) issueAnnotations(toWorkflowAnnotations(renderAnnotations(report)));

  const checkRunId = delivery.channel.kind === 'check-run' ? delivery.channel.checkRunId : undefined;
  const outputs = renderOutputs(report, {
    ...(logPath ? { logPath } : {}),
    ...(checkRunId ? { checkRunId } : {}),
  });
  for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value);

  // The exit status: a verdict that is not a counted Pass fails the step when fail-on-verdict is
  // on, and always when the job is the report's only channel; a reporting problem always does.
  const passed = countsAsPass(report);
  const failOnVerdict = inputs?.failOnVerdict ?? true;
  const failures: string[] = [];
  if (!passed && (failOnVerdict || delivery.channel.kind === 'job'))
    failures.push(`oracle-gate: ${verdictTitle(report)}`);
  for (const problem of delivery.problems)
    failures.push(`oracle-gate: the report was not fully delivered: ${problem}`);
  if (failures.length > 0) core.setFailed(capUtf8(failures.join('; '), 4_000));
  else if (!passed)
    logLine(`oracle-gate: ${verdictTitle(report)} (fail-on-verdict is false: the check run carries it)`);
}

/** The gate writes the oracle log; if it could not (it stopped early), the report goes there. */
function writeLogIfAbsent(path: string, lines: readonly string[]): void {
  try {
    if (existsSync(path)) return;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, lines.join('\n') + '\n', { flag: 'wx' });
  } catch (error) {
    logLine(`the oracle log ${path} could not be written: ${describe(error)}`);
  }
}
