import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@actions/core';
import type { GateReport } from '../../../src/gate/report.js';
import type { GateRequest } from '../../../src/gate/run-gate.js';
import { run } from '../../../src/main.js';
import { captureStdout, parseRunnerCommand, runnerLines } from '../../report/helpers/runner-commands.js';
import { actionYmlInputs, parseOutputFile, type ActionRun, type ActionRunOptions } from './run-action.js';
import { newRunnerTemp } from './runner-temp.js';

export interface InProcessRun extends ActionRun {
  /** The requests the gate was given. */
  gateRequests: GateRequest[];
}

/**
 * Runs the action's run() in this process with the environment runAction gives the bundle, and a
 * gate of the test's choosing (a synthetic report, or a function). Retries do not sleep.
 */
export async function runInProcess(
  options: ActionRunOptions & { gate: GateReport | ((request: GateRequest) => Promise<GateReport>) },
): Promise<InProcessRun> {
  const runnerTemp = newRunnerTemp();
  const paths = {
    event: join(runnerTemp, 'event.json'),
    output: join(runnerTemp, 'output.txt'),
    summary: join(runnerTemp, 'step-summary.md'),
  };
  writeFileSync(paths.event, JSON.stringify(options.payload));
  writeFileSync(paths.output, '');
  writeFileSync(paths.summary, '');
  const env: Record<string, string> = {
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: paths.event,
    GITHUB_OUTPUT: paths.output,
    GITHUB_STEP_SUMMARY: paths.summary,
    GITHUB_API_URL: options.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: options.repository ?? 'octocat/Hello-World',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_SHA: options.sha ?? '0'.repeat(40),
    GITHUB_RUN_ID: '1658821493',
    RUNNER_TEMP: runnerTemp,
    ...options.env,
  };
  const expressions: Record<string, string> = {
    '${{ github.token }}': 'ghs_test-token',
    '${{ github.workspace }}': options.workspace,
  };
  for (const [name, fallback] of actionYmlInputs()) {
    env[`INPUT_${name.toUpperCase()}`] =
      options.inputs[name] ?? (fallback === undefined ? '' : (expressions[fallback] ?? fallback));
  }
  const saved = { ...process.env };
  const gateRequests: GateRequest[] = [];
  const gate = options.gate;
  Object.assign(process.env, env);
  process.exitCode = undefined;
  // core.summary remembers the first GITHUB_STEP_SUMMARY it saw (one per process on a runner);
  // each run here has its own file, so the memory is cleared.
  (core.summary as unknown as { _filePath?: string })._filePath = undefined;
  let exitCode: number | string | undefined | null;
  let stdout: string;
  try {
    stdout = await captureStdout(() =>
      run({
        runGate: async (request) => {
          gateRequests.push(request);
          return typeof gate === 'function' ? gate(request) : structuredClone(gate);
        },
        retry: { sleep: async () => {} },
      }),
    );
  } finally {
    exitCode = process.exitCode;
    process.exitCode = undefined;
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
  return {
    status: exitCode === undefined || exitCode === null ? 0 : Number(exitCode),
    stdout,
    stderr: '',
    outputs: parseOutputFile(readFileSync(paths.output, 'utf8')),
    summary: readFileSync(paths.summary, 'utf8'),
    commands: runnerLines(stdout).flatMap((line) => parseRunnerCommand(line) ?? []),
    runnerTemp,
    gateRequests,
  };
}
