import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as core from '@actions/core';
import { renderAnnotations } from '../../src/report/annotations.js';
import { utf8Length } from '../../src/report/cap-text.js';
import { renderLogLines } from '../../src/report/log-report.js';
import { renderSummary } from '../../src/report/summary-markdown.js';
import { verdictTitle } from '../../src/report/verdict-title.js';
import { toWorkflowAnnotations } from '../../src/report/workflow-annotations.js';
import { hostileReport, hostileString } from './helpers/hostile.js';
import { markdownViolations } from './helpers/markdown-safety.js';
import { captureStdout, parseRunnerCommand, runnerLines } from './helpers/runner-commands.js';

describe('rendering any report, however hostile its text', () => {
  it('the summary stays within its limit and holds no markup, row break or command from the report', () => {
    fc.assert(
      fc.property(hostileReport, hostileString, fc.integer({ min: 200, max: 65_535 }), (report, sha, max) => {
        const summary = renderSummary(report, { headSha: sha, pinnedOracleHash: sha, logPath: sha }, max);
        expect(utf8Length(summary)).toBeLessThanOrEqual(max);
        expect(markdownViolations(summary)).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });

  it('annotations hold GitHub limits and valid line ranges', () => {
    fc.assert(
      fc.property(hostileReport, (report) => {
        for (const a of renderAnnotations(report)) {
          expect(utf8Length(a.message)).toBeLessThanOrEqual(64_000);
          expect(utf8Length(a.title ?? '')).toBeLessThanOrEqual(255);
          expect(a.path.length).toBeGreaterThan(0);
          expect(Number.isSafeInteger(a.start_line) && a.start_line >= 1).toBe(true);
          expect(a.end_line).toBeGreaterThanOrEqual(a.start_line);
          expect(a.message.isWellFormed() && a.path.isWellFormed()).toBe(true);
        }
        const title = verdictTitle(report);
        expect(utf8Length(title)).toBeLessThanOrEqual(255);
        expect(title).not.toMatch(/[\r\n]/);
      }),
      { numRuns: 500 },
    );
  });

  it('job-log lines are single lines the runner never reads as a command', () => {
    fc.assert(
      fc.property(hostileReport, hostileString, (report, path) => {
        const output = renderLogLines(report, { logPath: path, headSha: path }).join('\n') + '\n';
        for (const line of runnerLines(output)) {
          expect(parseRunnerCommand(line)).toBeUndefined();
          expect(utf8Length(line)).toBeLessThanOrEqual(4_096);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('workflow-command annotations are exactly one command each, and round-trip their text', async () => {
    await fc.assert(
      fc.asyncProperty(hostileReport, async (report) => {
        const commands = toWorkflowAnnotations(renderAnnotations(report));
        const output = await captureStdout(() => {
          for (const c of commands) {
            const props = c.properties;
            if (c.level === 'error') core.error(c.message, props);
            else if (c.level === 'warning') core.warning(c.message, props);
            else core.notice(c.message, props);
          }
        });
        const lines = runnerLines(output);
        expect(lines).toHaveLength(commands.length);
        lines.forEach((line, i) => {
          const parsed = parseRunnerCommand(line);
          const expected = commands[i]!;
          expect(parsed?.form).toBe('v2');
          expect(parsed?.name).toBe(expected.level);
          expect(parsed?.data).toBe(expected.message);
          expect(parsed?.data).not.toContain('##[');
          const props = expected.properties;
          const want: Record<string, string> = {};
          if (props.title) want.title = props.title;
          if (props.file) want.file = props.file;
          if (props.startLine) want.line = String(props.startLine);
          if (props.endLine) want.endLine = String(props.endLine);
          expect(parsed?.properties).toEqual(want);
        });
        expect(commands.filter((c) => c.level === 'error').length).toBeLessThanOrEqual(9);
        expect(commands.filter((c) => c.level === 'warning').length).toBeLessThanOrEqual(10);
      }),
      { numRuns: 300 },
    );
  });
});
