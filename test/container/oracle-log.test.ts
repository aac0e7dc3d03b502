import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderOracleLog, writeOracleLog } from '../../src/container/oracle-log.js';
import type { OracleRunResult } from '../../src/container/run-oracle-container.js';
import { tempDirs } from './temp-dirs.js';

const tempDir = tempDirs('og-log-');

const RESULT: OracleRunResult = {
  mode: 'grade',
  reasons: [
    { kind: 'custom', subkind: 'hidden-tests-failed', message: '1 of 2 tests did not pass: x::y (failed)' },
  ],
  containerReasons: [],
  testReasons: [
    { kind: 'custom', subkind: 'hidden-tests-failed', message: '1 of 2 tests did not pass: x::y (failed)' },
  ],
  exitReason: 'hidden-tests-failed',
  outcomes: [
    { id: 'tests.t::a', suite: 'existing', status: 'passed' },
    {
      id: 'x::y',
      suite: 'hidden',
      status: 'failed',
      message: 'assert 7 == 3\n::error::pwned\n\u001b[31mred',
    },
  ],
  testsHash: 'f'.repeat(64),
  hiddenIds: ['x::y'],
  quarantined: false,
  notes: ['a note'],
  imageRef: `127.0.0.1:5000/app@sha256:${'a'.repeat(64)}`,
  imageId: `sha256:${'b'.repeat(64)}`,
  imagePulled: false,
  mirrorCommit: 'c'.repeat(40),
  baseTree: 'd'.repeat(40),
  diffSha256: 'e'.repeat(64),
  diffBytes: 1234,
  containerName: 'oracle-gate-0123',
  containerExitCode: 12,
  timedOut: false,
  oomKilled: false,
  harnessStatus: [{ kind: 'suite', fields: { name: 'hidden', rc: '1', ms: '800', report: 'present' } }],
  stdout: '==== oracle-harness: hidden suite ====\n::set-output name=verdict::pass\n1 failed, 1 passed\n',
  stderr: 'oracle-harness: exit 12 (hidden-tests-failed)\n',
  dockerArgs: ['create', '--network', 'none'],
  timings: [
    { step: 'mirror', ms: 40 },
    { step: 'run', ms: 1500 },
    { step: 'harness:hidden', ms: 800 },
  ],
};

describe('the oracle log', () => {
  const log = renderOracleLog({
    result: RESULT,
    droppedHunks: [
      {
        path: 'docs/a.md',
        oldStart: 1,
        oldLines: 2,
        newStart: 1,
        newLines: 3,
        reason: 'outside the allow-list',
      },
    ],
    baseSha: '1'.repeat(40),
    headSha: '2'.repeat(40),
    oracleHash: 'h1:abc=',
    startedAt: '2026-01-01T00:00:00.000Z',
    stages: [{ id: 'path-policy', ms: 12, outcome: 'pass' }],
  });

  it('holds everything the seed lists: test output, dropped hunks, timing, exit reason, image digest, diff hash', () => {
    expect(log).toContain('exit reason: hidden-tests-failed (harness exit 12)');
    expect(log).toContain(`image: 127.0.0.1:5000/app@sha256:${'a'.repeat(64)}`);
    expect(log).toContain(`image id: sha256:${'b'.repeat(64)}`);
    expect(log).toContain(`diff sha256: ${'e'.repeat(64)}`);
    expect(log).toContain(`tests_hash: ${'f'.repeat(64)}`);
    expect(log).toContain('  -1,2 +1,3\n  | docs/a.md: outside the allow-list');
    expect(log).toContain('  stage path-policy: 12 ms (pass)');
    expect(log).toContain('  harness:hidden: 800 ms');
    expect(log).toContain('  | 1 failed, 1 passed');
    expect(log).toContain('  hidden   failed \n  | x::y');
    expect(log).toContain('== hidden test IDs observed (tests.lock proposal)\n  | x::y');
  });

  it('quotes untrusted text so no line of it starts a workflow command or carries a terminal escape', () => {
    for (const line of log.split('\n')) {
      expect(line.startsWith('::')).toBe(false);
      expect(line.includes('\u001b')).toBe(false);
    }
    expect(log).toContain('  | ::set-output name=verdict::pass');
    expect(log).toContain('\\x1b[31mred');
  });

  it('is written to the path it is given', async () => {
    const path = join(tempDir(), 'oracle.log');
    await writeOracleLog(path, { result: RESULT });
    expect(readFileSync(path, 'utf8')).toBe(renderOracleLog({ result: RESULT }));
  });
});
