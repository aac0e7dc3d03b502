import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { displayPath, displayPathBytes } from '../../src/oracle-dir/display-path.js';

describe('displayPath', () => {
  it('shows clean UTF-8 as itself', () => {
    expect(displayPath(Buffer.from('tests/é 名.py'))).toBe('tests/é 名.py');
  });

  it("quotes git's way what is not clean UTF-8 or starts with a quote", () => {
    expect(displayPath(Buffer.from([0x61, 0xff, 0x62]))).toBe('"a\\377b"');
    expect(displayPath(Buffer.from('a\nb\tc\u001b'))).toBe('"a\\nb\\tc\\033"');
    expect(displayPath(Buffer.from('"x"'))).toBe('"\\"x\\""');
    expect(displayPath(Buffer.from('back\\slash'))).toBe('back\\slash');
  });

  it('never holds a control character, and displayPathBytes recovers the bytes (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        const shown = displayPath(bytes);
        expect([...shown].some((c) => c < ' ' || c === '\u007f')).toBe(false);
        expect(displayPathBytes(shown).equals(Buffer.from(bytes))).toBe(true);
      }),
    );
  });

  it('displayPathBytes reads git quotePath output, octal-escaped UTF-8 included', () => {
    expect(displayPathBytes('"fx/\\303\\251.json"').toString()).toBe('fx/é.json');
    expect(displayPathBytes('plain/path').toString()).toBe('plain/path');
    expect(displayPathBytes('"not \\q quoting"').toString()).toBe('"not \\q quoting"');
  });
});
