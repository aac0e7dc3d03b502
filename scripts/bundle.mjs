// Builds dist/index.js (the action) and dist/cli.js (the command line): single ESM files that run
// with plain `node` and no node_modules. Deterministic, so CI can compare dist/ with a fresh build.
import { build } from 'esbuild';

// Overwrites in place (no rm) so a concurrent test reading dist/ never finds it missing.
const shared = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node24',
  legalComments: 'none',
  loader: { '.sh': 'text' },
  // Some dependencies are CommonJS and call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
  logLevel: 'warning',
};
await build({ ...shared, entryPoints: ['src/index.ts'], outfile: 'dist/index.js' });
await build({ ...shared, entryPoints: ['src/cli.ts'], outfile: 'dist/cli.js' });
