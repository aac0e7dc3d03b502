import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { tempDirs } from './temp-dirs.js';

const tempDir = tempDirs('og-bundle-');

describe('the bundled harness', () => {
  it('is src/container/harness.sh, byte for byte, with the esbuild text loader that scripts/bundle.mjs sets', async () => {
    const out = join(tempDir(), 'harness.mjs');
    const entry = new URL('../../src/container/harness-script.ts', import.meta.url).pathname;
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      format: 'esm',
      loader: { '.sh': 'text' },
      write: false,
      logLevel: 'silent',
    });
    writeFileSync(out, result.outputFiles[0]?.text ?? '');
    const bundled = (await import(pathToFileURL(out).href)) as { HARNESS_SCRIPT: string };
    expect(bundled.HARNESS_SCRIPT).toBe(
      readFileSync(new URL('../../src/container/harness.sh', import.meta.url), 'utf8'),
    );
  });
});
