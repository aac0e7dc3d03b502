import { describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/gate/report.js';
import { utf8Length } from '../../src/report/cap-text.js';
import { lineRange, renderSummary } from '../../src/report/summary-markdown.js';
import { conclusionOf, verdictTitle } from '../../src/report/verdict-title.js';
import { emptyReport } from './helpers/hostile.js';
import { markdownViolations } from './helpers/markdown-safety.js';

const H = 'a'.repeat(64);

function passReport(overrides: Partial<GateReport> = {}): GateReport {
  return emptyReport({
    verdict: { kind: 'pass', chain: ['oracle-gate', 'config', 'oracle-hash', 'path-policy', 'tests'] },
    attested: true,
    testsHash: H,
    oracleHash: 'h1:' + 'A'.repeat(43) + '=',
    imageDigest: `registry.example/app@sha256:${H}`,
    diffSha256: 'b'.repeat(64),
    tests: [
      { id: 'tests.test_a::test_one', suite: 'existing', status: 'passed' },
      { id: 'oracle_tests/test_h.py::test_two', suite: 'hidden', status: 'passed' },
    ],
    stages: [
      { id: 'config', ms: 3, outcome: 'pass' },
      { id: 'container', ms: 12_345, outcome: 'pass' },
    ],
    ...overrides,
  });
}

describe('the verdict title and conclusion', () => {
  it('a Fail names its first reason and counts the others', () => {
    const report = emptyReport({
      verdict: {
        kind: 'fail',
        reasons: [
          { kind: 'custom', subkind: 'denied-path', message: 'the patch touches .github/workflows/ci.yml' },
          { kind: 'custom', subkind: 'x', message: 'y' },
        ],
      },
    });
    expect(verdictTitle(report)).toBe(
      'Fail: denied-path: the patch touches .github/workflows/ci.yml (+1 more)',
    );
    expect(conclusionOf(report)).toBe('failure');
  });

  it('an attested Pass concludes success and shows its chain', () => {
    expect(conclusionOf(passReport())).toBe('success');
    expect(verdictTitle(passReport())).toBe('Pass: oracle-gate > config > oracle-hash > path-policy > tests');
  });

  it('an unattested Pass is reported but concludes failure', () => {
    const report = passReport({ verdict: { kind: 'pass', chain: ['unattested-pass'] }, attested: false });
    expect(conclusionOf(report)).toBe('failure');
    expect(verdictTitle(report)).toBe('Pass (unattested, not evidence): unattested-pass');
  });

  it('a title stays one line within 255 bytes and keeps the count of further reasons', () => {
    const report = emptyReport({
      verdict: {
        kind: 'fail',
        reasons: [
          { kind: 'custom', subkind: 'tests', message: 'é\n'.repeat(50_000) },
          { kind: 'custom', subkind: 'x', message: 'y' },
        ],
      },
    });
    const title = verdictTitle(report);
    expect(utf8Length(title)).toBeLessThanOrEqual(255);
    expect(title).not.toMatch(/[\r\n]/);
    expect(title.endsWith('…[cut] (+1 more)')).toBe(true);
  });
});

describe('renderSummary', () => {
  it('shows the verdict, the chain, every hash, the counts and the stage timings', () => {
    const summary = renderSummary(passReport(), { headSha: 'c'.repeat(40), pinnedOracleHash: 'h1:pinned' });
    expect(summary).toContain('## ✅ oracle-gate: Pass');
    expect(summary).toContain('### Chain');
    expect(summary).toContain(`<code>${H}</code>`); // tests_hash
    expect(summary).toContain('<code>h1&#58;' + 'A'.repeat(43) + '&#61;</code>');
    expect(summary).toContain(`<code>registry&#46;example/app&#64;sha256&#58;${H}</code>`);
    expect(summary).toContain(`<code>${'b'.repeat(64)}</code>`);
    expect(summary).toContain('| Tests | 2 ran, 2 passed, 0 failed, 0 errors, 0 skipped |');
    expect(summary).toContain('| <code>container</code> | pass | 12.35 s |');
    expect(summary).toContain('| total |  | 12.35 s |');
    expect(markdownViolations(summary)).toEqual([]);
  });

  it('says when a Pass is unattested', () => {
    const summary = renderSummary(
      passReport({ verdict: { kind: 'pass', chain: ['unattested-pass'] }, attested: false }),
    );
    expect(summary).toContain('## ⚠️ oracle-gate: Pass (unattested)');
    expect(summary).toContain('never counted as evidence');
  });

  it('lists reasons, denied paths, failed tests and dropped hunks in tables', () => {
    const report = emptyReport({
      verdict: { kind: 'fail', reasons: [{ kind: 'custom', subkind: 'denied-path', message: 'denied' }] },
      deniedTouches: [{ path: '.github/workflows/ci.yml', change: 'modified', rule: 'deny glob .github/**' }],
      tests: [
        { id: 't::a', suite: 'hidden', status: 'failed', message: 'assert 1 == 2' },
        { id: 't::b', suite: 'existing', status: 'error', frozen: true },
        { id: 't::c', suite: 'hidden', status: 'passed' },
      ],
      droppedHunks: [
        {
          path: 'docs/x.md',
          oldStart: 3,
          oldLines: 2,
          newStart: 3,
          newLines: 0,
          reason: 'outside the allow-list',
        },
      ],
    });
    const summary = renderSummary(report);
    expect(summary).toContain('### Reasons');
    expect(summary).toContain('- <code>denied&#45;path</code>: denied');
    expect(summary).toContain('### Denied paths (1)');
    expect(summary).toContain(
      '| <code>&#46;github/workflows/ci&#46;yml</code> | <code>modified</code> | deny glob &#46;github/&#42;&#42; |',
    );
    expect(summary).toContain('### Failed tests (2)');
    expect(summary).toContain('| <code>t&#58;&#58;a</code> | hidden | failed | assert 1 &#61;&#61; 2 |');
    expect(summary).toContain(
      '| <code>t&#58;&#58;b</code> | existing | error (frozen: does not fail the gate) |  |',
    );
    expect(summary).toContain('### Dropped hunks (1)');
    expect(summary).toContain(
      '| <code>docs/x&#46;md</code> | 3–4 | none (after line 3) | outside the allow&#45;list |',
    );
    expect(markdownViolations(summary)).toEqual([]);
  });

  it('line ranges: a span, one line, a pure deletion, and the empty side of an added or deleted file', () => {
    expect(lineRange(3, 5)).toBe('3–7');
    expect(lineRange(3, 1)).toBe('3');
    expect(lineRange(3, 0)).toBe('none (after line 3)');
    expect(lineRange(0, 0)).toBe('none');
  });

  it('keeps hostile test output inert and cut: command prefixes, %0A, newlines, <script>, 100 KB', () => {
    const hostile =
      '::error::owned%0A::warning::x\n##[error]y\r\n<script>alert(1)</script>| `[a](b)` ' +
      'z'.repeat(100_000);
    const report = emptyReport({
      verdict: {
        kind: 'fail',
        reasons: [{ kind: 'custom', subkind: 'hidden-tests-failed', message: hostile }],
      },
      tests: [{ id: hostile, suite: 'hidden', status: 'failed', message: hostile, file: hostile, line: 3 }],
    });
    const summary = renderSummary(report);
    expect(markdownViolations(summary)).toEqual([]);
    expect(summary).not.toContain('<script>');
    expect(summary).toContain('&#60;script&#62;');
    expect(summary).not.toContain('z'.repeat(2_001));
    expect(utf8Length(summary)).toBeLessThan(20_000);
  });

  it('caps each table at 200 rows and says how many more the log holds', () => {
    const droppedHunks = Array.from({ length: 250 }, (_, i) => ({
      path: `src/f${i}.py`,
      oldStart: 1,
      oldLines: 1,
      newStart: 1,
      newLines: 1,
      reason: 'outside the allow-list',
    }));
    const summary = renderSummary(emptyReport({ droppedHunks }), { logPath: '/tmp/oracle.log' });
    expect(summary.match(/^\| <code>src\/f\d+/gm)).toHaveLength(200);
    expect(summary).toContain('_…and 50 more: see the oracle log <code>/tmp/oracle&#46;log</code>._');
    expect(markdownViolations(summary)).toEqual([]);
  });

  it('cuts the whole summary at a line boundary to the limit and says so', () => {
    const droppedHunks = Array.from({ length: 200 }, (_, i) => ({
      path: `p${i}/` + 'q'.repeat(290),
      oldStart: 1,
      oldLines: 1,
      newStart: 1,
      newLines: 1,
      reason: 'r'.repeat(290),
    }));
    const summary = renderSummary(emptyReport({ droppedHunks }));
    expect(utf8Length(summary)).toBeLessThanOrEqual(65_535);
    expect(summary).toContain('The summary was cut to the GitHub limit of 65535 bytes');
    expect(markdownViolations(summary)).toEqual([]);
  });
});
