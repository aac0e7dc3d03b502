import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * The end-to-end tests run real containers, so the suite brings up what they need rather than
 * skipping: .ci/docker-up installs and starts the Docker engine and a registry on 127.0.0.1:5000
 * and pushes the test image, and is quick when all of that is already there.
 */
export default function setup(project: TestProject): void {
  const root = join(import.meta.dirname, '..');
  const refFile = join(root, 'node_modules', '.cache', 'oracle-gate-test-image.ref');
  execFileSync('bash', [join(root, '.ci', 'docker-up')], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, ORACLE_GATE_IMAGE_FILE: refFile },
  });
  project.provide('testImage', readFileSync(refFile, 'utf8').trim());
}

declare module 'vitest' {
  export interface ProvidedContext {
    testImage: string;
  }
}
