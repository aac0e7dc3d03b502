import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capUtf8, utf8Length } from '../../src/report/cap-text.js';
import { safeLogLine } from '../../src/report/escape-log.js';
import { escapeMarkdownText } from '../../src/report/escape-markdown.js';
import { hostileString } from './helpers/hostile.js';
import { markdownViolations } from './helpers/markdown-safety.js';
import { parseRunnerCommand, runnerLines } from './helpers/runner-commands.js';

// Texts holding these render with U+FFFD (or a space, for tab), so two of them may coincide.
// eslint-disable-next-line no-control-regex -- the control characters are the point
const REPLACED_OR_TAB = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufffd]/u;

describe('escaping, for any text', () => {
  it('a log line is one runner line and never a command', () => {
    fc.assert(
      fc.property(hostileString, (text) => {
        const line = safeLogLine(text);
        expect(runnerLines(line + '\n')).toEqual([line]);
        expect(parseRunnerCommand(line)).toBeUndefined();
        expect(utf8Length(line)).toBeLessThanOrEqual(4_096);
      }),
      { numRuns: 2_000 },
    );
  });

  it('escaped Markdown holds no raw markup, no entity of its own and no line break, even in a table cell', () => {
    fc.assert(
      fc.property(hostileString, hostileString, (a, b) => {
        const row = `| ${escapeMarkdownText(a)} | ${escapeMarkdownText(b)} |`;
        expect(markdownViolations(`| x | y |\n| --- | --- |\n${row}\n`)).toEqual([]);
        expect(row.includes('\n')).toBe(false);
      }),
      { numRuns: 2_000 },
    );
  });

  it('escaping is injective: different texts never render the same', () => {
    fc.assert(
      fc.property(hostileString, hostileString, (a, b) => {
        const wa = a.toWellFormed().replace(/\r\n|[\r\u0085\u2028\u2029]/gu, '\n');
        const wb = b.toWellFormed().replace(/\r\n|[\r\u0085\u2028\u2029]/gu, '\n');
        fc.pre(wa !== wb && !REPLACED_OR_TAB.test(wa + wb));
        expect(escapeMarkdownText(a)).not.toBe(escapeMarkdownText(b));
      }),
      { numRuns: 1_000 },
    );
  });

  it('capUtf8 holds its bound, keeps a fitting text whole, and never splits a character', () => {
    fc.assert(
      fc.property(hostileString, fc.integer({ min: 0, max: 64 }), (text, max) => {
        const cut = capUtf8(text, max);
        expect(utf8Length(cut)).toBeLessThanOrEqual(max);
        expect(cut.isWellFormed()).toBe(true);
        if (utf8Length(text.toWellFormed()) <= max) expect(cut).toBe(text.toWellFormed());
        else if (max > utf8Length(' …[cut]'))
          expect(text.toWellFormed().startsWith(cut.slice(0, -' …[cut]'.length))).toBe(true);
      }),
      { numRuns: 2_000 },
    );
  });
});
