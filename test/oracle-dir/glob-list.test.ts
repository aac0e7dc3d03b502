import fc from 'fast-check';
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { parseGlobList } from '../../src/oracle-dir/glob-list.js';

const parse = (text: string | Uint8Array) =>
  parseGlobList(typeof text === 'string' ? Buffer.from(text) : text, 'path_deny.txt');

describe('path_deny.txt / path_allow.txt', () => {
  it('reads one glob a line, trimmed, skipping comments and blank lines, keeping line numbers', () => {
    const result = parse('# deny list\n\n  oracle/  \n**/conftest.py\n\t# indented comment\n*.lock\r\n');
    expect(result).toEqual({
      ok: true,
      value: [
        { glob: 'oracle/**', line: 3 },
        { glob: '**/conftest.py', line: 4 },
        { glob: '*.lock', line: 6 },
      ],
    });
  });

  it('an empty file, or only comments, is an empty list', () => {
    expect(parse('')).toEqual({ ok: true, value: [] });
    expect(parse('# nothing\n\n')).toEqual({ ok: true, value: [] });
  });

  it('drops a UTF-8 byte-order mark rather than making it part of the first glob', () => {
    expect(parse('\uFEFF.github/**\n')).toEqual({ ok: true, value: [{ glob: '.github/**', line: 1 }] });
  });

  it('a trailing / denies everything under the directory, at the root only', () => {
    const result = parse('vendor/\n');
    const glob = result.ok ? result.value[0]!.glob : '';
    expect(minimatch('vendor/a/b.js', glob, { dot: true })).toBe(true);
    expect(minimatch('vendor/.hidden', glob, { dot: true })).toBe(true);
    expect(minimatch('src/vendor/a.js', glob, { dot: true })).toBe(false);
  });

  it.each([
    ['a NUL', 'ok\nbad\u0000glob\n', 'path_deny.txt line 2: glob holds a control character'],
    ['an escape sequence', '\u001b[31m\n', 'path_deny.txt line 1: glob holds a control character'],
    ['an absolute glob', '/etc/**\n', 'path_deny.txt line 1: globs are relative to the repository root'],
    ['a parent segment', 'a/../b\n', "path_deny.txt line 1: '.' and '..' segments never match"],
    ['a dot segment', './src/**\n', "path_deny.txt line 1: '.' and '..' segments never match"],
    ['a negation', '\n\n!keep.txt\n', 'path_deny.txt line 3: negated globs are not supported'],
    ['a huge line', 'x'.repeat(5000), 'path_deny.txt line 1: glob longer than 4096 characters'],
  ])('refuses %s with the line number', (_what, text, error) => {
    const result = parse(text);
    expect(result.ok).toBe(false);
    expect((result.ok ? '' : result.error).startsWith(error)).toBe(true);
  });

  it('refuses bytes that are not UTF-8', () => {
    expect(parse(Uint8Array.from([0x61, 0xff, 0x0a]))).toEqual({
      ok: false,
      error: 'path_deny.txt: not valid UTF-8',
    });
  });

  it('a literal # or ! can be written escaped', () => {
    const result = parse('\\#notes.md\n\\!bang\n');
    expect(result.ok).toBe(true);
    const globs = result.ok ? result.value.map((e) => e.glob) : [];
    expect(minimatch('#notes.md', globs[0]!, { dot: true })).toBe(true);
    expect(minimatch('!bang', globs[1]!, { dot: true })).toBe(true);
  });

  it('every accepted line comes back as a glob; no line is dropped silently (property)', () => {
    const line = fc.string({ maxLength: 30 }).filter((s) => !s.includes('\n'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 20 }), (lines) => {
        const result = parse(lines.join('\n'));
        if (!result.ok) {
          expect(result.error).toMatch(/^path_deny\.txt line \d+: /);
          return;
        }
        const kept = lines
          .map((l, i) => ({ text: l.replace(/\r$/, '').trim(), line: i + 1 }))
          .filter((l) => l.text !== '' && !l.text.startsWith('#'));
        expect(result.value.map((e) => e.line)).toEqual(kept.map((l) => l.line));
      }),
    );
  });
});
