import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HARNESS_EXIT, harnessExitReason, parseStatusFile } from '../../src/container/harness-protocol.js';

const HARNESS = readFileSync(new URL('../../src/container/harness.sh', import.meta.url), 'utf8');

describe('the harness protocol', () => {
  it('uses the same exit codes in harness.sh as on the host', () => {
    const inScript = Object.fromEntries(
      [...HARNESS.matchAll(/^EXIT_([A-Z]+)=([0-9]+)$/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(inScript).toEqual({
      OK: HARNESS_EXIT.ok,
      PATCH: HARNESS_EXIT.patchDoesNotApply,
      EXISTING: HARNESS_EXIT.existingSuiteFailed,
      HIDDEN: HARNESS_EXIT.hiddenTestsFailed,
      REPORT: HARNESS_EXIT.reportMissing,
      HARNESS: HARNESS_EXIT.harnessError,
    });
  });

  it('names every harness exit code and no other', () => {
    expect([0, 10, 11, 12, 13, 20].map(harnessExitReason)).toEqual([
      'ok',
      'patch-does-not-apply',
      'existing-suite-failed',
      'hidden-tests-failed',
      'report-missing',
      'harness-error',
    ]);
    for (const code of [1, 2, 125, 126, 127, 137, 143, null]) expect(harnessExitReason(code)).toBeUndefined();
  });

  it('is POSIX sh that dash accepts', async () => {
    const { execFileSync } = await import('node:child_process');
    expect(() => execFileSync('dash', ['-n', '-c', HARNESS])).not.toThrow();
  });

  it('parses status records, with detail running to the end of the line', () => {
    const text = [
      'harness protocol=1',
      'step name=apply rc=1 ms=9 detail=error: patch failed: a b.py:3 rc=0',
      'suite name=existing rc=0 ms=840 report=present',
      '',
      'garbage',
    ].join('\n');
    expect(parseStatusFile(text)).toEqual([
      { kind: 'harness', fields: { protocol: '1' } },
      {
        kind: 'step',
        fields: { name: 'apply', rc: '1', ms: '9', detail: 'error: patch failed: a b.py:3 rc=0' },
      },
      { kind: 'suite', fields: { name: 'existing', rc: '0', ms: '840', report: 'present' } },
      { kind: 'garbage', fields: {} },
    ]);
  });

  it('keeps hostile keys from reaching the prototype and caps what it reads', () => {
    const records = parseStatusFile('suite __proto__=x constructor=y\n'.repeat(500));
    expect(records).toHaveLength(200);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(records[0]?.fields.__proto__).toBe('x');
  });
});
