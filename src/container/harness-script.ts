import harness from './harness.sh';

/**
 * The harness's text, bundled into dist/ by esbuild's text loader so the action ships it and no
 * file from the runner's checkout is trusted for it. Vitest has no loader for `.sh`: tests that
 * import this module mock it with the file's contents (see test/container/harness-mock.ts).
 */
export const HARNESS_SCRIPT: string = harness;
