import { capUtf8 } from '../report/cap-text.js';
import type { Oracle } from '../verdict/oracle.js';
import { failWith, pass, type FailReason, type Verdict } from '../verdict/schema.js';
import type { StageTiming } from './report.js';
import { thrownText } from '../errors/thrown-text.js';

/**
 * One stage of the gate as an oracle/1 Oracle over the run's shared context: it times its body,
 * records the timing, reports progress, and turns whatever the body throws into a Fail. A stage
 * can only pass by returning no reason; nothing that goes wrong inside it can become a Pass.
 */

/** What every stage needs from the run's context. */
export interface StageContext {
  /** Filled in registration order, one entry per stage that ran (passed or failed). */
  readonly stages: StageTiming[];
  progress(line: string): void;
  /** Milliseconds from an arbitrary origin (performance.now in a real run). */
  now(): number;
}

export interface StageOutcome {
  /** Empty: the stage passes. */
  reasons: FailReason[];
  /** False when the stage passed without a real check (nothing to check). Default: true. */
  attested?: boolean;
}

/** Thrown by a stage body for an expected failure with its own subkind. */
export class StageFailure extends Error {
  constructor(
    readonly subkind: string,
    message: string,
  ) {
    super(message);
  }
}

/** The subkind of a Fail that comes from an error no stage expected (a bug or an environment fault). */
export const INTERNAL_ERROR_SUBKIND = 'internal-error';

const MAX_MESSAGE = 2_000;

function oneLine(text: string): string {
  const line = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}

export function reasonFromError(stageId: string, error: unknown): FailReason {
  if (error instanceof StageFailure)
    return { kind: 'custom', subkind: error.subkind, message: error.message };
  return {
    kind: 'custom',
    subkind: INTERNAL_ERROR_SUBKIND,
    message: `the ${stageId} stage stopped on an unexpected error: ${oneLine(thrownText(error)) || '(no message)'}`,
  };
}

export type StageBody<C> = (context: C) => Promise<StageOutcome>;

export class GateStage<C extends StageContext> implements Oracle<C> {
  /** Every gate stage checks something when it runs; a trivial pass is marked in its timing. */
  readonly attested = true;

  constructor(
    readonly id: string,
    private readonly body: StageBody<C>,
  ) {}

  async check(context: C): Promise<Verdict> {
    context.progress(`stage ${this.id}`);
    const started = context.now();
    let outcome: StageOutcome;
    try {
      outcome = await this.body(context);
    } catch (error) {
      outcome = { reasons: [reasonFromError(this.id, error)], attested: false };
    }
    const ms = Math.max(0, Math.round(context.now() - started));
    const failed = outcome.reasons.length > 0;
    context.stages.push({
      id: this.id,
      ms,
      outcome: failed ? 'fail' : 'pass',
      attested: outcome.attested ?? true,
    });
    if (!failed) {
      context.progress(
        `stage ${this.id}: pass in ${ms} ms${outcome.attested === false ? ' (nothing to check)' : ''}`,
      );
      return pass([this.id]);
    }
    const first = outcome.reasons[0]!;
    const more = outcome.reasons.length > 1 ? ` (+${outcome.reasons.length - 1} more)` : '';
    context.progress(
      `stage ${this.id}: fail in ${ms} ms: ${first.subkind}: ${capUtf8(oneLine(first.message), 300)}${more}`,
    );
    return failWith(outcome.reasons);
  }
}
