import { fail, pass, type Verdict } from './schema.js';

/**
 * An oracle judges a candidate. `attested` says whether its Pass is evidence: AlwaysPass is not, and
 * a composite is only when at least one member is.
 */
export interface Oracle<C> {
  readonly id: string;
  readonly attested: boolean;
  check(candidate: C): Promise<Verdict>;
}

export const UNATTESTED_PASS_ID = 'unattested-pass';

export class AlwaysPass<C = unknown> implements Oracle<C> {
  readonly id = UNATTESTED_PASS_ID;
  readonly attested = false;
  async check(): Promise<Verdict> {
    return pass([this.id]);
  }
}

export class AlwaysFail<C = unknown> implements Oracle<C> {
  readonly id = 'always-fail';
  readonly attested = false;
  constructor(readonly reason: string) {}
  async check(): Promise<Verdict> {
    return fail('no-oracle', this.reason);
  }
}

/**
 * Runs members in registration order and stops at the first Fail, which becomes its verdict.
 * A Pass chain is the composite's id, then each member's chain, every id once (first place wins);
 * with no members it passes with `[id]`.
 */
export class Composite<C> implements Oracle<C> {
  private readonly members: Oracle<C>[] = [];
  constructor(readonly id: string) {}

  register(member: Oracle<C>): this {
    this.members.push(member);
    return this;
  }

  get attested(): boolean {
    return this.members.some((m) => m.attested);
  }

  async check(candidate: C): Promise<Verdict> {
    const chain = [this.id];
    for (const member of this.members) {
      const verdict = await member.check(candidate);
      if (verdict.kind === 'fail') return verdict;
      for (const id of verdict.chain) if (!chain.includes(id)) chain.push(id);
    }
    return pass(chain);
  }
}
