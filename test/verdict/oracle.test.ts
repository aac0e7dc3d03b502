import { describe, expect, it } from 'vitest';
import { AlwaysFail, AlwaysPass, Composite, type Oracle } from '../../src/verdict/oracle.js';
import { fail, pass, type Verdict } from '../../src/verdict/schema.js';

class Recording implements Oracle<string> {
  calls = 0;
  constructor(
    readonly id: string,
    private readonly verdict: Verdict,
    readonly attested = true,
  ) {}
  async check(): Promise<Verdict> {
    this.calls++;
    return this.verdict;
  }
}

describe('Composite', () => {
  it('runs members in registration order and chains their ids after its own', async () => {
    const composite = new Composite<string>('gate')
      .register(new Recording('config', pass(['config'])))
      .register(new Recording('tests', pass(['tests'])));
    expect(await composite.check('c')).toEqual(pass(['gate', 'config', 'tests']));
  });

  it('stops at the first Fail and returns it unchanged', async () => {
    const later = new Recording('later', pass(['later']));
    const failing = fail('denied-path', '.github/workflows/x.yml');
    const composite = new Composite<string>('gate')
      .register(new Recording('a', pass(['a'])))
      .register(new Recording('b', failing))
      .register(later);
    expect(await composite.check('c')).toEqual(failing);
    expect(later.calls).toBe(0);
  });

  it('an empty composite passes with its own id', async () => {
    expect(await new Composite('empty').check('c')).toEqual(pass(['empty']));
  });

  it('flattens a nested composite chain, each id once', async () => {
    const inner = new Composite<string>('inner').register(new AlwaysPass());
    const outer = new Composite<string>('outer').register(inner).register(new AlwaysPass());
    expect(await outer.check('c')).toEqual(pass(['outer', 'inner', 'unattested-pass']));
  });

  it('is attested only when a member is', () => {
    expect(new Composite('x').attested).toBe(false);
    expect(new Composite('x').register(new AlwaysPass()).attested).toBe(false);
    expect(new Composite<string>('x').register(new Recording('t', pass(['t']))).attested).toBe(true);
  });
});

describe('AlwaysPass and AlwaysFail', () => {
  it('AlwaysPass passes as unattested-pass', async () => {
    expect(await new AlwaysPass().check()).toEqual({ kind: 'pass', chain: ['unattested-pass'] });
  });

  it('AlwaysFail fails with a custom no-oracle reason carrying its message', async () => {
    expect(await new AlwaysFail('why').check()).toEqual({
      kind: 'fail',
      reasons: [{ kind: 'custom', subkind: 'no-oracle', message: 'why' }],
    });
  });
});
