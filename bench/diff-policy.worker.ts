// One measured run of the diff engine for bench/diff-policy.mjs, which bundles this file with
// esbuild and runs it in a fresh process: read the diff, then parse + policy + filter (with the
// sha256 of the filtered diff), timed; peak memory from the kernel's maxRSS. `chunks` keeps the
// filtered diff as views of the parsed one (what the gate writes to the container's mount);
// `joined` also asks for it as one Buffer (a copy, unless nothing was dropped).
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { parseGitDiff } from '../src/diff/parse-git-diff.js';
import { defaultDenyRules } from '../src/policy/default-deny-rules.js';
import { evaluatePolicy, type PathPolicy } from '../src/policy/evaluate-policy.js';

const [diffPath, variant, output] = process.argv.slice(2);
if (
  !diffPath ||
  (variant !== 'allow-all' && variant !== 'allow-half') ||
  (output !== 'chunks' && output !== 'joined')
) {
  process.stderr.write('usage: diff-policy.worker DIFF allow-all|allow-half chunks|joined\n');
  process.exit(2);
}

const policy: PathPolicy = {
  denyGlobs: [
    ...defaultDenyRules({
      hiddenTestsDest: 'oracle_tests',
      sealedPaths: Array.from({ length: 100 }, (_, i) => `fixtures/sealed-${i}.json`),
    }),
    '**/conftest.py',
    '**/test_*.py',
    '**/__snapshots__/**',
    'package-lock.json',
  ],
  // Directories d000..d999: allowing d0*..d4* keeps half the files and drops the rest.
  allowGlobs: variant === 'allow-all' ? null : ['d0*/**', 'd1*/**', 'd2*/**', 'd3*/**', 'd4*/**'],
  allowSymlinks: false,
  allowSubmodules: false,
  allowGitattributes: false,
};

const rssBeforeKb = process.resourceUsage().maxRSS;
const diff = readFileSync(diffPath);
const start = performance.now();
const files = parseGitDiff(diff);
const parsed = performance.now();
const result = evaluatePolicy(files, policy);
const filtered = output === 'joined' ? result.filteredDiff.length : result.filteredChunks.length;
const done = performance.now();

process.stdout.write(
  JSON.stringify({
    diffBytes: diff.length,
    files: files.length,
    hunks: files.reduce((n, f) => n + f.hunks.length, 0),
    denied: result.denied.length,
    dropped: result.dropped.length,
    filteredBytes: result.filteredBytes,
    filtered,
    filteredSha256: result.filteredSha256,
    parseMs: parsed - start,
    policyMs: done - parsed,
    totalMs: done - start,
    rssBeforeKb,
    maxRssKb: process.resourceUsage().maxRSS,
  }) + '\n',
);
