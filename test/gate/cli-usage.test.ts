import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSampleRepo, type SampleRepo } from '../container/sample-repo.js';
import { runCli } from '../helpers/cli.js';

/** `oracle-gate run` refuses bad usage with exit 2, one line on stderr, and no verdict. */
let repo: SampleRepo;
beforeAll(async () => {
  repo = await buildSampleRepo();
});
afterAll(() => repo.remove());

const HASH = `h1:${'A'.repeat(43)}=`;

function full(overrides: Record<string, string | null> = {}): string[] {
  const options: Record<string, string | null> = {
    repo: repo.dir,
    base: repo.base,
    head: repo.heads.honest!,
    oracle: '/nonexistent-oracle',
    'oracle-hash': HASH,
    ...overrides,
  };
  return Object.entries(options).flatMap(([k, v]) => (v === null ? [] : [`--${k}`, v]));
}

describe('oracle-gate run: bad usage', () => {
  it.each([
    ['no options at all', [], /--repo is required/],
    ['a missing --head in grade mode', 'head', /--head is required/],
    ['a missing --oracle-hash', 'oracle-hash', /--oracle-hash is required/],
  ])('exits 2 for %s', (_name, drop, message) => {
    const args = Array.isArray(drop) ? drop : full({ [drop]: null });
    const run = runCli(['run', ...args]);
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(message);
  });

  it('exits 2 for an unknown option, a positional argument, or an unknown mode', () => {
    for (const args of [
      [...full(), '--fast'],
      [...full(), 'extra'],
      [...full(), '--mode', 'lenient'],
    ]) {
      const run = runCli(['run', ...args]);
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });

  it('exits 2 when a revision is not a commit, or the repository is not one', () => {
    const notCommit = runCli(['run', ...full({ base: 'no-such-branch' })]);
    expect(notCommit.status).toBe(2);
    expect(notCommit.stderr).toBe(
      `oracle-gate run: --base: "no-such-branch" is not a commit in ${repo.dir}\n`,
    );
    const tree = runCli(['run', ...full({ head: `${repo.base}^{tree}` })]);
    expect(tree.status).toBe(2);
    const notRepo = runCli(['run', ...full({ repo: '/' })]);
    expect(notRepo.status).toBe(2);
    expect(notRepo.stdout).toBe('');
  });

  it('does not require --head in baseline mode', () => {
    // Past usage, the gate itself runs: here it fails on the missing oracle, a verdict (exit 1).
    const run = runCli(['run', ...full({ head: null }), '--mode', 'baseline']);
    expect(run.status).toBe(1);
    expect(JSON.parse(run.stdout.split('\n')[0]!)).toMatchObject({
      kind: 'fail',
      reasons: [{ subkind: 'config-invalid' }],
    });
  });

  it('prints its help with --help, exit 0', () => {
    const run = runCli(['run', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^usage: oracle-gate run --repo DIR --base REV --head REV/);
    expect(run.stdout).toContain('Exit status: 0 Pass; 1 Fail; 2 bad usage');
  });
});
