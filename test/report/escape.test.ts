import { describe, expect, it } from 'vitest';
import { escapeLogText, safeLogLine } from '../../src/report/escape-log.js';
import { escapeMarkdownText, markdownCode } from '../../src/report/escape-markdown.js';
import { plainOneLine, plainText } from '../../src/report/plain-text.js';
import { parseRunnerCommand } from './helpers/runner-commands.js';

describe('escapeMarkdownText', () => {
  it('turns HTML into character references that render as the same text', () => {
    expect(escapeMarkdownText('<script>alert(1)</script>')).toBe(
      '&#60;script&#62;alert&#40;1&#41;&#60;/script&#62;',
    );
  });

  it('keeps a pipe, a backtick and a link from acting', () => {
    expect(escapeMarkdownText('a|b`c[d](e)')).toBe('a&#124;b&#96;c&#91;d&#93;&#40;e&#41;');
  });

  it('turns every kind of line break into <br>, so a text stays on its line', () => {
    expect(escapeMarkdownText('a\nb\r\nc\rd\u2028e\u0085f')).toBe('a<br>b<br>c<br>d<br>e<br>f');
  });

  it('escapes an entity the text already holds, so it shows literally', () => {
    expect(escapeMarkdownText('&amp;&#124;')).toBe('&#38;amp;&#38;&#35;124;');
  });

  it('replaces controls, bidi overrides and lone surrogates', () => {
    expect(escapeMarkdownText('a\u001b[31mb\u202ec\ud800')).toBe('a\ufffd&#91;31mb\ufffdc\ufffd');
  });

  it('keeps URLs and mentions from linking', () => {
    expect(escapeMarkdownText('https://x.example @me')).toBe('https&#58;//x&#46;example &#64;me');
  });

  it('wraps code in <code> with the same escaping', () => {
    expect(markdownCode('a|b')).toBe('<code>a&#124;b</code>');
  });
});

describe('escapeLogText and safeLogLine', () => {
  it('shows line breaks as escapes so one text is one log line', () => {
    expect(escapeLogText('a\nb\r\nc\rd')).toBe('a\\nb\\r\\nc\\rd');
    expect(escapeLogText('x\u2028y\u0085z')).toBe('x\\u2028y\\u0085z');
  });

  it('neutralises the legacy ##[ prefix anywhere in the line', () => {
    const line = safeLogLine('test output ##[error]owned');
    expect(line).toBe('test output ##\\[error]owned');
    expect(parseRunnerCommand(line)).toBeUndefined();
  });

  it('keeps a line from starting a command after whitespace', () => {
    for (const text of ['::error::owned', '   ::add-mask::x', '\t::stop-commands::t', '\u00a0::error::x']) {
      const line = safeLogLine(text);
      expect(parseRunnerCommand(line), JSON.stringify(line)).toBeUndefined();
    }
  });

  it('turns a newline-smuggled command into inert text', () => {
    const line = safeLogLine('ok\n::error::owned\r::warning::too');
    expect(line).toBe('ok\\n::error::owned\\r::warning::too');
    expect(parseRunnerCommand(line)).toBeUndefined();
  });

  it('leaves %0A as it is: outside a command the runner decodes nothing', () => {
    expect(safeLogLine('a%0A::error::b')).toBe('a%0A::error::b');
  });

  it('cuts a 100 KB text to the log-line bound', () => {
    const line = safeLogLine('x'.repeat(100_000));
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(4_096);
    expect(line.endsWith('…[cut]')).toBe(true);
  });
});

describe('plainText', () => {
  it('normalises line breaks to LF and replaces controls', () => {
    expect(plainText('a\r\nb\rc\u2029d\u0007')).toBe('a\nb\nc\nd\ufffd');
  });

  it('makes one line for titles', () => {
    expect(plainOneLine('  a\n  b \r\n c ')).toBe('a b c');
  });
});
