import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSampleRepo, SAMPLE, type SampleRepo } from '../container/sample-repo.js';
import { readFixtureJson, REPO_ROOT } from '../helpers/fixtures.js';
import { markdownViolations } from '../report/helpers/markdown-safety.js';
import { bundleOnce } from './helpers/bundle.js';
import {
  startGitHubApiServer,
  type GitHubApiServer,
  type ServerBehaviour,
} from './helpers/github-api-server.js';
import { runAction, type ActionRun } from './helpers/run-action.js';
import { removeRunnerTemps } from './helpers/runner-temp.js';
import {
  commitOnto,
  coreutilsTestsHash,
  diffHunks,
  forkLayout,
  hasObject,
  pinnedOracle,
  pullRequestPayload,
  pytestIds,
  setBranch,
  type PinnedOracle,
} from './helpers/sample-project.js';

/**
 * `node dist/index.js` as the runner runs it, against the OpenAPI-validating API server, with the
 * real gate underneath: the sample project's commits, a pinned oracle copy, the Docker engine and
 * the pinned test image.
 */
let repo: SampleRepo;
let oracle: PinnedOracle;
/** The sample's oracle with a path_allow.txt that allows the code and its tests, not `docs/`. */
let allowListOracle: PinnedOracle;
/** A base with docs files, and a head with the honest fix plus 120 hunks in docs/. */
let docs: { base: string; head: string };
/** The sample repository as a fork PR's run sees it: `main` checked out, the rest in origin. */
let fork: { dir: string; remove: () => void };
let scratch: string;
const servers: GitHubApiServer[] = [];

const DOC_LINES = 420;
/** The lines each docs file has a change at: ten lines apart, so each change is its own hunk. */
const CHANGED_LINES = Array.from({ length: 40 }, (_, k) => 10 * k + 5);

function numbered(name: string): string[] {
  return Array.from({ length: DOC_LINES }, (_, i) => `${name} line ${i + 1}`);
}

const text = (lines: string[]) => lines.map((l) => `${l}\n`).join('');

/**
 * 120 hunks outside the allow-list: 40 one-line edits (docs/modified.md), 40 two-line insertions
 * (docs/inserted.md), 38 one-line deletions (docs/deleted.md), a deleted file and an added file.
 */
function docsCommits(): { base: string; head: string } {
  const base = commitOnto(
    repo.dir,
    repo.base,
    {
      'docs/modified.md': text(numbered('modified')),
      'docs/inserted.md': text(numbered('inserted')),
      'docs/deleted.md': text(numbered('deleted')),
      'docs/removed.md': 'one\ntwo\nthree\n',
    },
    'docs: the manual',
  );
  const changed = new Set(CHANGED_LINES);
  const deleted = new Set(CHANGED_LINES.slice(0, 38));
  const head = commitOnto(
    repo.dir,
    base,
    {
      'calc/parser.py': readFileSync(join(SAMPLE, 'patches/honest/calc/parser.py'), 'utf8'),
      'docs/modified.md': text(
        numbered('modified').map((l, i) => (changed.has(i + 1) ? `${l} (edited)` : l)),
      ),
      'docs/inserted.md': text(
        numbered('inserted').flatMap((l, i) => (changed.has(i + 1) ? [l, 'inserted a', 'inserted b'] : [l])),
      ),
      'docs/deleted.md': text(numbered('deleted').filter((_, i) => !deleted.has(i + 1))),
      'docs/removed.md': null,
      'docs/added.md': 'a new\nfile\n',
    },
    'fix associativity; rewrite the manual',
  );
  setBranch(repo.dir, 'docs/base', base);
  setBranch(repo.dir, 'docs/head', head);
  return { base, head };
}

beforeAll(async () => {
  bundleOnce();
  scratch = mkdtempSync(join(tmpdir(), 'og-action-gate-'));
  repo = await buildSampleRepo();
  oracle = await pinnedOracle(scratch, inject('testImage'));
  allowListOracle = await pinnedOracle(scratch, inject('testImage'), {
    files: { 'path_allow.txt': '# the code and its tests\ncalc/**\ntests/**\n' },
  });
  docs = docsCommits();
  fork = forkLayout(repo.dir);
});
afterAll(async () => {
  await repo.remove();
  fork.remove();
  rmSync(scratch, { recursive: true, force: true });
  removeRunnerTemps();
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

interface GateRun {
  run: ActionRun;
  server: GitHubApiServer;
}

/** One run of the bundled action on a `pull_request` event for these commits. */
async function gateAction(options: {
  base: string;
  head: string;
  oracle: PinnedOracle;
  workspace?: string;
  /** The fork's payload (the PR head in another repository). */
  fork?: boolean;
  behaviour?: ServerBehaviour;
  inputs?: Record<string, string>;
}): Promise<GateRun> {
  return runOn({
    eventName: 'pull_request',
    payload: pullRequestPayload(options.base, options.head, options.fork),
    ...options,
  });
}

/** One run of the bundled action on any event, against a fresh API server. */
async function runOn(options: {
  eventName: string;
  payload: unknown;
  oracle: PinnedOracle;
  workspace?: string;
  sha?: string;
  behaviour?: ServerBehaviour;
  inputs?: Record<string, string>;
}): Promise<GateRun> {
  const server = await startGitHubApiServer(options.behaviour);
  servers.push(server);
  const run = await runAction({
    apiUrl: server.url,
    eventName: options.eventName,
    payload: options.payload,
    ...(options.sha ? { sha: options.sha } : {}),
    inputs: { 'oracle-path': options.oracle.dir, 'oracle-hash': options.oracle.hash, ...options.inputs },
    workspace: options.workspace ?? repo.dir,
  });
  return { run, server };
}

/** The IDs the sample's existing suite and hidden tests define, read from their sources. */
function sampleTestIds(): string[] {
  const read = (path: string) => readFileSync(join(SAMPLE, path), 'utf8');
  return [
    ...pytestIds('tests.test_calc', read('repo/tests/test_calc.py')),
    ...pytestIds('tests.test_lexer', read('repo/tests/test_lexer.py')),
    ...pytestIds('oracle_tests.test_associativity', read('oracle/tests/test_associativity.py')),
  ];
}

const HEX64 = /^[0-9a-f]{64}$/;

describe('node dist/index.js over the real gate, on a same-repository pull_request', () => {
  it('passes the honest patch: one check run on the head, in progress then success, every output set', async () => {
    const head = repo.heads.honest!;
    const { run, server } = await gateAction({ base: repo.base, head, oracle });

    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.method, r.operationId, r.status])).toEqual([
      ['POST', 'checks/create', 201],
      ['PATCH', 'checks/update', 200],
    ]);
    expect(server.requests[0]!.body).toMatchObject({
      name: 'oracle-gate',
      head_sha: head,
      status: 'in_progress',
    });
    const completion = server.requests[1]!.body as {
      status: string;
      conclusion: string;
      output: { title: string; summary: string; annotations?: unknown[] };
    };
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'success' });
    expect(completion.output.title).toBe(
      'Pass: oracle-gate > config > oracle-hash > path-policy > sealed-fixtures > container > tests',
    );
    expect(completion.output.annotations).toBeUndefined();
    expect(server.checkRuns.size).toBe(1);
    const [checkRun] = [...server.checkRuns.values()];
    expect(checkRun).toMatchObject({ head_sha: head, status: 'completed', conclusion: 'success' });

    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    const outputs = run.outputs;
    expect(Object.keys(outputs).sort()).toEqual(
      [
        'verdict',
        'verdict-json',
        'attested',
        'tests-hash',
        'oracle-hash',
        'diff-sha256',
        'dropped-hunks',
        'dropped-hunks-count',
        'quarantined',
        'log-path',
        'check-run-id',
      ].sort(),
    );
    expect(outputs.verdict).toBe('pass');
    expect(outputs['verdict-json']).toBe(
      '{"kind":"pass","chain":["oracle-gate","config","oracle-hash","path-policy","sealed-fixtures","container","tests"]}',
    );
    expect(outputs.attested).toBe('true');
    expect(outputs['tests-hash']).toMatch(HEX64);
    expect(outputs['tests-hash']).toBe(coreutilsTestsHash(sampleTestIds()));
    expect(outputs['oracle-hash']).toBe(oracle.hash);
    expect(outputs['diff-sha256']).toMatch(HEX64);
    // Nothing dropped: the filtered diff is the PR's diff.
    const diff = await repo.diff('honest');
    expect(outputs['diff-sha256']).toBe(sha256sum(diff));
    expect(outputs['dropped-hunks']).toBe('[]');
    expect(outputs['dropped-hunks-count']).toBe('0');
    expect(outputs.quarantined).toBe('false');
    expect(outputs['log-path']).toBe(join(run.runnerTemp, 'oracle-gate', 'oracle.log'));
    expect(existsSync(outputs['log-path']!)).toBe(true);
    expect(outputs['check-run-id']).toBe(String(checkRun!.id));

    // The CLI, the same core, agrees on the hashes for the same commits and oracle.
    const cli = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, 'dist/cli.js'),
        'run',
        ...['--repo', repo.dir, '--base', repo.base, '--head', head],
        ...['--oracle', oracle.dir, '--oracle-hash', oracle.hash, '--log', join(scratch, 'cli.log')],
      ],
      { encoding: 'utf8' },
    );
    expect(cli.status).toBe(0);
    expect(cli.stdout.split('\n')).toEqual([
      outputs['verdict-json'],
      `tests_hash=${outputs['tests-hash']}`,
      '',
    ]);
    const hashed = spawnSync(process.execPath, [join(REPO_ROOT, 'dist/cli.js'), 'hash', oracle.dir], {
      encoding: 'utf8',
    });
    expect(hashed.stdout).toBe(`${outputs['oracle-hash']}\n`);

    // The oracle log holds the evidence; the summary carries it within GitHub's limit.
    const log = readFileSync(outputs['log-path']!, 'utf8');
    expect(log).toContain(`tests_hash: ${outputs['tests-hash']}`);
    expect(coreutilsTestsHash(loggedTestIds(log))).toBe(outputs['tests-hash']);
    expect(log).toContain(`image: ${inject('testImage')}`);
    for (const summary of [completion.output.summary, run.summary]) {
      expect(summary).toContain('## ✅ oracle-gate: Pass');
      expect(summary).toContain(`<code>${outputs['tests-hash']}</code>`);
      expect(summary).toContain(`<code>${outputs['diff-sha256']}</code>`);
      expect(markdownViolations(summary)).toEqual([]);
    }
    expect(Buffer.byteLength(completion.output.summary)).toBeLessThanOrEqual(65_535);
    // A check run carries the report: the job log holds no annotation and no failure.
    expect(run.commands).toEqual([]);
  });
});

interface RecordedCompletion {
  status?: string;
  conclusion?: string;
  output: { title: string; summary: string; annotations?: Record<string, unknown>[] };
}

describe('node dist/index.js over the real gate: 120 hunks outside the allow-list', () => {
  it('drops them, still passes, and sends 120 warning annotations on their new-side lines over three requests', async () => {
    const { run, server } = await gateAction({ base: docs.base, head: docs.head, oracle: allowListOracle });
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.method, r.operationId, r.status])).toEqual([
      ['POST', 'checks/create', 201],
      ['PATCH', 'checks/update', 200],
      ['PATCH', 'checks/update', 200],
      ['PATCH', 'checks/update', 200],
    ]);
    const updates = server.requests.slice(1).map((r) => r.body as RecordedCompletion);
    expect(updates.map((u) => u.output.annotations?.length)).toEqual([50, 50, 20]);
    // The verdict lands with the first batch; the others only add annotations.
    expect(updates[0]).toMatchObject({ status: 'completed', conclusion: 'success' });
    for (const later of updates.slice(1)) {
      expect(later.status).toBeUndefined();
      expect(later.conclusion).toBeUndefined();
      expect(later.output.title).toBe(updates[0]!.output.title);
    }
    expect(server.checkRuns.size).toBe(1);
    const [checkRun] = [...server.checkRuns.values()];
    expect(checkRun).toMatchObject({ head_sha: docs.head, status: 'completed', conclusion: 'success' });
    expect(checkRun!.annotations).toHaveLength(120);

    // Each annotation is a warning on its hunk's new-side lines, as git's own headers give them.
    const hunks = diffHunks(repo.dir, docs.base, docs.head, ['docs']);
    expect(hunks).toHaveLength(120);
    const annotations = updates.flatMap((u) => u.output.annotations ?? []);
    expect(annotations.map((a) => [a.path, a.start_line, a.end_line, a.annotation_level])).toEqual(
      hunks.map((h) => {
        // A hunk with no new side (a deleted file: +0,0) is shown on line 1.
        const start = Math.max(h.newStart, 1);
        return [h.path, start, h.newLines > 0 ? h.newStart + h.newLines - 1 : start, 'warning'];
      }),
    );
    const messageOn = (path: string) => annotations.find((a) => a.path === path)?.message;
    expect(messageOn('docs/added.md')).toBe(
      'This hunk (old lines none, new lines 1–2) was dropped and did not reach the oracle: outside the allow-list.',
    );
    expect(messageOn('docs/removed.md')).toBe(
      'This hunk (old lines 1–3, new lines none) was dropped and did not reach the oracle: outside the allow-list.',
    );
    for (const a of annotations) {
      expect(a.title).toBe('oracle-gate: hunk dropped');
      expect(a.message).toMatch(
        /^This hunk \(old lines .*, new lines .*\) was dropped and did not reach the oracle: outside the allow-list\.$/,
      );
    }

    // Dropped hunks are logged and annotated, not a failure: the honest fix passes.
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.outputs.verdict).toBe('pass');
    expect(run.outputs['dropped-hunks-count']).toBe('120');
    expect(JSON.parse(run.outputs['dropped-hunks']!)).toEqual(
      hunks.map((h) => ({
        path: h.path,
        old_start: h.oldStart,
        old_lines: h.oldLines,
        new_start: h.newStart,
        new_lines: h.newLines,
        reason: 'outside the allow-list',
      })),
    );
    // Only calc/parser.py reached the container: the same diff as the honest patch alone.
    expect(run.outputs['diff-sha256']).toBe(sha256sum(await repo.diff('honest')));
    expect(run.outputs['check-run-id']).toBe(String(checkRun!.id));

    for (const summary of [updates[0]!.output.summary, run.summary]) {
      expect(Buffer.byteLength(summary)).toBeLessThanOrEqual(65_535);
      expect(summary).toContain('## ✅ oracle-gate: Pass');
      expect(summary).toContain('### Dropped hunks (120)');
      expect(summary.match(/^\| <code>docs\/[a-z]+&#46;md<\/code> \|/gm)).toHaveLength(120);
      expect(markdownViolations(summary)).toEqual([]);
    }
    expect(run.stdout.match(/^ {2}dropped hunk docs\//gm)).toHaveLength(120);
    expect(run.commands).toEqual([]);
    expect(run.stdout).toContain(
      'check run ' + checkRun!.id + ' completed: success, 120 annotations in 3 requests',
    );
  });
});

describe('node dist/index.js over the real gate: a denied path', () => {
  it('fails before any container runs, with a failure annotation on the denied file', async () => {
    const { run, server } = await gateAction({
      base: repo.base,
      head: repo.heads['touches-workflow']!,
      oracle,
    });
    expect(server.violations()).toEqual([]);
    const completion = server.requests[1]!.body as RecordedCompletion;
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(completion.output.title).toMatch(/^Fail: denied-path: /);
    expect(completion.output.annotations).toEqual([
      expect.objectContaining({
        path: '.github/workflows/ci.yml',
        start_line: 1,
        end_line: 1,
        annotation_level: 'failure',
      }),
    ]);
    expect(run.status).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(run.outputs['tests-hash']).toBe('');
    expect(run.stdout).not.toContain('stage container');
    expect(run.commands.map((c) => c.name)).toEqual(['error']);
  });
});

describe('node dist/index.js over the real gate on a fork PR, whose token cannot write checks', () => {
  const forkRun = (base: string, head: string, theOracle: PinnedOracle) =>
    gateAction({
      base,
      head,
      oracle: theOracle,
      workspace: fork.dir,
      fork: true,
      behaviour: { refuse: { 'checks/create': { status: 403 } } },
    });

  it('a failing patch: the job summary and error annotations carry the Fail, and the step exits 1', async () => {
    const head = repo.heads['wrong-fix']!;
    expect(hasObject(fork.dir, head)).toBe(false);
    const { run, server } = await forkRun(repo.base, head, oracle);
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.operationId, r.status])).toEqual([['checks/create', 403]]);
    expect(run.stdout).toContain(`fetching ${head} from origin (as objects; nothing is checked out)`);

    expect(run.status).toBe(1);
    expect(run.outputs.verdict).toBe('fail');
    expect(run.outputs['check-run-id']).toBe('');
    expect(run.outputs['tests-hash']).toMatch(HEX64);
    expect(JSON.parse(run.outputs['verdict-json']!)).toMatchObject({
      kind: 'fail',
      reasons: [{ subkind: 'hidden-tests-failed' }],
    });
    expect(run.summary).toContain('_No check run: the token cannot write check runs &#40;HTTP 403&#41;');
    expect(run.summary).toContain('## ❌ oracle-gate: Fail');
    expect(run.summary).toContain('### Failed tests (1)');
    expect(run.summary).toContain(
      '<code>oracle&#95;tests&#46;test&#95;associativity&#58;&#58;test&#95;division&#95;is&#95;left&#95;associative</code>',
    );
    expect(markdownViolations(run.summary)).toEqual([]);
    // One annotation for the failed hidden test, then the step's own failure.
    expect(run.commands.map((c) => [c.name, c.data.split('\n')[0]])).toEqual([
      ['error', 'The hidden test oracle_tests.test_associativity::test_division_is_left_associative failed.'],
      ['error', expect.stringMatching(/^oracle-gate: Fail: hidden-tests-failed: /)],
    ]);
    expect(run.commands[0]!.properties).toEqual({
      title: 'oracle-gate: test failed: oracle_tests.test_associativity::test_division_is_left_associative',
    });
  });

  it('a passing patch with 120 dropped hunks: warnings within the per-step budget, and the step exits 0', async () => {
    expect(hasObject(fork.dir, docs.base)).toBe(false);
    const { run, server } = await forkRun(docs.base, docs.head, allowListOracle);
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.operationId, r.status])).toEqual([['checks/create', 403]]);
    expect(run.status).toBe(0);
    expect(run.outputs.verdict).toBe('pass');
    expect(run.outputs.attested).toBe('true');
    expect(run.outputs['dropped-hunks-count']).toBe('120');
    expect(run.summary).toContain('## ✅ oracle-gate: Pass');
    expect(run.summary).toContain('### Dropped hunks (120)');
    expect(markdownViolations(run.summary)).toEqual([]);
    // GitHub keeps ten warnings per step: nine hunks, then one saying how many more the summary holds.
    expect(run.commands.map((c) => c.name)).toEqual(Array(10).fill('warning'));
    const hunks = diffHunks(repo.dir, docs.base, docs.head, ['docs']);
    expect(
      run.commands
        .slice(0, 9)
        .map((c) => [c.properties.file, Number(c.properties.line), Number(c.properties.endLine)]),
    ).toEqual(
      hunks
        .slice(0, 9)
        .map((h) => [
          h.path,
          Math.max(h.newStart, 1),
          h.newLines > 0 ? h.newStart + h.newLines - 1 : Math.max(h.newStart, 1),
        ]),
    );
    expect(run.commands[9]!.data).toBe(
      'oracle-gate: 111 more warnings are not shown here (GitHub shows 10 per step): the job summary lists as many as fit, the oracle log all of them.',
    );
  });
});

describe('node dist/index.js over the real gate in baseline mode (workflow_dispatch, no PR)', () => {
  const baseline = (theOracle: PinnedOracle) =>
    runOn({
      eventName: 'workflow_dispatch',
      payload: readFixtureJson('github/workflow_dispatch.json'),
      sha: repo.base,
      oracle: theOracle,
      inputs: { mode: 'baseline' },
    });

  it('a sound oracle: Pass on the workflow commit, and the tests.lock proposal next to the log', async () => {
    const { run, server } = await baseline(oracle);
    expect(server.violations()).toEqual([]);
    expect(server.requests.map((r) => [r.operationId, r.status])).toEqual([
      ['checks/create', 201],
      ['checks/update', 200],
    ]);
    expect(server.requests[0]!.body).toMatchObject({ head_sha: repo.base });
    expect(server.requests[1]!.body).toMatchObject({ conclusion: 'success' });
    expect(run.status).toBe(0);
    expect(run.outputs).toMatchObject({
      verdict: 'pass',
      attested: 'true',
      quarantined: 'false',
      'diff-sha256': '',
    });
    expect(run.outputs['tests-hash']).toMatch(HEX64);
    const proposal = join(run.runnerTemp, 'oracle-gate', 'tests.lock.proposed');
    expect(readFileSync(proposal, 'utf8')).toBe(readFileSync(join(oracle.dir, 'tests.lock'), 'utf8'));
  });

  it('an oracle the base already passes: the task is quarantined, a Fail, and quarantined=true', async () => {
    const passing = await pinnedOracle(scratch, inject('testImage'), {
      fixture: 'sample-python/oracle-already-passing',
    });
    const { run, server } = await baseline(passing);
    expect(server.violations()).toEqual([]);
    const completion = server.requests[1]!.body as RecordedCompletion;
    expect(completion).toMatchObject({ status: 'completed', conclusion: 'failure' });
    expect(completion.output.title).toMatch(/^Fail: quarantined: /);
    expect(completion.output.summary).toContain('| Quarantined | **yes** |');
    expect(run.status).toBe(1);
    expect(run.outputs).toMatchObject({ verdict: 'fail', quarantined: 'true' });
    expect(JSON.parse(run.outputs['verdict-json']!)).toMatchObject({ reasons: [{ subkind: 'quarantined' }] });
  });
});

/** The IDs in the oracle log's `== tests (N)` section: each outcome line, then its `  | <id>` line. */
function loggedTestIds(log: string): string[] {
  const start = log.search(/^== tests \(\d+\)$/m);
  if (start < 0) throw new Error('the oracle log has no tests section');
  const [header, ...body] = log.slice(start).split('\n\n')[0]!.split('\n');
  const ids = body.flatMap((line) => /^ {2}\| (.*)$/.exec(line)?.[1] ?? []);
  expect(ids).toHaveLength(Number(/\((\d+)\)/.exec(header!)![1]));
  return ids;
}

function sha256sum(data: Buffer | string): string {
  return spawnSync('sha256sum', [], { input: data, encoding: 'utf8' }).stdout.split(' ')[0]!;
}
