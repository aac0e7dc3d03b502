import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [
    {
      // esbuild's bundle loads `.sh` as text (scripts/bundle.mjs); give vitest the same loader.
      name: 'sh-as-text',
      enforce: 'pre',
      transform: (code, id) => (id.endsWith('.sh') ? `export default ${JSON.stringify(code)};` : undefined),
    },
  ],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
  },
});
