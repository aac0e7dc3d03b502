import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../../helpers/fixtures.js';
import { parseRunnerCommand, runnerLines, type ParsedCommand } from '../../report/helpers/runner-commands.js';
import { newRunnerTemp } from './runner-temp.js';

/** One run of the bundled action, observed as the runner and GitHub would observe it. */
export interface ActionRun {
  status: number | null;
  stdout: string;
  stderr: string;
  /** Parsed from $GITHUB_OUTPUT. */
  outputs: Record<string, string>;
  /** The contents of $GITHUB_STEP_SUMMARY. */
  summary: string;
  /** Every workflow command the runner would read from stdout. */
  commands: ParsedCommand[];
  runnerTemp: string;
}

export interface ActionRunOptions {
  /** The local API server's URL (GITHUB_API_URL). */
  apiUrl: string;
  eventName: string;
  payload: unknown;
  /** Inputs by their action.yml names; the action.yml defaults fill the rest. */
  inputs: Record<string, string>;
  workspace: string;
  repository?: string;
  sha?: string;
  env?: Record<string, string>;
}

/** action.yml's inputs and their defaults, with the expressions the runner would evaluate. */
export function actionYmlInputs(): Map<string, string | undefined> {
  const text = readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8');
  const block = /^inputs:\n([\s\S]*?)^\S/m.exec(text)?.[1] ?? '';
  const inputs = new Map<string, string | undefined>();
  let current: string | undefined;
  for (const line of block.split('\n')) {
    const name = /^ {2}([a-z][a-z0-9-]*):\s*$/.exec(line);
    if (name) {
      current = name[1]!;
      inputs.set(current, undefined);
      continue;
    }
    const fallback = /^ {4}default:\s*(.*)$/.exec(line);
    if (fallback && current) inputs.set(current, fallback[1]!.replace(/^'(.*)'$/, '$1'));
  }
  return inputs;
}

/**
 * Runs `node dist/index.js` as the runner does: a clean environment holding only what the runner
 * sets (INPUT_<NAME> with the dash kept, GITHUB_EVENT_NAME and _PATH, GITHUB_OUTPUT,
 * GITHUB_STEP_SUMMARY, GITHUB_API_URL, GITHUB_REPOSITORY, GITHUB_WORKSPACE, RUNNER_TEMP, ...),
 * every input set (defaults from action.yml, as the runner fills them). Asynchronous, so a server
 * in this process keeps answering while the action runs.
 */
export async function runAction(options: ActionRunOptions): Promise<ActionRun> {
  const runnerTemp = newRunnerTemp();
  const eventPath = join(runnerTemp, 'event.json');
  const outputPath = join(runnerTemp, 'output.txt');
  const summaryPath = join(runnerTemp, 'step-summary.md');
  writeFileSync(eventPath, JSON.stringify(options.payload));
  writeFileSync(outputPath, '');
  writeFileSync(summaryPath, '');
  const repository = options.repository ?? 'octocat/Hello-World';

  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? runnerTemp,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: options.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    GITHUB_API_URL: options.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: repository,
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_SHA: options.sha ?? '0'.repeat(40),
    GITHUB_RUN_ID: '1658821493',
    GITHUB_RUN_ATTEMPT: '1',
    RUNNER_TEMP: runnerTemp,
    ...options.env,
  };
  const expressions: Record<string, string> = {
    '${{ github.token }}': 'ghs_test-token',
    '${{ github.workspace }}': options.workspace,
  };
  for (const [name, fallback] of actionYmlInputs()) {
    const value = options.inputs[name] ?? (fallback === undefined ? '' : (expressions[fallback] ?? fallback));
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  }
  for (const name of Object.keys(options.inputs)) {
    if (!actionYmlInputs().has(name)) throw new Error(`action.yml has no input ${name}`);
  }

  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/index.js')], {
    cwd: options.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const status = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  return {
    status,
    stdout,
    stderr,
    outputs: parseOutputFile(readFileSync(outputPath, 'utf8')),
    summary: readFileSync(summaryPath, 'utf8'),
    commands: runnerLines(stdout).flatMap((line) => parseRunnerCommand(line) ?? []),
    runnerTemp,
  };
}

/** The runner's `name<<DELIMITER` ... `DELIMITER` format of $GITHUB_OUTPUT. */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const header = /^([^<=]+)<<(.+)$/.exec(lines[i]!);
    if (!header) {
      if (lines[i] !== '') throw new Error(`unexpected line in GITHUB_OUTPUT: ${lines[i]}`);
      continue;
    }
    const [, name, delimiter] = header;
    const value: string[] = [];
    for (i++; i < lines.length && lines[i] !== delimiter; i++) value.push(lines[i]!);
    if (i >= lines.length) throw new Error(`unterminated output ${name}`);
    if (name! in outputs) throw new Error(`output ${name} set twice`);
    outputs[name!] = value.join('\n');
  }
  return outputs;
}
