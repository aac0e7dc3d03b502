import { describe, expect, it } from 'vitest';
import { DiffParseError, parseGitDiff } from '../../src/diff/parse-git-diff.js';

/** A diff from lines written as latin-1 (one char per byte), each ending in a newline. */
const diff = (...lines: string[]) => Buffer.from(lines.map((l) => l + '\n').join(''), 'latin1');
const Z = '0'.repeat(40);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);

function parseError(bytes: Buffer, limits = {}): DiffParseError {
  try {
    parseGitDiff(bytes, limits);
  } catch (e) {
    if (e instanceof DiffParseError) return e;
    throw e;
  }
  throw new Error('expected a DiffParseError');
}

describe('parseGitDiff: what each header means', () => {
  it('an empty diff has no files', () => {
    expect(parseGitDiff(Buffer.alloc(0))).toEqual([]);
  });

  it('a modification: names, modes from the index line, hunks with ranges and raw bytes', () => {
    const bytes = diff(
      'diff --git a/src/x.py b/src/x.py',
      `index ${A}..${B} 100644`,
      '--- a/src/x.py',
      '+++ b/src/x.py',
      '@@ -1,3 +1,3 @@ def f():',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '@@ -10 +10,2 @@',
      '-ten',
      '+ten',
      '+eleven',
    );
    const [f] = parseGitDiff(bytes);
    expect(f!.change).toBe('modified');
    expect(f!.oldPath!.text).toBe('src/x.py');
    expect(f!.newPath).toBe(f!.oldPath);
    expect([f!.oldMode, f!.newMode]).toEqual(['100644', '100644']);
    expect(f!.hunks.map((h) => [h.oldStart, h.oldLines, h.newStart, h.newLines])).toEqual([
      [1, 3, 1, 3],
      [10, 1, 10, 2],
    ]);
    expect(f!.hunks[1]!.raw.toString()).toBe('@@ -10 +10,2 @@\n-ten\n+ten\n+eleven\n');
    expect(f!.raw.equals(bytes)).toBe(true);
    expect(f!.binary || f!.symlink || f!.submodule).toBe(false);
  });

  it('a new file and a deleted file', () => {
    const files = parseGitDiff(
      diff(
        'diff --git a/new b/new',
        'new file mode 100755',
        `index ${Z}..${A}`,
        '--- /dev/null',
        '+++ b/new',
        '@@ -0,0 +1 @@',
        '+#!/bin/sh',
        'diff --git a/old b/old',
        'deleted file mode 100644',
        `index ${A}..${Z}`,
        '--- a/old',
        '+++ /dev/null',
        '@@ -1 +0,0 @@',
        '-gone',
      ),
    );
    expect(
      files.map((f) => [f.change, f.oldPath?.text ?? null, f.newPath?.text ?? null, f.oldMode, f.newMode]),
    ).toEqual([
      ['added', null, 'new', null, '100755'],
      ['deleted', 'old', null, '100644', null],
    ]);
  });

  it('an empty new file and a mode-only change have no hunks', () => {
    const files = parseGitDiff(
      diff(
        'diff --git a/empty b/empty',
        'new file mode 100644',
        `index ${Z}..e69de29bb2d1d6434b8b29ae775ad8c2e48c5391`,
        'diff --git a/run.sh b/run.sh',
        'old mode 100644',
        'new mode 100755',
      ),
    );
    expect(files.map((f) => [f.change, f.path.text, f.hunks.length, f.oldMode, f.newMode])).toEqual([
      ['added', 'empty', 0, null, '100644'],
      ['mode-changed', 'run.sh', 0, '100644', '100755'],
    ]);
  });

  it('a mode change with content is a modification', () => {
    const [f] = parseGitDiff(
      diff(
        'diff --git a/x b/x',
        'old mode 100644',
        'new mode 100755',
        `index ${A}..${B}`,
        '--- a/x',
        '+++ b/x',
        '@@ -1 +1 @@',
        '-a',
        '+b',
      ),
    );
    expect([f!.change, f!.oldMode, f!.newMode]).toEqual(['modified', '100644', '100755']);
  });

  it('renames and copies, with similarity, take names from their headers', () => {
    const files = parseGitDiff(
      diff(
        'diff --git a/sp ace b/copy of',
        'similarity index 100%',
        'copy from sp ace',
        'copy to copy of',
        'diff --git a/orig.txt b/moved.txt',
        'similarity index 94%',
        'rename from orig.txt',
        'rename to moved.txt',
        `index ${A}..${B} 100644`,
        '--- a/orig.txt',
        '+++ b/moved.txt',
        '@@ -18,3 +18,4 @@',
        ' 18',
        ' 19',
        ' 20',
        '+21',
      ),
    );
    expect(files.map((f) => [f.change, f.oldPath!.text, f.newPath!.text, f.similarity, f.newMode])).toEqual([
      ['copied', 'sp ace', 'copy of', 100, null],
      ['renamed', 'orig.txt', 'moved.txt', 94, '100644'],
    ]);
  });

  it('symlinks and submodules by their modes', () => {
    const files = parseGitDiff(
      diff(
        'diff --git a/link b/link',
        'new file mode 120000',
        `index ${Z}..${A}`,
        '--- /dev/null',
        '+++ b/link',
        '@@ -0,0 +1 @@',
        '+/etc/passwd',
        '\\ No newline at end of file',
        'diff --git a/sub b/sub',
        `index ${A}..${B} 160000`,
        '--- a/sub',
        '+++ b/sub',
        '@@ -1 +1 @@',
        `-Subproject commit ${A}`,
        `+Subproject commit ${B}`,
      ),
    );
    expect(files.map((f) => [f.symlink, f.submodule])).toEqual([
      [true, false],
      [false, true],
    ]);
    expect(files[0]!.hunks[0]!.raw.toString()).toContain('\\ No newline at end of file\n');
  });

  it('binary patches (both blocks) and "Binary files differ"', () => {
    const files = parseGitDiff(
      diff(
        'diff --git a/bin.dat b/bin.dat',
        'new file mode 100644',
        `index ${Z}..${A}`,
        'GIT binary patch',
        'literal 5',
        'McmZQzOv=my00M6TI{*Lx',
        '',
        'literal 0',
        'HcmV?d00001',
        '',
        'diff --git a/img.png b/img.png',
        `index ${A}..${B} 100644`,
        'Binary files a/img.png and b/img.png differ',
      ),
    );
    expect(files.map((f) => [f.change, f.binary, f.hunks.length])).toEqual([
      ['added', true, 0],
      ['modified', true, 0],
    ]);
  });

  it('quoted names with every escape decode to their bytes; the display is the quoted form', () => {
    const [f] = parseGitDiff(
      diff(
        'diff --git "a/t\\ta\\nb\\"q\\\\s\\303\\274\\377" "b/t\\ta\\nb\\"q\\\\s\\303\\274\\377"',
        'new file mode 100644',
        `index ${Z}..${A}`,
        '--- /dev/null',
        '+++ "b/t\\ta\\nb\\"q\\\\s\\303\\274\\377"\t',
        '@@ -0,0 +1 @@',
        '+x',
      ),
    );
    expect(f!.newPath!.bytes).toEqual(Buffer.from([...Buffer.from('t\ta\nb"q\\s'), 0xc3, 0xbc, 0xff]));
    expect(f!.newPath!.text).toBe('t\ta\nb"q\\sü\udcff');
    expect(f!.newPath!.display).toBe('"t\\ta\\nb\\"q\\\\s\\303\\274\\377"');
  });

  it('unquoted names with spaces, " b/" inside, leading dashes and trailing spaces (tab-terminated)', () => {
    const files = parseGitDiff(
      diff(
        'diff --git a/x b/y b/x b/y',
        `index ${A}..${B} 100644`,
        '--- a/x b/y\t',
        '+++ b/x b/y\t',
        '@@ -1 +1 @@',
        '-a',
        '+b',
        'diff --git a/-rf  b/-rf ',
        `index ${A}..${B} 100644`,
        '--- a/-rf \t',
        '+++ b/-rf \t',
        '@@ -1 +1 @@',
        '-a',
        '+b',
        'diff --git a/x y b/x y',
        'old mode 100644',
        'new mode 100755',
      ),
    );
    expect(files.map((f) => f.path.text)).toEqual(['x b/y', '-rf ', 'x y']);
  });

  it('one quoted and one unquoted name on the diff --git line', () => {
    const [f] = parseGitDiff(diff('diff --git a/plain "b/plain"', 'old mode 100644', 'new mode 100755'));
    expect(f!.path.text).toBe('plain');
  });

  it('content lines that look like headers are content', () => {
    const [f, g] = parseGitDiff(
      diff(
        'diff --git a/x b/x',
        `index ${A}..${B} 100644`,
        '--- a/x',
        '+++ b/x',
        '@@ -1,5 +1,5 @@',
        '--- a/evil',
        '-+++ b/evil',
        '+diff --git a/.github/x b/.github/x',
        '+@@ -1 +1 @@',
        ' index 0..1',
        ' ',
        '',
        'diff --git a/y b/y',
        'old mode 100644',
        'new mode 100755',
      ),
    );
    expect(f!.hunks).toHaveLength(1);
    expect(f!.hunks[0]!.raw.toString()).toContain('+diff --git a/.github/x');
    expect(g!.path.text).toBe('y');
  });

  it('keeps non-UTF-8 content bytes exactly', () => {
    const bytes = diff(
      'diff --git a/x b/x',
      `index ${A}..${B} 100644`,
      '--- a/x',
      '+++ b/x',
      '@@ -1 +1 @@',
      '-caf\xe9\r',
      '+\xff\xfe\x00',
    );
    expect(parseGitDiff(bytes)[0]!.raw.equals(bytes)).toBe(true);
  });
});

describe('parseGitDiff: refusing what it cannot be sure of', () => {
  const section = (...extra: string[]) => [
    'diff --git a/x b/x',
    `index ${A}..${B} 100644`,
    '--- a/x',
    '+++ b/x',
    ...extra,
  ];

  it.each([
    ['a truncated hunk', diff(...section('@@ -1,2 +1,2 @@', ' a')), /ends inside a hunk/],
    ['a hunk longer than its header', diff(...section('@@ -1,0 +1 @@', ' a')), /more lines than its header/],
    [
      'a line after the last counted line',
      diff(...section('@@ -1 +1 @@', ' a', ' b')),
      /expected a "diff --git"/,
    ],
    [
      'a line that is not part of any hunk',
      diff(...section('@@ -1 +1 @@', ' a', 'junk')),
      /expected a "diff --git" line/,
    ],
    ['a hunk header that is malformed', diff(...section('@@ -1,x +1 @@', ' a')), /malformed hunk header/],
    ['a hunk range past 2^31', diff(...section('@@ -99999999999 +1 @@', ' a')), /malformed hunk header/],
    ['no hunk after +++', diff(...section()), /expected a hunk/],
    [
      'a hunk without ---/+++',
      diff('diff --git a/x b/x', `index ${A}..${B} 100644`, '@@ -1 +1 @@', ' a'),
      /without "---"/,
    ],
    ['text before the first section', diff('hello', 'diff --git a/x b/x'), /expected a "diff --git" line/],
    ['a combined diff', diff('diff --cc x', `index ${A},${A}..${B}`), /combined/],
    ['an unknown header line', diff('diff --git a/x b/x', 'evil header'), /unknown line in the header/],
    [
      'an unknown mode',
      diff('diff --git a/x b/x', 'old mode 100664', 'new mode 100755'),
      /unknown file mode/,
    ],
    ['a header given twice', diff('diff --git a/x b/x', 'old mode 100644', 'old mode 100644'), /given twice/],
    ['old mode without new mode', diff('diff --git a/x b/x', 'old mode 100644'), /without "new mode"/],
    [
      'a section that changes nothing',
      diff('diff --git a/x b/x', `index ${A}..${B} 100644`),
      /changes nothing/,
    ],
    [
      'a missing a/ prefix',
      diff('diff --git x x', 'old mode 100644', 'new mode 100755'),
      /cannot tell the file name/,
    ],
    [
      'a missing b/ prefix on +++',
      diff('diff --git a/x b/x', `index ${A}..${B} 100644`, '--- a/x', '+++ x', '@@ -1 +1 @@', ' a'),
      /to start with b\//,
    ],
    [
      '--- and diff --git naming different files',
      diff(
        'diff --git a/x b/x',
        `index ${A}..${B} 100644`,
        '--- a/.github/x',
        '+++ b/.github/x',
        '@@ -1 +1 @@',
        ' a',
      ),
      /file name differs/,
    ],
    [
      'rename headers that disagree with ---',
      diff(
        'diff --git a/p b/q',
        'rename from p',
        'rename to q',
        '--- a/other',
        '+++ b/q',
        '@@ -1 +1 @@',
        ' a',
      ),
      /old file name differs/,
    ],
    ['rename from without rename to', diff('diff --git a/p b/q', 'rename from p'), /without "rename to"/],
    [
      '--- /dev/null for a file that is not new',
      diff('diff --git a/x b/x', `index ${A}..${B}`, '--- /dev/null', '+++ b/x', '@@ -0,0 +1 @@', '+a'),
      /not new/,
    ],
    [
      'a new and deleted file',
      diff('diff --git a/x b/x', 'new file mode 100644', 'deleted file mode 100644'),
      /at most one/,
    ],
    [
      'an unknown escape in a quoted name',
      diff('diff --git "a/\\q" "b/\\q"', 'old mode 100644', 'new mode 100755'),
      /unknown escape/,
    ],
    [
      'an unterminated quoted name',
      diff('diff --git "a/x b/x', 'old mode 100644', 'new mode 100755'),
      /no closing quote/,
    ],
    [
      'text after a quoted name',
      diff('diff --git "a/x" "b/x" z', 'old mode 100644', 'new mode 100755'),
      /text after/,
    ],
    [
      'text after the name on ---',
      diff(
        'diff --git a/x b/x',
        `index ${A}..${B} 100644`,
        '--- a/x\t2020-01-01',
        '+++ b/x',
        '@@ -1 +1 @@',
        ' a',
      ),
      /unexpected text after the name/,
    ],
    [
      'a malformed index line',
      diff('diff --git a/x b/x', 'index zz..yy', 'old mode 100644', 'new mode 100755'),
      /malformed "index"/,
    ],
    [
      'a malformed binary patch line',
      diff('diff --git a/x b/x', `index ${A}..${B} 100644`, 'GIT binary patch', 'literal 5', 'Mshort', ''),
      /malformed binary patch/,
    ],
    [
      'a binary patch without a block',
      diff('diff --git a/x b/x', `index ${A}..${B} 100644`, 'GIT binary patch', 'nonsense'),
      /expected "literal" or "delta"/,
    ],
    [
      'a "\\ No newline" marker opening a hunk',
      diff(...section('@@ -1 +1 @@', '\\ No newline at end of file', ' a')),
      /unexpected line inside a hunk/,
    ],
  ])('%s', (_name, bytes, message) => {
    expect(parseError(bytes).message).toMatch(message);
  });

  it('a control byte in an unquoted name (git quotes those; git apply would end the name at a CR)', () => {
    const e = parseError(Buffer.from('diff --git a/x\r b/x\r\n--- a/x\r\n+++ b/x\r\n@@ -1 +1 @@\n-a\n+b\n'));
    expect(e.message).toBe(
      'cannot parse the diff at line 1: an unquoted name holds a control character (git quotes those)',
    );
  });

  it('a binary patch with no block, or a block with no data (git apply would stop there and exit 0)', () => {
    const binary = (...lines: string[]) =>
      diff('diff --git a/y b/y', `index ${A}..${B} 100644`, 'GIT binary patch', ...lines);
    expect(parseError(binary()).message).toMatch(/expected "literal" or "delta"/);
    expect(parseError(binary('literal 6', '', 'literal 0', 'HcmV?d00001', '')).message).toMatch(
      /binary patch block holds no data/,
    );
  });

  it('an unknown escape in a quoted name is named without its raw byte', () => {
    expect(parseError(Buffer.from('diff --git "a/\\\r" b/x\n', 'latin1')).message).toBe(
      'cannot parse the diff at line 1: unknown escape \\015 in quoted name',
    );
  });

  it('a diff that does not end with a newline', () => {
    const e = parseError(Buffer.from('diff --git a/x b/x\nold mode 100644\nnew mode 100755'));
    expect(e.message).toMatch(/does not end with a newline/);
    expect(e.line).toBe(3);
  });

  it('names the line where it stopped', () => {
    expect(parseError(diff(...section('@@ -1 +1 @@', ' a', ' b'))).line).toBe(7);
  });

  it('caps the number of files', () => {
    const one = ['diff --git a/x b/x', 'old mode 100644', 'new mode 100755'];
    expect(parseError(diff(...one, ...one, ...one), { maxFiles: 2 }).message).toMatch(/more than 2 files/);
  });

  it('caps extended header lines per file (each header may appear once, so the default is never reached)', () => {
    const bytes = diff('diff --git a/x b/x', 'old mode 100644', 'new mode 100755', 'similarity index 1%');
    expect(parseError(bytes, { maxHeaderLines: 2 }).message).toMatch(/more than 2 extended header lines/);
    expect(parseError(diff('diff --git a/x b/x', ...Array(20).fill('similarity index 1%'))).message).toMatch(
      /given twice/,
    );
  });

  it('caps the length of a header line, and reads a long content line', () => {
    const long = 'x'.repeat(70_000);
    expect(parseError(diff(`diff --git a/${long} b/${long}`)).message).toMatch(/longer than 65536 bytes/);
    const [f] = parseGitDiff(diff(...section('@@ -1 +1 @@', '-a', '+' + 'y'.repeat(1_000_000))));
    expect(f!.hunks[0]!.raw.length).toBeGreaterThan(1_000_000);
  });
});
