import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runGate } from '../../src/gate/run-gate.js';
import type { GateReport } from '../../src/gate/report.js';
import { hashOracleDir } from '../../src/oracle-dir/hash.js';
import { sampleOracle, type OracleCopy } from '../gate/helpers.js';
import { ATTACK_FAMILIES, CORPUS, expectedText, loadCorpus, type CorpusCase } from './corpus-case.js';
import { buildCorpusRepo, type CorpusRepo } from './corpus-repo.js';

/**
 * The adversarial corpus (fixtures/attacks): every attack through the whole gate, real container
 * included, must fail for its expected reason, and every honest patch must pass. One test runs
 * them all and prints the table; ATTACKS=name,name runs a subset while writing a case,
 * ATTACK_TABLE=file also writes the table there, and ATTACK_LOGS=dir keeps each case's oracle log.
 */
const ALL = loadCorpus();
const only = process.env.ATTACKS?.split(',').filter(Boolean);
const CASES = only ? ALL.filter((c) => only.includes(c.name)) : ALL;
const PARALLEL = 3;

let work: string;
let repo: CorpusRepo;
let oracle: OracleCopy;
let childProcessOracle: OracleCopy;
let inRepoHash: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'og-corpus-run-'));
  const from = join(CORPUS, 'oracle');
  oracle = await sampleOracle(join(work, 'out-of-tree'), inject('testImage'), { from });
  childProcessOracle = await sampleOracle(join(work, 'child-process'), inject('testImage'), {
    from,
    overlay: join(CORPUS, 'oracle-child-process'),
  });
  repo = await buildCorpusRepo(CASES, oracle.dir);
  inRepoHash = await hashOracleDir(repo.inRepoOracleDir);
});

afterAll(async () => {
  await repo?.remove();
  rmSync(work, { recursive: true, force: true });
});

interface Row {
  c: CorpusCase;
  got: string;
  message: string;
  ms: number;
  ok: boolean;
}

function outcome(report: GateReport): { got: string; message: string } {
  if (report.verdict.kind === 'pass')
    return { got: report.attested ? 'pass' : 'pass (unattested)', message: '' };
  const first = report.verdict.reasons[0];
  return { got: `fail ${first?.subkind ?? '?'}`, message: first?.message ?? '' };
}

function matches(c: CorpusCase, got: string, message: string): boolean {
  if (c.expect.verdict === 'pass') return got === 'pass';
  return (
    got === `fail ${c.expect.subkind}` &&
    (c.expect.message === undefined || message.includes(c.expect.message))
  );
}

async function runCase(c: CorpusCase): Promise<Row> {
  const inRepo = c.setup === 'oracle-in-repo';
  const outside = c.setup === 'child-process-oracle' ? childProcessOracle : oracle;
  const started = performance.now();
  const report = await runGate({
    repoDir: repo.dir,
    baseSha: inRepo ? repo.baseWithOracle : repo.base,
    headSha: repo.heads.get(c.name)!,
    oracleDir: inRepo ? repo.inRepoOracleDir : outside.dir,
    pinnedOracleHash: inRepo ? inRepoHash : outside.hash,
    mode: 'grade',
    logPath: join(process.env.ATTACK_LOGS ?? join(work, 'logs'), c.name, 'oracle.log'),
  });
  const { got, message } = outcome(report);
  return { c, got, message, ms: Math.round(performance.now() - started), ok: matches(c, got, message) };
}

async function runBatch(cases: readonly CorpusCase[], parallel: number): Promise<Row[]> {
  const rows: Row[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) rows.push(await runCase(cases[next++]!));
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return rows;
}

const expectsTimeout = (c: CorpusCase) => c.expect.verdict === 'fail' && c.expect.subkind === 'timeout';

/**
 * The cases that run until the wall-clock limit (fork bombs, sleepers) go last, together: a fork
 * bomb takes its CPU for the whole limit, and a case beside it could pass its own limit.
 */
async function runAll(cases: readonly CorpusCase[]): Promise<Row[]> {
  const rows = await runBatch(
    cases.filter((c) => !expectsTimeout(c)),
    PARALLEL,
  );
  const slow = cases.filter(expectsTimeout);
  rows.push(...(await runBatch(slow, Math.max(1, slow.length))));
  return rows.sort((a, b) => a.c.kind.localeCompare(b.c.kind) || a.c.name.localeCompare(b.c.name));
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ').slice(0, 160);

function table(rows: readonly Row[]): string {
  const lines = [
    '| | case | kind | family | expected | got | s | about |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.ok ? 'ok' : '**WRONG**'} | ${r.c.name} | ${r.c.kind} | ${r.c.family} | ${expectedText(r.c)} | ${cell(r.got)} | ${(r.ms / 1000).toFixed(1)} | ${cell(r.c.about)} |`,
    ),
  ];
  const wrong = rows.filter((r) => !r.ok);
  for (const r of wrong) lines.push('', `${r.c.name}: got ${r.got}: ${cell(r.message)}`);
  return lines.join('\n');
}

describe('the adversarial corpus', () => {
  it('holds at least 40 attacks covering every family, and at least 10 honest patches', () => {
    const attacks = ALL.filter((c) => c.kind === 'attack');
    expect(attacks.length).toBeGreaterThanOrEqual(40);
    expect(ALL.filter((c) => c.kind === 'honest').length).toBeGreaterThanOrEqual(10);
    expect(ATTACK_FAMILIES.filter((f) => !attacks.some((c) => c.family === f))).toEqual([]);
    expect(attacks.filter((c) => c.expect.verdict !== 'fail').map((c) => c.name)).toEqual([]);
    expect(ALL.filter((c) => c.kind === 'honest' && c.expect.verdict !== 'pass').map((c) => c.name)).toEqual(
      [],
    );
  });

  it('fails every attack for its expected reason and passes every honest patch, through the whole gate', async () => {
    const rows = await runAll(CASES);
    const text = table(rows);
    console.log(`attack corpus: ${rows.filter((r) => r.ok).length}/${rows.length} as expected\n${text}`);
    if (process.env.ATTACK_TABLE) writeFileSync(process.env.ATTACK_TABLE, `${text}\n`);
    expect(
      rows
        .filter((r) => !r.ok)
        .map((r) => `${r.c.name}: expected ${expectedText(r.c)}, got ${r.got}: ${r.message}`),
    ).toEqual([]);
  }, 1_800_000);
});
