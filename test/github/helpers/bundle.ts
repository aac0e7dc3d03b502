import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from '../../helpers/fixtures.js';

let built = false;

/** Rebuilds dist/ (`npm run bundle`) once per test file, so the tests run the current source. */
export function bundleOnce(): void {
  if (built) return;
  execFileSync(process.execPath, ['scripts/bundle.mjs'], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  built = true;
}
