import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const created: string[] = [];

/** A fresh RUNNER_TEMP for one run of the action, removed by removeRunnerTemps(). */
export function newRunnerTemp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'oracle-gate-runner-'));
  created.push(dir);
  return dir;
}

/** Removes every RUNNER_TEMP this test file made (call it from afterAll). */
export function removeRunnerTemps(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}
