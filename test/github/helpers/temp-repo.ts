import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

export function git(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();
}

function commitFiles(dir: string, files: Record<string, string>, message: string): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', message]);
  return git(dir, ['rev-parse', 'HEAD']);
}

export interface TempRepo {
  dir: string;
  baseSha: string;
  headSha: string;
}

/**
 * A repository as actions/checkout leaves it for a pull_request_target run: the base branch
 * checked out, the PR head a commit on a branch. With `headOnlyInOrigin`, the head exists only in
 * a bare `origin` (a fork's head is not in the checkout) and must be fetched.
 */
export function makeTempRepo(options: { headOnlyInOrigin?: boolean } = {}): TempRepo {
  const root = mkdtempSync(join(tmpdir(), 'oracle-gate-repo-'));
  const work = join(root, 'work');
  mkdirSync(work);
  git(work, ['init', '-q', '-b', 'main']);
  const baseSha = commitFiles(
    work,
    { 'src/app.py': 'def f():\n    return 1\n', 'tests/test_app.py': 'def test_f():\n    pass\n' },
    'base',
  );
  git(work, ['checkout', '-q', '-b', 'agent/fix']);
  const headSha = commitFiles(work, { 'src/app.py': 'def f():\n    return 2\n' }, 'head');
  git(work, ['checkout', '-q', 'main']);
  if (!options.headOnlyInOrigin) return { dir: work, baseSha, headSha };
  const origin = join(root, 'origin.git');
  git(root, ['clone', '-q', '--bare', work, origin]);
  const checkout = join(root, 'checkout');
  git(root, ['clone', '-q', '--single-branch', '--branch', 'main', `file://${origin}`, checkout]);
  return { dir: checkout, baseSha, headSha };
}

/** A GitHub event payload fixture with its PR's base and head SHAs replaced. */
export function payloadWithShas(payload: unknown, baseSha: string, headSha: string): unknown {
  const copy = structuredClone(payload) as {
    pull_request?: { base: { sha: string }; head: { sha: string } };
    workflow_run?: { head_sha: string };
  };
  if (copy.pull_request) {
    copy.pull_request.base.sha = baseSha;
    copy.pull_request.head.sha = headSha;
  }
  if (copy.workflow_run) copy.workflow_run.head_sha = headSha;
  return copy;
}
