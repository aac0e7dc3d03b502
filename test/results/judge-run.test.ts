import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { TestStatus } from '../../src/gate/report.js';
import { judgeRun, type RunEvidence, type SuiteEvidence } from '../../src/results/judge-run.js';
import type { JUnitCase } from '../../src/results/junit-report.js';
import { testsHash } from '../../src/results/tests-hash.js';

function tc(id: string, status: TestStatus = 'passed', message?: string): JUnitCase {
  const [classname = '', name = ''] = id.split('::');
  return { id, classname, name, status, ...(message !== undefined ? { message } : {}) };
}

function suite(exitCode: number, cases: JUnitCase[], harnessSawReport = true): SuiteEvidence {
  return { exitCode, harnessSawReport, report: { kind: 'parsed', cases, files: ['junit.xml'] } };
}

const GREEN_EXISTING = suite(0, [tc('tests.t::a'), tc('tests.t::b'), tc('tests.t::skipped', 'skipped')]);
const GREEN_HIDDEN = suite(0, [tc('oracle_tests.h::x'), tc('oracle_tests.h::y')]);

function evidence(overrides: Partial<RunEvidence> = {}): RunEvidence {
  return {
    mode: 'grade',
    timedOut: false,
    timeoutSeconds: 60,
    exitCode: 0,
    oomKilled: false,
    memoryLimit: '512m',
    existing: GREEN_EXISTING,
    hidden: GREEN_HIDDEN,
    ...overrides,
  };
}

const subkinds = (e: RunEvidence, frozen?: Set<string>) => {
  const j = judgeRun(e, frozen);
  return [...j.containerReasons, ...j.testReasons].map((r) => r.subkind);
};

describe('judgeRun in grade mode', () => {
  it('passes a clean run and reports outcomes, tests_hash over the tests that ran, and the hidden IDs', () => {
    const j = judgeRun(evidence());
    expect(j.containerReasons).toEqual([]);
    expect(j.testReasons).toEqual([]);
    expect(j.exitReason).toBe('ok');
    expect(j.outcomes.map((o) => `${o.suite}:${o.id}:${o.status}`)).toEqual([
      'existing:tests.t::a:passed',
      'existing:tests.t::b:passed',
      'existing:tests.t::skipped:skipped',
      'hidden:oracle_tests.h::x:passed',
      'hidden:oracle_tests.h::y:passed',
    ]);
    expect(j.testsHash).toBe(
      testsHash(['tests.t::a', 'tests.t::b', 'oracle_tests.h::x', 'oracle_tests.h::y']),
    );
    expect(j.hiddenIds).toEqual(['oracle_tests.h::x', 'oracle_tests.h::y']);
  });

  it('fails on a failing hidden test, naming it', () => {
    const hidden = suite(1, [tc('oracle_tests.h::x'), tc('oracle_tests.h::y', 'failed', 'assert 7 == 3')]);
    const j = judgeRun(evidence({ exitCode: 12, hidden }));
    expect(j.testReasons).toEqual([
      {
        kind: 'custom',
        subkind: 'hidden-tests-failed',
        message: '1 of 2 tests in the hidden tests did not pass: oracle_tests.h::y (failed)',
      },
    ]);
    expect(j.outcomes.find((o) => o.id === 'oracle_tests.h::y')?.message).toBe('assert 7 == 3');
  });

  it('fails on a failing existing test and still judges the hidden tests', () => {
    const existing = suite(1, [tc('tests.t::a', 'error')]);
    const hidden = suite(1, [tc('oracle_tests.h::x', 'failed')]);
    expect(subkinds(evidence({ exitCode: 11, existing, hidden }))).toEqual([
      'existing-suite-failed',
      'hidden-tests-failed',
    ]);
  });

  it('fails when a suite exits 0 but its report lists a failure', () => {
    const hidden = suite(0, [tc('oracle_tests.h::x', 'failed')]);
    const j = judgeRun(evidence({ hidden }));
    expect(j.testReasons[0]?.subkind).toBe('hidden-tests-failed');
    expect(j.testReasons[0]?.message).toMatch(/exited 0 although its report lists failures/);
  });

  it('fails as forged when a suite exits non-zero but its report is all green', () => {
    const hidden = suite(1, [tc('oracle_tests.h::x'), tc('oracle_tests.h::y')]);
    expect(subkinds(evidence({ exitCode: 12, hidden }))).toEqual(['report-forged']);
  });

  it('fails as forged when the status file disagrees with the exit code', () => {
    // The harness exited 11 (existing failed) but the status file claims both suites passed.
    expect(subkinds(evidence({ exitCode: 11 }))).toEqual(['report-forged']);
    // The status file lists a suite twice.
    const twice = { ...GREEN_HIDDEN, statusProblem: 'recorded 2 times' };
    expect(subkinds(evidence({ hidden: twice }))).toEqual(['report-forged']);
  });

  it('fails when a report is missing, refused or empty', () => {
    const missing: SuiteEvidence = {
      exitCode: 0,
      harnessSawReport: false,
      report: { kind: 'missing', error: 'no *.xml' },
    };
    expect(subkinds(evidence({ exitCode: 13, hidden: missing }))).toEqual(['report-missing']);
    const invalid: SuiteEvidence = {
      exitCode: 0,
      harnessSawReport: true,
      report: { kind: 'invalid', error: 'DOCTYPE' },
    };
    expect(subkinds(evidence({ existing: invalid }))).toEqual(['report-invalid']);
    expect(subkinds(evidence({ hidden: suite(0, []) }))).toEqual(['report-missing']);
  });

  it('counts a skipped hidden test as not passed, but allows skips in the existing suite', () => {
    const hidden = suite(0, [tc('oracle_tests.h::x', 'skipped')]);
    expect(subkinds(evidence({ hidden }))).toEqual(['hidden-tests-failed']);
    expect(subkinds(evidence())).toEqual([]);
  });

  it('does not call a zero exit with only skipped hidden tests a disagreement: runners exit 0 on skips', () => {
    const hidden = suite(0, [tc('oracle_tests.h::x', 'skipped')]);
    const [only] = judgeRun(evidence({ hidden })).testReasons;
    expect(only?.message).toMatch(
      /1 of 1 tests in the hidden tests did not pass: oracle_tests\.h::x \(skipped\)$/,
    );
  });

  it('lets a frozen test fail without failing the gate, and marks it', () => {
    const hidden = suite(1, [tc('oracle_tests.h::x'), tc('oracle_tests.h::flaky', 'failed')]);
    const j = judgeRun(evidence({ exitCode: 12, hidden }), new Set(['oracle_tests.h::flaky']));
    expect(j.testReasons).toEqual([]);
    expect(j.outcomes.find((o) => o.id === 'oracle_tests.h::flaky')?.frozen).toBe(true);
    expect(j.notes.join(' ')).toMatch(/frozen/);
  });

  it('names the memory limit when the kernel killed a suite (status 137 in an OOM-killed run), not its missing report', () => {
    const killed: SuiteEvidence = {
      exitCode: 137,
      harnessSawReport: false,
      report: { kind: 'missing', error: 'no report' },
    };
    const j = judgeRun(evidence({ exitCode: 11, oomKilled: true, existing: killed }));
    expect(j.containerReasons).toEqual([
      {
        kind: 'custom',
        subkind: 'out-of-memory',
        message:
          'the oracle container ran out of memory (limit 512m): the kernel killed the existing suite (exit status 137)',
      },
    ]);
    // A suite that dies of SIGKILL in a run nobody OOM-killed is still judged by its report.
    expect(subkinds(evidence({ exitCode: 11, existing: killed }))).toEqual(['report-missing']);
  });

  it('turns the container outcome into stage-5 reasons', () => {
    expect(subkinds(evidence({ timedOut: true, exitCode: null }))).toEqual(['timeout']);
    const notApplied = judgeRun(evidence({ exitCode: 10, detail: 'apply: error: patch failed: a.py:3' }));
    expect(notApplied.containerReasons[0]?.subkind).toBe('patch-does-not-apply');
    expect(notApplied.containerReasons[0]?.message).toMatch(/patch failed: a.py:3/);
    expect(notApplied.testReasons).toEqual([]);
    expect(subkinds(evidence({ exitCode: 20 }))).toEqual(['harness-error']);
    expect(subkinds(evidence({ exitCode: 137, oomKilled: true }))).toEqual(['out-of-memory']);
    expect(subkinds(evidence({ exitCode: 137 }))).toEqual(['container-failed']);
    expect(subkinds(evidence({ exitCode: 1 }))).toEqual(['container-failed']);
    expect(subkinds(evidence({ exitCode: null }))).toEqual(['container-failed']);
    const engine = judgeRun(evidence({ exitCode: 125, detail: 'Error response from daemon: mount denied' }));
    expect(engine.containerReasons[0]?.message).toMatch(
      /code 125, which the harness never uses: Error response/,
    );
  });

  it('judges an oracle without an existing suite by its hidden tests alone', () => {
    expect(subkinds(evidence({ existing: undefined }))).toEqual([]);
    const hidden = suite(1, [tc('oracle_tests.h::x', 'failed')]);
    expect(subkinds(evidence({ existing: undefined, exitCode: 12, hidden }))).toEqual([
      'hidden-tests-failed',
    ]);
  });

  it('leaves tests_hash out when no test ran', () => {
    const none: SuiteEvidence = {
      report: { kind: 'missing', error: 'none' },
      statusProblem: 'no record of the suite',
    };
    expect(judgeRun(evidence({ exitCode: 10, existing: none, hidden: none })).testsHash).toBeUndefined();
  });
});

describe('judgeRun in baseline mode', () => {
  const failingHidden = suite(1, [tc('oracle_tests.h::x', 'failed'), tc('oracle_tests.h::y')]);

  it('accepts a task whose existing suite passes and hidden tests fail, and proposes the hidden IDs', () => {
    const j = judgeRun(evidence({ mode: 'baseline', exitCode: 12, hidden: failingHidden }));
    expect(j.quarantined).toBe(false);
    expect([...j.containerReasons, ...j.testReasons]).toEqual([]);
    expect(j.hiddenIds).toEqual(['oracle_tests.h::x', 'oracle_tests.h::y']);
    expect(j.notes.join(' ')).toMatch(/1 hidden test\(s\) already pass/);
  });

  it('quarantines a task whose hidden tests already pass at the base commit', () => {
    const j = judgeRun(evidence({ mode: 'baseline' }));
    expect(j.quarantined).toBe(true);
    expect(j.testReasons).toEqual([
      {
        kind: 'custom',
        subkind: 'quarantined',
        message: 'baseline run: the hidden tests already pass at the base commit, so they cannot tell a fix',
      },
    ]);
  });

  it('quarantines a task whose existing suite fails at the base commit', () => {
    const existing = suite(1, [tc('tests.t::a', 'failed')]);
    const j = judgeRun(evidence({ mode: 'baseline', exitCode: 11, existing, hidden: failingHidden }));
    expect(j.quarantined).toBe(true);
    expect(j.testReasons[0]?.message).toMatch(/existing suite fails at the base commit/);
  });

  it('quarantines on a timeout or a broken run, with the reason in the message', () => {
    const j = judgeRun(evidence({ mode: 'baseline', timedOut: true, exitCode: null }));
    expect(j.quarantined).toBe(true);
    expect(j.containerReasons[0]?.subkind).toBe('quarantined');
    expect(j.containerReasons[0]?.message).toMatch(/wall-clock limit/);
    const missing: SuiteEvidence = {
      exitCode: 1,
      harnessSawReport: false,
      report: { kind: 'missing', error: 'no *.xml' },
    };
    expect(judgeRun(evidence({ mode: 'baseline', exitCode: 12, hidden: missing })).quarantined).toBe(true);
  });
});

describe('judgeRun fails closed', () => {
  const status = fc.constantFrom<TestStatus>('passed', 'failed', 'error', 'skipped');
  const cases = (prefix: string) =>
    fc
      .array(fc.tuple(fc.integer({ min: 0, max: 5 }), status), { maxLength: 6 })
      .map((list) => list.map(([n, s]) => tc(`${prefix}::t${n}`, s)));
  const report = (prefix: string) =>
    fc.oneof(
      cases(prefix).map((c) => ({ kind: 'parsed' as const, cases: c, files: ['junit.xml'] })),
      fc.constant({ kind: 'missing' as const, error: 'none' }),
      fc.constant({ kind: 'invalid' as const, error: 'bad' }),
    );
  const suiteEvidence = (prefix: string) =>
    fc.record(
      {
        exitCode: fc.constantFrom(0, 1, 2, 5),
        harnessSawReport: fc.boolean(),
        statusProblem: fc.constant('tampered'),
        report: report(prefix),
      },
      { requiredKeys: ['report'] },
    );
  const anyEvidence = fc.record({
    mode: fc.constant('grade' as const),
    timedOut: fc.boolean(),
    timeoutSeconds: fc.constant(60),
    exitCode: fc.constantFrom(0, 10, 11, 12, 13, 20, 1, 137, null),
    oomKilled: fc.boolean(),
    memoryLimit: fc.constant('1g'),
    existing: fc.option(suiteEvidence('tests.t'), { nil: undefined }),
    hidden: suiteEvidence('oracle_tests.h'),
  });

  it('fails a run whose suite record holds no exit status, even with a green report (found by the property below)', () => {
    const hidden: SuiteEvidence = {
      report: { kind: 'parsed', cases: [tc('oracle_tests.h::t0')], files: ['junit.xml'] },
    };
    const j = judgeRun(evidence({ exitCode: 12, existing: undefined, hidden }));
    expect(j.testReasons.map((r) => r.subkind)).toEqual(['report-forged']);
    expect(j.testReasons[0]?.message).toMatch(/the hidden tests: no exit status recorded/);
  });

  it('passes a grade run only when the harness exited 0 and every report is present, consistent and green', () => {
    fc.assert(
      fc.property(anyEvidence, fc.subarray(['tests.t::t0', 'oracle_tests.h::t1']), (e, frozenIds) => {
        const frozen = new Set(frozenIds);
        const j = judgeRun(e, frozen);
        if (j.containerReasons.length + j.testReasons.length > 0) return;
        expect(e.timedOut).toBe(false);
        expect([0, 11, 12]).toContain(e.exitCode);
        for (const [name, s] of [
          ['existing', e.existing],
          ['hidden', e.hidden],
        ] as const) {
          if (s === undefined) continue;
          expect(s.statusProblem).toBeUndefined();
          expect(s.report.kind).toBe('parsed');
          if (s.report.kind !== 'parsed') continue;
          expect(s.report.cases.length).toBeGreaterThan(0);
          for (const c of s.report.cases) {
            if (frozen.has(c.id)) continue;
            expect(c.status === 'passed' || (name === 'existing' && c.status === 'skipped')).toBe(true);
          }
          // A non-zero exit passes only because a frozen test failed.
          if (s.exitCode !== 0)
            expect(s.report.cases.some((c) => frozen.has(c.id) && c.status !== 'passed')).toBe(true);
        }
      }),
      { numRuns: 3000 },
    );
  });
});
