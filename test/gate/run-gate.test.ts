import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OracleRunRequest, OracleRunResult } from '../../src/container/run-oracle-container.js';
import { PROPOSED_FLAKE_LEDGER, PROPOSED_TESTS_LOCK } from '../../src/gate/baseline-proposals.js';
import type { GateMode, GateReport } from '../../src/gate/report.js';
import { GATE_ID, runGate, type GateRequest } from '../../src/gate/run-gate.js';
import { parseFlakeLedger } from '../../src/oracle-dir/flake-ledger.js';
import { buildSampleRepo, type SampleRepo } from '../container/sample-repo.js';
import { EXISTING_IDS, fakeRun, LOCKED_IDS, sampleOracle, tempDirs, type OracleCopy } from './helpers.js';

/**
 * runGate in process over the real sample repository and oracle directory, with the container
 * replaced by a fake that records what it was asked and answers what each test needs. The real
 * engine's runs are in the end-to-end tests (cli-run.e2e.test.ts and others).
 */
const IMAGE = `registry.example/calc-oracle@sha256:${'a'.repeat(64)}`;
const tempDir = tempDirs('og-gate-');
let repo: SampleRepo;
beforeAll(async () => {
  repo = await buildSampleRepo();
});
afterAll(() => repo.remove());

interface Gated {
  report: GateReport;
  requests: OracleRunRequest[];
  lines: string[];
  dir: string;
}

async function gate(
  options: {
    patch?: string;
    mode?: GateMode;
    oracle?: (parent: string) => Promise<OracleCopy>;
    pinned?: string;
    container?: (request: OracleRunRequest) => OracleRunResult | Promise<OracleRunResult>;
    logPath?: string;
  } = {},
): Promise<Gated> {
  const dir = tempDir();
  const oracle = await (options.oracle ?? ((parent) => sampleOracle(parent, IMAGE)))(dir);
  const requests: OracleRunRequest[] = [];
  const lines: string[] = [];
  const mode = options.mode ?? 'grade';
  const request: GateRequest = {
    repoDir: repo.dir,
    baseSha: repo.base,
    headSha: mode === 'grade' ? repo.heads[options.patch ?? 'honest']! : '',
    oracleDir: oracle.dir,
    pinnedOracleHash: options.pinned ?? oracle.hash,
    mode,
    logPath: options.logPath ?? join(dir, 'logs', 'oracle.log'),
    progress: (line) => lines.push(line),
  };
  const report = await runGate(request, {
    runOracleContainer: async (r) => {
      requests.push(r);
      return (options.container ?? fakeRun)(r);
    },
  });
  return { report, requests, lines, dir };
}

function reasons(report: GateReport) {
  return report.verdict.kind === 'fail' ? report.verdict.reasons : [];
}

describe('runGate with every stage passing', () => {
  it('passes with the full chain, fills the report and writes the oracle log', async () => {
    const { report, requests, lines, dir } = await gate();
    expect(report.verdict).toEqual({
      kind: 'pass',
      chain: [GATE_ID, 'config', 'oracle-hash', 'path-policy', 'sealed-fixtures', 'container', 'tests'],
    });
    expect(report.attested).toBe(true);
    expect(report.stages.map((s) => [s.id, s.outcome, s.attested])).toEqual([
      ['config', 'pass', true],
      ['oracle-hash', 'pass', true],
      ['path-policy', 'pass', true],
      ['sealed-fixtures', 'pass', false],
      ['container', 'pass', true],
      ['tests', 'pass', true],
    ]);
    for (const s of report.stages) expect(Number.isInteger(s.ms) && s.ms >= 0).toBe(true);

    // What reached the container: the filtered diff at the PR's base, the hidden tests, no frozen test.
    expect(requests).toHaveLength(1);
    const sent = requests[0]!;
    expect(sent.mode).toBe('grade');
    expect(sent.baseSha).toBe(repo.base);
    // The gate hands over the filtered diff as chunks, so it is never copied whole.
    const sentDiff = Buffer.concat(Buffer.isBuffer(sent.diff) ? [sent.diff] : [...(sent.diff ?? [])]);
    expect(sentDiff.toString()).toContain('+++ b/calc/parser.py');
    expect(sent.hiddenTestsDir).toBe(join(dir, 'oracle', 'tests'));
    expect([...(sent.frozen ?? [])]).toEqual([]);
    expect(sent.config).toMatchObject({ image: IMAGE, timeoutSeconds: 60, user: '1000:1000' });
    expect(sent.config.env).toEqual({ PYTHONDONTWRITEBYTECODE: '1', PYTEST_DISABLE_PLUGIN_AUTOLOAD: '1' });

    expect(report.diffSha256).toBe(createHash('sha256').update(sentDiff).digest('hex'));
    expect(report.oracleHash).toMatch(/^h1:/);
    expect(report.imageDigest).toBe(IMAGE);
    expect(report.testsHash).toBe('f'.repeat(64));
    expect(report.tests).toHaveLength(EXISTING_IDS.length + LOCKED_IDS.length);
    expect(report.baseSha).toBe(repo.base);
    expect(report.headSha).toBe(repo.heads.honest);
    expect(report.mergeBase).toBe(repo.base);
    expect(report.deniedTouches).toEqual([]);
    expect(report.droppedHunks).toEqual([]);
    expect(report.quarantined).toBe(false);
    expect(report.notes).toEqual([
      'no fixtures/manifest.json: there are no sealed fixtures to check',
      'a note from the container layer',
    ]);
    expect(report.logPath).toBe(join(dir, 'logs', 'oracle.log'));
    const log = readFileSync(report.logPath!, 'utf8');
    expect(log).toContain('== gate verdict (oracle/1)');
    expect(log).toContain(`diff sha256: ${report.diffSha256}`);
    expect(log).toContain(`stage container: ${report.stages[4]!.ms} ms (pass)`);
    expect(lines).toContain('stage path-policy');
    expect(lines.filter((l) => /^stage [a-z-]+: pass in \d+ ms/.test(l))).toHaveLength(6);
  });

  it('writes the log to a fresh temporary folder when no log path is given', async () => {
    const dir = tempDir();
    const oracle = await sampleOracle(dir, IMAGE);
    const report = await runGate(
      {
        repoDir: repo.dir,
        baseSha: repo.base,
        headSha: repo.heads.honest!,
        oracleDir: oracle.dir,
        pinnedOracleHash: oracle.hash,
        mode: 'grade',
      },
      { runOracleContainer: async (r) => fakeRun(r) },
    );
    expect(report.logPath).toMatch(/oracle-gate-log-[^/]+\/oracle\.log$/);
    expect(existsSync(report.logPath!)).toBe(true);
  });
});

describe('the config stage', () => {
  it("fails config-invalid with the loader's one-line error for a bad oracle.json, and goes no further", async () => {
    const { report, requests } = await gate({
      oracle: (parent) => sampleOracle(parent, IMAGE, { config: { timeout: 5 } }),
    });
    expect(reasons(report)).toEqual([
      {
        kind: 'custom',
        subkind: 'config-invalid',
        message: expect.stringMatching(/^oracle\.json: .*timeout/),
      },
    ]);
    expect(report.stages.map((s) => s.id)).toEqual(['config']);
    expect(requests).toEqual([]);
    expect(readFileSync(report.logPath!, 'utf8')).toContain('exit reason: not-run');
  });

  it('refuses an image pinned by tag alone', async () => {
    const { report } = await gate({
      oracle: (parent) => sampleOracle(parent, 'registry.example/calc-oracle:latest'),
    });
    expect(reasons(report)[0]?.subkind).toBe('config-invalid');
    expect(reasons(report)[0]?.message).toMatch(/^oracle\.json: image: must be pinned by digest/);
  });

  it('refuses an oracle without hidden tests', async () => {
    const { report } = await gate({
      oracle: (parent) => sampleOracle(parent, IMAGE, { files: { tests: null } }),
    });
    expect(reasons(report)).toEqual([
      {
        kind: 'custom',
        subkind: 'config-invalid',
        message: expect.stringContaining('tests/: missing'),
      },
    ]);
  });

  it('refuses a pinned hash that is not h1:, and a base that is not a commit', async () => {
    const bad = await gate({ pinned: 'sha256:abc' });
    expect(reasons(bad.report)[0]).toMatchObject({
      subkind: 'config-invalid',
      message: expect.stringMatching(/h1:/),
    });
    const dir = tempDir();
    const oracle = await sampleOracle(dir, IMAGE);
    const report = await runGate({
      repoDir: repo.dir,
      baseSha: 'no-such-branch',
      headSha: repo.heads.honest!,
      oracleDir: oracle.dir,
      pinnedOracleHash: oracle.hash,
      mode: 'grade',
      logPath: join(dir, 'oracle.log'),
    });
    expect(reasons(report)).toEqual([
      {
        kind: 'custom',
        subkind: 'config-invalid',
        message: `base: "no-such-branch" is not a commit in ${repo.dir}`,
      },
    ]);
  });
});

describe('the oracle-hash stage', () => {
  it('fails oracle-hash-mismatch naming both hashes, before any policy or container work', async () => {
    const pinned = `h1:${'A'.repeat(43)}=`;
    const { report, requests } = await gate({ pinned });
    const [reason] = reasons(report);
    expect(reason?.subkind).toBe('oracle-hash-mismatch');
    expect(reason?.message).toContain(pinned);
    expect(reason?.message).toContain(report.oracleHash!);
    expect(report.stages.map((s) => s.id)).toEqual(['config', 'oracle-hash']);
    expect(requests).toEqual([]);
  });
});

describe('the path-policy stage', () => {
  it('fails denied-path for a workflow edit, listing the path and what was done, and starts no container', async () => {
    const { report, requests, lines } = await gate({ patch: 'touches-workflow' });
    expect(reasons(report)).toEqual([
      {
        kind: 'custom',
        subkind: 'denied-path',
        message: 'the patch touches a denied path: .github/workflows/ci.yml (modified; deny glob .github/**)',
      },
    ]);
    expect(report.deniedTouches).toEqual([
      { path: '.github/workflows/ci.yml', change: 'modified', rule: 'deny glob .github/**' },
    ]);
    expect(report.stages.map((s) => s.id)).toEqual(['config', 'oracle-hash', 'path-policy']);
    expect(requests).toEqual([]);
    expect(lines.some((l) => l.startsWith('stage container'))).toBe(false);
    expect(report.imageDigest).toBeUndefined();
    expect(report.testsHash).toBeUndefined();
  });

  it('drops the hunks outside path_allow.txt, records them, and sends the container only the rest', async () => {
    const { report, requests } = await gate({
      patch: 'edits-existing-test',
      oracle: (parent) => sampleOracle(parent, IMAGE, { files: { 'path_allow.txt': 'calc/**\n' } }),
    });
    expect(report.verdict.kind).toBe('pass');
    expect(report.droppedHunks.length).toBeGreaterThan(0);
    expect(report.droppedHunks.every((h) => h.path === 'tests/test_calc.py')).toBe(true);
    expect(report.droppedHunks[0]?.reason).toBe('outside the allow-list');
    const diff = requests[0]!.diff!.toString();
    expect(diff).toContain('b/calc/parser.py');
    expect(diff).not.toContain('tests/test_calc.py');
    expect(report.notes[0]).toMatch(/hunk\(s\) in 1 file\(s\) outside the allow-list were dropped/);
  });

  it('denies a patch that touches a path named in path_deny.txt', async () => {
    const { report } = await gate({
      patch: 'adds-conftest',
      oracle: (parent) => sampleOracle(parent, IMAGE, { files: { 'path_deny.txt': '**/conftest.py\n' } }),
    });
    expect(reasons(report)[0]?.message).toBe(
      'the patch touches a denied path: conftest.py (added; deny glob **/conftest.py (path_deny.txt line 1))',
    );
  });
});

describe('the sealed-fixtures stage', () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');

  const manifest = (hash: string) => JSON.stringify({ roots: [], files: { 'README.md': hash } });

  it('passes, attested, when the manifest holds at the base commit', async () => {
    const readme = readFileSync(join(repo.dir, 'README.md'), 'utf8');
    const { report } = await gate({
      oracle: (parent) =>
        sampleOracle(parent, IMAGE, { files: { 'fixtures/manifest.json': manifest(sha(readme)) } }),
    });
    expect(report.verdict.kind).toBe('pass');
    expect(report.stages.find((s) => s.id === 'sealed-fixtures')?.attested).toBe(true);
  });

  it('fails stale-oracle when a sealed file differs at the base commit, before the container', async () => {
    const { report, requests } = await gate({
      oracle: (parent) =>
        sampleOracle(parent, IMAGE, { files: { 'fixtures/manifest.json': manifest(sha('other')) } }),
    });
    expect(reasons(report)[0]?.subkind).toBe('stale-oracle');
    expect(report.stages.at(-1)?.id).toBe('sealed-fixtures');
    expect(requests).toEqual([]);
  });
});

describe('the container and tests stages', () => {
  it("fail with the container layer's own reasons, and the tests stage does not run", async () => {
    const timeout = {
      kind: 'custom' as const,
      subkind: 'timeout',
      message: 'the oracle run passed its limit',
    };
    const { report } = await gate({ container: (r) => fakeRun(r, { containerReasons: [timeout] }) });
    expect(reasons(report)).toEqual([timeout]);
    expect(report.stages.at(-1)).toMatchObject({ id: 'container', outcome: 'fail' });
  });

  it('turn an exception in the container adapter into an internal-error Fail', async () => {
    const { report } = await gate({
      container: () => {
        throw new Error('the engine vanished');
      },
    });
    expect(reasons(report)).toEqual([
      {
        kind: 'custom',
        subkind: 'internal-error',
        message: 'the container stage stopped on an unexpected error: the engine vanished',
      },
    ]);
  });

  it('fail tests-changed when a locked hidden test did not run, and another ran unlocked', async () => {
    const { report } = await gate({
      container: (r) =>
        fakeRun(r, {
          outcomes: [
            ...LOCKED_IDS.slice(1).map((id) => ({ id, suite: 'hidden' as const, status: 'passed' as const })),
            { id: 'oracle_tests.test_extra::test_planted', suite: 'hidden', status: 'passed' },
          ],
        }),
    });
    expect(reasons(report).map((r) => r.subkind)).toEqual(['tests-changed', 'tests-changed']);
    expect(reasons(report)[0]?.message).toBe(
      `1 locked hidden test(s) did not run: ${JSON.stringify(LOCKED_IDS[0])}`,
    );
    expect(reasons(report)[1]?.message).toBe(
      '1 hidden test(s) ran that tests.lock does not list: "oracle_tests.test_extra::test_planted"',
    );
  });

  it('put the test-level reasons first, and note a missing tests.lock', async () => {
    const failed = {
      kind: 'custom' as const,
      subkind: 'hidden-tests-failed',
      message: '1 of 5 did not pass',
    };
    const { report } = await gate({
      oracle: (parent) => sampleOracle(parent, IMAGE, { files: { 'tests.lock': null } }),
      container: (r) => fakeRun(r, { testReasons: [failed] }),
    });
    expect(reasons(report)).toEqual([failed]);
    expect(report.notes).toContain('no tests.lock: the tests-changed check was skipped');
  });

  it('pass the frozen tests to the container, and fail an oracle over its freeze budget', async () => {
    const ledger = {
      version: 1,
      tests: LOCKED_IDS.slice(0, 2).map((id) => ({ id, state: 'frozen', history: 'PPPPFPPPPF' })),
    };
    const { report, requests } = await gate({
      oracle: (parent) =>
        sampleOracle(parent, IMAGE, { files: { 'flake_ledger.json': JSON.stringify(ledger) } }),
    });
    expect([...(requests[0]?.frozen ?? [])].sort()).toEqual(LOCKED_IDS.slice(0, 2));
    expect(reasons(report)).toEqual([
      {
        kind: 'custom',
        subkind: 'freeze-budget-exceeded',
        message: expect.stringMatching(/^2 of 5 hidden tests are frozen, over the freeze budget of 10%/),
      },
    ]);
  });
});

describe('baseline mode', () => {
  it('runs without a diff or a path-policy stage, and writes the proposals next to the log', async () => {
    const outcomes = [
      { id: EXISTING_IDS[0]!, suite: 'existing' as const, status: 'passed' as const },
      ...LOCKED_IDS.map((id, i) => ({
        id,
        suite: 'hidden' as const,
        status: i === 0 ? ('passed' as const) : ('failed' as const),
      })),
    ];
    const { report, requests, dir } = await gate({
      mode: 'baseline',
      container: (r) => fakeRun(r, { outcomes }),
    });
    expect(report.verdict).toEqual({
      kind: 'pass',
      chain: [GATE_ID, 'config', 'oracle-hash', 'sealed-fixtures', 'container', 'tests'],
    });
    expect(requests[0]?.mode).toBe('baseline');
    expect(requests[0]?.diff).toBeUndefined();
    expect(report.diffSha256).toBeUndefined();
    expect(report.notes[0]).toBe('baseline mode: no diff, so there is no path-policy stage');
    expect(report.proposals).toEqual({
      testsLock: join(dir, 'logs', PROPOSED_TESTS_LOCK),
      flakeLedger: join(dir, 'logs', PROPOSED_FLAKE_LEDGER),
    });
    expect(readFileSync(report.proposals!.testsLock, 'utf8')).toBe(
      readFileSync(join(dir, 'oracle', 'tests.lock'), 'utf8'),
    );
    const ledger = parseFlakeLedger(readFileSync(report.proposals!.flakeLedger, 'utf8'));
    expect(ledger.ok && [...ledger.value.tests].map(([id, e]) => [id, e.history])).toEqual(
      [[EXISTING_IDS[0], 'P'], ...LOCKED_IDS.map((id, i) => [id, i === 0 ? 'P' : 'F'])].sort((a, b) =>
        Buffer.compare(Buffer.from(a[0]!), Buffer.from(b[0]!)),
      ),
    );
    expect(report.notes.at(-1)).toMatch(/^baseline proposals for review: /);
    expect(readFileSync(report.logPath!, 'utf8')).toContain('== baseline proposals');
  });

  it('reports a quarantined task from the container layer', async () => {
    const quarantined = {
      kind: 'custom' as const,
      subkind: 'quarantined',
      message: 'baseline run: the hidden tests already pass at the base commit, so they cannot tell a fix',
    };
    const { report } = await gate({
      mode: 'baseline',
      container: (r) => fakeRun(r, { testReasons: [quarantined], quarantined: true }),
    });
    expect(reasons(report)).toEqual([quarantined]);
    expect(report.quarantined).toBe(true);
    expect(report.proposals).toBeDefined();
  });
});

describe('the oracle log', () => {
  it('turns a Pass into a Fail when the log cannot be written', async () => {
    const { report } = await gate({ logPath: '/dev/null/oracle.log' });
    expect(report.verdict.kind).toBe('fail');
    expect(reasons(report)[0]?.subkind).toBe('log-unwritable');
    expect(report.attested).toBe(false);
  });
});
