import { describe, expect, it } from 'vitest';
import { inBatches, newSideLines, renderAnnotations } from '../../src/report/annotations.js';
import { droppedHunksJson, renderOutputs } from '../../src/report/action-outputs.js';
import { utf8Length } from '../../src/report/cap-text.js';
import { toWorkflowAnnotations } from '../../src/report/workflow-annotations.js';
import { emptyReport } from './helpers/hostile.js';

describe('renderAnnotations', () => {
  it('puts denied paths and failed tests first as failures, dropped hunks last as warnings', () => {
    const annotations = renderAnnotations(
      emptyReport({
        deniedTouches: [{ path: 'conftest.py', change: 'added', rule: 'deny glob **/conftest.py' }],
        droppedHunks: [
          {
            path: 'README.md',
            oldStart: 10,
            oldLines: 2,
            newStart: 10,
            newLines: 3,
            reason: 'outside the allow-list',
          },
        ],
        tests: [
          { id: 'oracle_tests/test_h.py::test_x', suite: 'hidden', status: 'failed', message: 'boom' },
          {
            id: 'tests.test_a::test_y',
            suite: 'existing',
            status: 'error',
            file: 'tests/test_a.py',
            line: 7,
          },
          { id: 'pkg.Cls::flaky', suite: 'hidden', status: 'failed', frozen: true },
          { id: 'x::ok', suite: 'hidden', status: 'passed' },
        ],
      }),
    );
    expect(annotations.map((a) => [a.annotation_level, a.path, a.start_line, a.end_line])).toEqual([
      ['failure', 'conftest.py', 1, 1],
      ['failure', 'oracle_tests/test_h.py', 1, 1],
      ['failure', 'tests/test_a.py', 7, 7],
      ['warning', '.', 1, 1],
      ['warning', 'README.md', 10, 12],
    ]);
    expect(annotations[0]!.message).toBe(
      'The patch may not touch this path (added): deny glob **/conftest.py. The gate failed before any test ran.',
    );
    expect(annotations[1]!.message).toBe('The hidden test oracle_tests/test_h.py::test_x failed.\n\nboom');
    expect(annotations[3]!.message).toContain('frozen by the flake ledger');
    expect(annotations[4]!.message).toBe(
      'This hunk (old lines 10–11, new lines 10–12) was dropped and did not reach the oracle: outside the allow-list.',
    );
  });

  it('places a dropped hunk on its new-side lines; a pure deletion on the line before it, or line 1', () => {
    expect(newSideLines({ newStart: 5, newLines: 1 })).toEqual({ start: 5, end: 5 });
    expect(newSideLines({ newStart: 5, newLines: 4 })).toEqual({ start: 5, end: 8 });
    expect(newSideLines({ newStart: 7, newLines: 0 })).toEqual({ start: 7, end: 7 });
    expect(newSideLines({ newStart: 0, newLines: 0 })).toEqual({ start: 1, end: 1 });
    expect(newSideLines({ newStart: -4, newLines: 2 })).toEqual({ start: 1, end: 1 });
  });

  it('cuts a 100 KB failure message to the 64 KB annotation limit', () => {
    const [annotation] = renderAnnotations(
      emptyReport({
        tests: [{ id: 'a::b', suite: 'hidden', status: 'failed', message: 'x'.repeat(100_000) }],
      }),
    );
    expect(utf8Length(annotation!.message)).toBeLessThanOrEqual(64_000);
    expect(annotation!.message.endsWith('…[cut]')).toBe(true);
  });

  it('batches 120 annotations as 50, 50, 20', () => {
    expect(
      inBatches(
        Array.from({ length: 120 }, (_, i) => i),
        50,
      ).map((b) => b.length),
    ).toEqual([50, 50, 20]);
    expect(inBatches([], 50)).toEqual([]);
  });
});

describe('toWorkflowAnnotations', () => {
  it('keeps 9 errors (one is left for the step failure) and 10 warnings, the last slot counting the rest', () => {
    const report = emptyReport({
      deniedTouches: Array.from({ length: 15 }, (_, i) => ({
        path: `d${i}`,
        change: 'added' as const,
        rule: 'r',
      })),
      droppedHunks: Array.from({ length: 120 }, (_, i) => ({
        path: `h${i}`,
        oldStart: 1,
        oldLines: 1,
        newStart: 1,
        newLines: 1,
        reason: 'r',
      })),
    });
    const commands = toWorkflowAnnotations(renderAnnotations(report));
    const errors = commands.filter((c) => c.level === 'error');
    const warnings = commands.filter((c) => c.level === 'warning');
    expect(errors).toHaveLength(9);
    expect(errors[8]!.message).toContain('7 more failures are not shown here');
    expect(warnings).toHaveLength(10);
    expect(warnings[9]!.message).toContain('111 more warnings');
    expect(errors[0]!.properties).toEqual({
      title: 'oracle-gate: denied path (added)',
      file: 'd0',
      startLine: 1,
      endLine: 1,
    });
  });

  it('leaves out the file of an annotation that has none', () => {
    const [command] = toWorkflowAnnotations(
      renderAnnotations(emptyReport({ tests: [{ id: 'Cls::t', suite: 'hidden', status: 'failed' }] })),
    );
    expect(command!.properties).toEqual({ title: 'oracle-gate: test failed: Cls::t' });
  });
});

describe('renderOutputs', () => {
  it('sets every output of the design, empty where the gate found nothing', () => {
    const outputs = renderOutputs(emptyReport(), { logPath: '/tmp/log', checkRunId: 42 });
    expect(outputs).toEqual({
      verdict: 'fail',
      'verdict-json':
        '{"kind":"fail","reasons":[{"kind":"custom","subkind":"config-invalid","message":"x"}]}',
      attested: 'false',
      'tests-hash': '',
      'oracle-hash': '',
      'diff-sha256': '',
      'dropped-hunks': '[]',
      'dropped-hunks-count': '0',
      quarantined: 'false',
      'log-path': '/tmp/log',
      'check-run-id': '42',
    });
  });

  it('serialises a verdict whose message holds a lone surrogate instead of throwing', () => {
    const outputs = renderOutputs(
      emptyReport({
        verdict: { kind: 'fail', reasons: [{ kind: 'custom', subkind: 's', message: 'a\ud800b' }] },
      }),
      {},
    );
    expect(outputs['verdict-json']).toBe(
      '{"kind":"fail","reasons":[{"kind":"custom","subkind":"s","message":"a\ufffdb"}]}',
    );
  });

  it('writes dropped hunks as JSON, whole entries only, within 256 KiB', () => {
    const hunk = {
      path: 'a',
      oldStart: 1,
      oldLines: 2,
      newStart: 3,
      newLines: 4,
      reason: 'outside the allow-list',
    };
    expect(JSON.parse(droppedHunksJson([hunk]))).toEqual([
      { path: 'a', old_start: 1, old_lines: 2, new_start: 3, new_lines: 4, reason: 'outside the allow-list' },
    ]);
    const many = Array.from({ length: 5_000 }, (_, i) => ({ ...hunk, path: 'p'.repeat(100) + i }));
    const json = droppedHunksJson(many);
    expect(utf8Length(json)).toBeLessThanOrEqual(256 * 1024);
    const parsed = JSON.parse(json) as unknown[];
    expect(parsed.length).toBeGreaterThan(1_000);
    expect(parsed.length).toBeLessThan(5_000);
  });
});
