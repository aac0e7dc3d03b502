import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSampleRepo, SAMPLE, type SampleRepo } from '../container/sample-repo.js';
import { markdownViolations } from '../report/helpers/markdown-safety.js';
import { parseRunnerCommand, runnerLines, type ParsedCommand } from '../report/helpers/runner-commands.js';
import { bundleOnce } from './helpers/bundle.js';
import {
  startGitHubApiServer,
  type GitHubApiServer,
  type RecordedRequest,
} from './helpers/github-api-server.js';
import { runAction, type ActionRun } from './helpers/run-action.js';
import { removeRunnerTemps } from './helpers/runner-temp.js';
import { commitOnto, pinnedOracle, pullRequestPayload } from './helpers/sample-project.js';

/**
 * Output injection through the real container: fixtures/github-e2e/oracle-hostile holds hidden
 * tests whose names carry `::error::`, `%0A`, `##[error]` and `<script>` (a parametrize id) and
 * whose failure messages add line breaks and a 100 KB string, and 150 more failing tests whose
 * names and messages are Markdown and HTML characters. The bundled action grades the
 * honest patch against it twice, once with a check run and once as a fork's run (no check run),
 * and every channel is read as GitHub reads it: the job log as the runner parses workflow
 * commands, the summaries as Markdown, the check run requests against the OpenAPI description.
 * Then the same for dropped hunks in files whose names are hostile.
 */
let repo: SampleRepo;
let scratch: string;
type Graded = { run: ActionRun; requests: RecordedRequest[]; violations: string[] };
let withCheckRun: Graded;
let asFork: Graded;
let longName: Graded;
let namesWithCheckRun: Graded;
let namesAsFork: Graded;

/** Dropped files whose names are hostile, as git names them and as the reports must show them. */
const HOSTILE_NAMES: [file: string, shown: string][] = [
  ['docs/##[error]x.md', 'docs/##[error]x.md'],
  ['docs/::error::x.md', 'docs/::error::x.md'],
  ['docs/<script>alert(1)</script>.md', 'docs/<script>alert(1)</script>.md'],
  // git quotes a name it cannot print as is.
  ['docs/a\nb.md', '"docs/a\\nb.md"'],
  ['docs/ü ,%0A.md', 'docs/ü ,%0A.md'],
  // A bidi override would show the name in another order.
  ['docs/\u202eevil.md', 'docs/\ufffdevil.md'],
];

async function grade(options: {
  fork: boolean;
  oracle: { dir: string; hash: string };
  head?: string;
}): Promise<Graded> {
  const server: GitHubApiServer = await startGitHubApiServer(
    options.fork ? { refuse: { 'checks/create': { status: 403 } } } : {},
  );
  try {
    const run = await runAction({
      apiUrl: server.url,
      eventName: 'pull_request',
      payload: pullRequestPayload(repo.base, options.head ?? repo.heads.honest!, options.fork),
      inputs: { 'oracle-path': options.oracle.dir, 'oracle-hash': options.oracle.hash },
      workspace: repo.dir,
    });
    return { run, requests: server.requests, violations: server.violations() };
  } finally {
    await server.close();
  }
}

beforeAll(async () => {
  bundleOnce();
  scratch = mkdtempSync(join(tmpdir(), 'og-action-injection-'));
  repo = await buildSampleRepo();
  const oracle = await pinnedOracle(scratch, inject('testImage'), { fixture: 'github-e2e/oracle-hostile' });
  withCheckRun = await grade({ fork: false, oracle });
  asFork = await grade({ fork: true, oracle });
  longName = await grade({
    fork: false,
    oracle: await pinnedOracle(scratch, inject('testImage'), { fixture: 'github-e2e/oracle-long-name' }),
  });

  const allowList = await pinnedOracle(scratch, inject('testImage'), {
    files: { 'path_allow.txt': 'calc/**\ntests/**\n' },
  });
  const head = commitOnto(
    repo.dir,
    repo.base,
    {
      'calc/parser.py': readFileSync(join(SAMPLE, 'patches/honest/calc/parser.py'), 'utf8'),
      ...Object.fromEntries(HOSTILE_NAMES.map(([file]) => [file, 'a line\n'])),
    },
    'the fix, and files with hostile names outside the allow-list',
  );
  namesWithCheckRun = await grade({ fork: false, oracle: allowList, head });
  namesAsFork = await grade({ fork: true, oracle: allowList, head });
});
afterAll(async () => {
  await repo.remove();
  rmSync(scratch, { recursive: true, force: true });
  removeRunnerTemps();
});

interface Completion {
  status: string;
  conclusion: string;
  output: {
    title: string;
    summary: string;
    annotations: { path: string; annotation_level: string; title: string; message: string }[];
  };
}

const completionOf = (requests: RecordedRequest[]) => requests[1]!.body as Completion;
const annotationsOf = (requests: RecordedRequest[]) =>
  requests.slice(1).flatMap((r) => (r.body as Completion).output.annotations);

const FAILED = 152;

/** The two hostile test IDs, as pytest names them (parametrize ids, non-ASCII-free). */
const HOSTILE_ID =
  'oracle_tests.test_hostile::test_hostile[::error::owned-by-name%0A::warning::second ##[error]legacy <script>alert(1)</script>]';
const LONG_ID_PREFIX =
  'oracle_tests.test_hostile::test_hostile[::add-mask::ghs_ ::stop-commands::tok ##[set-output name=verdict]pass xNNN';

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The job log as the runner reads it: its workflow commands, and the lines that are not one. */
function jobLog(run: ActionRun): { plain: string[]; commands: ParsedCommand[] } {
  const plain = runnerLines(run.stdout).filter((line) => parseRunnerCommand(line) === undefined);
  return { plain, commands: run.commands };
}

describe('hostile test names and messages, graded with a check run', () => {
  it('fails the patch: the hostile tests failed, with their names in the reasons', () => {
    const { run, violations } = withCheckRun;
    expect(violations).toEqual([]);
    expect(run.status).toBe(1);
    expect(run.stderr).toBe('');
    const verdict = JSON.parse(run.outputs['verdict-json']!) as {
      reasons: { subkind: string; message: string }[];
    };
    expect(verdict.reasons.map((r) => r.subkind)).toEqual(['hidden-tests-failed']);
    expect(verdict.reasons[0]!.message).toContain(HOSTILE_ID);
    expect(run.outputs['check-run-id']).toMatch(/^\d+$/);
  });

  it('the job log holds no command but the step failure, and the hostile text only escaped and cut', () => {
    const { run, requests } = withCheckRun;
    const { plain, commands } = jobLog(run);
    expect(commands).toEqual([
      {
        form: 'v2',
        name: 'error',
        properties: {},
        data: `oracle-gate: ${completionOf(requests).output.title}`,
      },
    ]);
    for (const line of plain) {
      expect(utf8(line)).toBeLessThanOrEqual(4_096);
      expect(line).not.toMatch(CONTROL);
      expect(line).not.toMatch(/^[\s\u0085]*::/u);
      expect(line).not.toContain('##[');
    }
    // The hostile text is there, one line per test, its line breaks shown as \n.
    const failed = plain.filter((l) => l.startsWith('  failed hidden test '));
    expect(failed).toHaveLength(FAILED);
    expect(failed[0]).toContain(
      '[::error::owned-by-name%0A::warning::second ##\\[error]legacy <script>alert(1)</script>]: AssertionError: first line\\n::error file=calc/parser.py,line=1::owned-by-message\\n',
    );
    expect(failed[1]).toMatch(/ …\[cut\]$/);
    expect(failed[2]).toContain('test_flood[flood-000-_*`|<>&[]_*`|<>&[]');
  });

  it('the check run: title and annotations plain, one line where they must be, cut to their limits, 50 per request', () => {
    const { requests } = withCheckRun;
    expect(requests.map((r) => [r.method, r.status])).toEqual([
      ['POST', 201],
      ['PATCH', 200],
      ['PATCH', 200],
      ['PATCH', 200],
      ['PATCH', 200],
    ]);
    expect(requests.slice(1).map((r) => (r.body as Completion).output.annotations.length)).toEqual([
      50, 50, 50, 2,
    ]);
    const completion = completionOf(requests);
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure' });
    const { title } = completion.output;
    expect(utf8(title)).toBeLessThanOrEqual(255);
    expect(title).toMatch(/^Fail: hidden-tests-failed: 152 of 152 tests in the hidden tests did not pass: /);
    expect(title).toMatch(/ …\[cut\]$/);
    expect(title).not.toMatch(/[\r\n]/);

    const annotations = annotationsOf(requests);
    expect(annotations).toHaveLength(FAILED);
    for (const a of annotations) {
      expect([a.path, a.annotation_level]).toEqual(['.', 'failure']);
      expect(utf8(a.title)).toBeLessThanOrEqual(255);
      expect(a.title).not.toMatch(/[\r\n]/);
      expect(a.message).not.toMatch(CONTROL);
      expect(utf8(a.message)).toBeLessThanOrEqual(64_000);
    }
    const [hostile, long, flood] = annotations;
    expect(hostile!.title).toBe(`oracle-gate: test failed: ${HOSTILE_ID}`);
    expect(long!.title.startsWith(`oracle-gate: test failed: ${LONG_ID_PREFIX}`)).toBe(true);
    expect(utf8(long!.title)).toBe(255);
    expect(long!.title).toMatch(/ …\[cut\]$/);
    expect(flood!.title).toMatch(
      /^oracle-gate: test failed: oracle_tests\.test_hostile::test_flood\[flood-000-/,
    );
    for (const a of [hostile!, long!]) {
      // The 100 KB message arrives cut (the JUnit reader keeps 4096 characters of it).
      expect(utf8(a.message)).toBeLessThan(16_000);
      expect(a.message).toMatch(/…\[cut\]$/);
      expect(a.message).toContain('\n::error file=calc/parser.py,line=1::owned-by-message\n');
      // NEL and the Unicode separators are line breaks; bidi overrides are not shown. (Terminal
      // escapes cannot be written in XML: pytest's report writes them as `#x1B`.)
      expect(a.message).toContain('\nnext\nline\nand\nmore \ufffdesrever\ufffd #x1B[31mred#x1B[0m#x07\n');
    }
  });

  it('the summaries hold the report escaped, and are cut at a row to 65535 bytes', () => {
    const { run, requests } = withCheckRun;
    const summaries = requests.slice(1).map((r) => (r.body as Completion).output.summary);
    expect(new Set(summaries).size).toBe(1);
    const summary = summaries[0]!;
    // The job summary may hold 1 MiB: the same report, less cut (every failed test's row).
    expect(utf8(run.summary)).toBeLessThanOrEqual(1024 * 1024);
    expect(run.summary).not.toContain('_The summary was cut');
    expect(failedRows(run.summary)).toHaveLength(FAILED);
    expect(failedRows(run.summary).slice(0, failedRows(summary).length)).toEqual(failedRows(summary));
    expect(utf8(summary)).toBeLessThanOrEqual(65_535);
    expect(markdownViolations(summary)).toEqual([]);
    expect(summary).not.toMatch(/<(script|img|b)\b/i);
    expect(summary).toContain('&#60;script&#62;alert&#40;1&#41;&#60;/script&#62;');
    expect(summary).toContain(`### Failed tests (${FAILED})`);
    expect(summary).toMatch(
      /\|\n\n_The summary was cut to the GitHub limit of 65535 bytes: the oracle log holds everything\._\n$/,
    );
    // Of the 100 KB message, each table cell keeps a few lines.
    expect(summary.split('B').length - 1).toBeLessThan(2_000);
  });
});

/** The failed-test table's rows of a rendered summary. */
function failedRows(summary: string): string[] {
  const section = summary.split('\n### ').find((s) => s.startsWith('Failed tests')) ?? '';
  return section.split('\n').filter((l) => l.startsWith('| <code>oracle'));
}

describe('hostile test names and messages, graded as a fork PR (no check run)', () => {
  it('the job log: one error annotation per failed test and the step failure, each escaped and cut', () => {
    const { run, requests, violations } = asFork;
    expect(violations).toEqual([]);
    expect(requests.map((r) => [r.operationId, r.status])).toEqual([['checks/create', 403]]);
    expect(run.status).toBe(1);
    const { plain, commands } = jobLog(run);
    // GitHub keeps ten error annotations per step: eight failed tests, one saying how many more,
    // and the step's own failure.
    expect(commands.map((c) => [c.form, c.name])).toEqual(Array(10).fill(['v2', 'error']));
    const [hostile, long] = commands;
    // The annotations say what the check run's annotations say, `##[` defused and cut for the log.
    const checkRunMessages = annotationsOf(withCheckRun.requests).map((a) => a.message);
    for (const [i, annotation] of commands.slice(0, 8).entries()) {
      expect(annotation.properties).toEqual({ title: expect.stringMatching(/^oracle-gate: test failed: /) });
      expect(utf8(annotation.data)).toBeLessThanOrEqual(4_096);
      expect(annotation.data).not.toContain('##[');
      const shown = annotation.data.replace(/ …\[cut\]$/, '').replaceAll('##\\[', '##[');
      expect(checkRunMessages[i]!.startsWith(shown)).toBe(true);
    }
    expect(hostile!.properties.title).toBe(
      `oracle-gate: test failed: ${HOSTILE_ID.replaceAll('##[', '##\\[')}`,
    );
    expect(long!.data).toMatch(/ …\[cut\]$/);
    expect(commands[8]!.data).toBe(
      `oracle-gate: ${FAILED - 8} more failures are not shown here (GitHub shows 10 per step): the job summary lists as many as fit, the oracle log all of them.`,
    );
    expect(commands[9]!.data).toMatch(/^oracle-gate: Fail: hidden-tests-failed: 152 of 152 /);
    expect(commands[9]!.properties).toEqual({});
    for (const line of plain) {
      expect(utf8(line)).toBeLessThanOrEqual(4_096);
      expect(line).not.toContain('##[');
    }
  });

  it('the job summary carries the same report, escaped and cut', () => {
    const { run } = asFork;
    expect(run.outputs['check-run-id']).toBe('');
    expect(run.summary).toMatch(/^_No check run: the token cannot write check runs/);
    expect(markdownViolations(run.summary)).toEqual([]);
    expect(run.summary).not.toMatch(/<(script|img|b)\b/i);
    expect(run.summary).toContain(`### Failed tests (${FAILED})`);
    // The same failed-test rows as the job summary written beside a check run: all of them.
    expect(failedRows(run.summary)).toHaveLength(FAILED);
    expect(failedRows(run.summary)).toEqual(failedRows(withCheckRun.run.summary));
  });
});

describe('a hidden test named by a 100 KB string that starts with ::error::', () => {
  it('fails closed on the refused report, and the name reaches no channel', () => {
    const { run, requests, violations } = longName;
    expect(violations).toEqual([]);
    expect(run.status).toBe(1);
    const verdict = JSON.parse(run.outputs['verdict-json']!) as {
      reasons: { subkind: string; message: string }[];
    };
    expect(verdict.reasons).toEqual([
      {
        kind: 'custom',
        subkind: 'report-invalid',
        message: expect.stringMatching(
          /^the JUnit report of the hidden tests was refused: .*a test ID longer than 8192 characters$/,
        ),
      },
    ]);
    const completion = completionOf(requests);
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(run.commands).toEqual([
      { form: 'v2', name: 'error', properties: {}, data: `oracle-gate: ${completion.output.title}` },
    ]);
    for (const channel of [run.stdout, run.summary, JSON.stringify(requests.map((r) => r.body))]) {
      expect(channel).not.toContain('LLLLLLLLLL');
      expect(channel).not.toContain('::error::owned');
    }
    expect(markdownViolations(run.summary)).toEqual([]);
  });
});

describe('hostile file names in dropped hunks', () => {
  const shownNames = HOSTILE_NAMES.map(([, shown]) => shown);

  it('with a check run: the honest fix passes, with one warning annotation per file, its path plain', () => {
    const { run, requests, violations } = namesWithCheckRun;
    expect(violations).toEqual([]);
    expect(run.status).toBe(0);
    expect(run.outputs.verdict).toBe('pass');
    expect(
      (JSON.parse(run.outputs['dropped-hunks']!) as { path: string }[]).map((h) => h.path).sort(),
    ).toEqual(HOSTILE_NAMES.map(([, shown]) => shown.replace('\ufffd', '\u202e')).sort());
    const annotations = annotationsOf(requests);
    expect(annotations.map((a) => a.path).sort()).toEqual([...shownNames].sort());
    for (const a of annotations) expect(a.annotation_level).toBe('warning');
    expect(run.commands).toEqual([]);
    expect(markdownViolations(run.summary)).toEqual([]);
    expect(run.summary).not.toMatch(/<script/i);
    expect(run.summary).toContain('### Dropped hunks (6)');
  });

  it('as a fork: one warning command per file, its file property the same plain path, and nothing else', () => {
    const { run, violations } = namesAsFork;
    expect(violations).toEqual([]);
    expect(run.status).toBe(0);
    const { plain, commands } = jobLog(run);
    expect(commands.map((c) => [c.form, c.name])).toEqual(Array(6).fill(['v2', 'warning']));
    expect(commands.map((c) => c.properties.file).sort()).toEqual(
      // `##[` stays defused even inside a command.
      shownNames.map((name) => name.replaceAll('##[', '##\\[')).sort(),
    );
    for (const c of commands) expect(c.properties).toMatchObject({ line: '1', endLine: '1' });
    for (const line of plain) {
      expect(line).not.toMatch(CONTROL);
      expect(line).not.toContain('##[');
    }
    expect(plain.filter((l) => l.startsWith('  dropped hunk '))).toHaveLength(6);
    expect(markdownViolations(run.summary)).toEqual([]);
  });
});
