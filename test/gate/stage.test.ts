import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StageTiming } from '../../src/gate/report.js';
import { GATE_ID, gateStages, STAGE } from '../../src/gate/run-gate.js';
import {
  GateStage,
  INTERNAL_ERROR_SUBKIND,
  StageFailure,
  type StageContext,
  type StageOutcome,
} from '../../src/gate/stage.js';
import { Composite } from '../../src/verdict/oracle.js';
import type { FailReason } from '../../src/verdict/schema.js';

/** A run context with a clock that advances by the given steps, one per reading. */
function context(clockSteps: number[] = []): StageContext & { lines: string[]; calls: string[] } {
  let time = 1000;
  let reading = 0;
  const lines: string[] = [];
  return {
    stages: [] as StageTiming[],
    lines,
    calls: [],
    progress: (line) => lines.push(line),
    now: () => {
      const current = time;
      time += clockSteps[reading++] ?? 0;
      return current;
    },
  };
}

type Ctx = ReturnType<typeof context>;

function stage(id: string, outcome: StageOutcome | (() => never)): GateStage<Ctx> {
  return new GateStage<Ctx>(id, async (ctx) => {
    ctx.calls.push(id);
    return typeof outcome === 'function' ? outcome() : outcome;
  });
}

const reason = (subkind: string, message = `${subkind} happened`): FailReason => ({
  kind: 'custom',
  subkind,
  message,
});

describe('a gate stage', () => {
  it('passes with its own id in the chain, and records its timing and progress', async () => {
    const ctx = context([42]);
    const verdict = await stage('config', { reasons: [] }).check(ctx);
    expect(verdict).toEqual({ kind: 'pass', chain: ['config'] });
    expect(ctx.stages).toEqual([{ id: 'config', ms: 42, outcome: 'pass', attested: true }]);
    expect(ctx.lines).toEqual(['stage config', 'stage config: pass in 42 ms']);
  });

  it('records a pass that checked nothing as not attested', async () => {
    const ctx = context([3]);
    await stage('sealed-fixtures', { reasons: [], attested: false }).check(ctx);
    expect(ctx.stages).toEqual([{ id: 'sealed-fixtures', ms: 3, outcome: 'pass', attested: false }]);
    expect(ctx.lines[1]).toBe('stage sealed-fixtures: pass in 3 ms (nothing to check)');
  });

  it('fails with every reason its body returns, in order', async () => {
    const ctx = context([7]);
    const reasons = [reason('tests-changed'), reason('freeze-budget-exceeded')];
    const verdict = await stage('tests', { reasons }).check(ctx);
    expect(verdict).toEqual({ kind: 'fail', reasons });
    expect(ctx.stages).toEqual([{ id: 'tests', ms: 7, outcome: 'fail', attested: true }]);
    expect(ctx.lines[1]).toBe('stage tests: fail in 7 ms: tests-changed: tests-changed happened (+1 more)');
  });

  it('turns a StageFailure into a Fail with its subkind and message', async () => {
    const ctx = context([5]);
    const verdict = await stage('oracle-hash', () => {
      throw new StageFailure('oracle-hash-mismatch', 'h1:a is not h1:b');
    }).check(ctx);
    expect(verdict).toEqual({ kind: 'fail', reasons: [reason('oracle-hash-mismatch', 'h1:a is not h1:b')] });
    expect(ctx.stages[0]).toMatchObject({ id: 'oracle-hash', ms: 5, outcome: 'fail', attested: false });
  });

  it('turns an unexpected error into an internal-error Fail naming the stage, on one line', async () => {
    const ctx = context();
    const verdict = await stage('container', () => {
      throw new Error('spawn docker\nENOENT');
    }).check(ctx);
    expect(verdict).toEqual({
      kind: 'fail',
      reasons: [
        reason(
          INTERNAL_ERROR_SUBKIND,
          'the container stage stopped on an unexpected error: spawn docker ENOENT',
        ),
      ],
    });
  });

  it('fails with a reason when its body throws a value that cannot be turned into text (found by the property below)', async () => {
    const ctx = context();
    const verdict = await new GateStage<Ctx>('x', async () => {
      throw { toString: '' };
    }).check(ctx);
    expect(verdict).toEqual({
      kind: 'fail',
      reasons: [
        {
          kind: 'custom',
          subkind: 'internal-error',
          message: 'the x stage stopped on an unexpected error: (a value that cannot be shown as text)',
        },
      ],
    });
  });

  it('never passes when its body throws, whatever it throws', async () => {
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (thrown) => {
        const ctx = context();
        const verdict = await new GateStage<Ctx>('x', async () => {
          throw thrown;
        }).check(ctx);
        expect(verdict.kind).toBe('fail');
        expect(ctx.stages).toHaveLength(1);
        expect(ctx.stages[0]?.outcome).toBe('fail');
      }),
    );
  });
});

describe('stages composed as the gate', () => {
  it('chains the gate id and every stage id, in registration order, when all pass', async () => {
    const ctx = context([1, 1, 1, 1, 1, 1]);
    const gate = new Composite<Ctx>(GATE_ID)
      .register(stage('a', { reasons: [] }))
      .register(stage('b', { reasons: [] }))
      .register(stage('c', { reasons: [] }));
    expect(await gate.check(ctx)).toEqual({ kind: 'pass', chain: [GATE_ID, 'a', 'b', 'c'] });
    expect(ctx.stages.map((s) => s.id)).toEqual(['a', 'b', 'c']);
  });

  it('stops at the first Fail: later stages neither run nor get a timing', async () => {
    const ctx = context();
    const gate = new Composite<Ctx>(GATE_ID)
      .register(stage('a', { reasons: [] }))
      .register(stage('b', { reasons: [reason('denied-path')] }))
      .register(stage('c', { reasons: [] }));
    expect(await gate.check(ctx)).toEqual({ kind: 'fail', reasons: [reason('denied-path')] });
    expect(ctx.calls).toEqual(['a', 'b']);
    expect(ctx.stages.map((s) => [s.id, s.outcome])).toEqual([
      ['a', 'pass'],
      ['b', 'fail'],
    ]);
    expect(ctx.lines.some((l) => l.startsWith('stage c'))).toBe(false);
  });

  it('stops at a stage that throws, as at any Fail', async () => {
    const ctx = context();
    const gate = new Composite<Ctx>(GATE_ID)
      .register(
        stage('a', () => {
          throw new TypeError('undefined is not a function');
        }),
      )
      .register(stage('b', { reasons: [] }));
    const verdict = await gate.check(ctx);
    expect(verdict.kind === 'fail' && verdict.reasons[0]?.subkind).toBe(INTERNAL_ERROR_SUBKIND);
    expect(ctx.calls).toEqual(['a']);
  });
});

describe("the gate's stage lists", () => {
  it('grade mode runs the six stages of DESIGN.md in order', () => {
    expect(gateStages('grade').map((s) => s.id)).toEqual([
      STAGE.config,
      STAGE.oracleHash,
      STAGE.pathPolicy,
      STAGE.sealedFixtures,
      STAGE.container,
      STAGE.tests,
    ]);
    expect(Object.values(STAGE)).toEqual([
      'config',
      'oracle-hash',
      'path-policy',
      'sealed-fixtures',
      'container',
      'tests',
    ]);
  });

  it('baseline mode has no diff, so no path-policy stage', () => {
    expect(gateStages('baseline').map((s) => s.id)).toEqual([
      'config',
      'oracle-hash',
      'sealed-fixtures',
      'container',
      'tests',
    ]);
  });
});
