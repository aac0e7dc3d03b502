import { describe, expect, it } from 'vitest';
import { CommitsMissingError, ensureCommits } from '../../src/github/ensure-commits.js';
import { git, makeTempRepo } from './helpers/temp-repo.js';

describe('ensureCommits', () => {
  it('does nothing when both commits are there', async () => {
    const repo = makeTempRepo();
    const lines: string[] = [];
    await ensureCommits(repo.dir, [repo.baseSha, repo.headSha], 42, (l) => lines.push(l));
    expect(lines).toEqual([]);
  });

  it('fetches a missing head from origin as objects, without checking it out or writing a ref', async () => {
    const repo = makeTempRepo({ headOnlyInOrigin: true });
    expect(() => git(repo.dir, ['cat-file', '-e', repo.headSha])).toThrow();
    const refsBefore = git(repo.dir, ['for-each-ref']);
    const lines: string[] = [];
    await ensureCommits(repo.dir, [repo.baseSha, repo.headSha], 42, (l) => lines.push(l));
    expect(git(repo.dir, ['cat-file', '-t', repo.headSha])).toBe('commit');
    expect(git(repo.dir, ['rev-parse', 'HEAD'])).toBe(repo.baseSha);
    expect(git(repo.dir, ['for-each-ref'])).toBe(refsBefore);
    expect(lines).toEqual([`fetching ${repo.headSha} from origin (as objects; nothing is checked out)`]);
  });

  it('fails with a reason when a commit is nowhere', async () => {
    const repo = makeTempRepo({ headOnlyInOrigin: true });
    const ghost = 'b'.repeat(40);
    await expect(ensureCommits(repo.dir, [repo.baseSha, ghost], undefined, () => {})).rejects.toThrow(
      new CommitsMissingError(`commit ${ghost} is not in ${repo.dir} and could not be fetched from origin`),
    );
  });

  it('fails with a reason outside a repository', async () => {
    await expect(ensureCommits('/', ['a'.repeat(40)], undefined, () => {})).rejects.toThrow(
      'is not a git repository',
    );
  });
});
