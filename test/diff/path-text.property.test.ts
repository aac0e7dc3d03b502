import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unquoteC } from '../../src/diff/c-quote.js';
import { bytesToPathText, DiffPath, pathTextToBytes } from '../../src/diff/path-text.js';
import { displayPathBytes } from '../../src/oracle-dir/display-path.js';

/** Byte strings biased toward UTF-8 edge cases: valid sequences, truncated ones, surrogates, overlongs. */
const pathBytes = fc
  .array(
    fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 4 }),
      fc.string({ unit: 'grapheme', maxLength: 3 }).map((s) => Buffer.from(s)),
      fc
        .constantFrom(
          [0xed, 0xa0, 0x80],
          [0xed, 0xb2, 0x80],
          [0xf0, 0x90, 0x82, 0x80],
          [0xf0, 0x9f, 0x98],
          [0xc0, 0xaf],
          [0xf4, 0x90, 0x80, 0x80],
          [0x22],
          [0x5c],
        )
        .map((b) => Uint8Array.from(b)),
    ),
    { maxLength: 8 },
  )
  .map((parts) => Buffer.concat(parts));

describe('path text: bytes <-> lossless text <-> display', () => {
  it('text round-trips to the same bytes (so two different names never share a text)', () => {
    fc.assert(
      fc.property(pathBytes, (bytes) => {
        expect(pathTextToBytes(bytesToPathText(bytes))).toEqual(bytes);
      }),
      { numRuns: 2000 },
    );
  });

  it('valid UTF-8 reads as itself; only bytes that are not UTF-8 become U+DC80..U+DCFF', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 12 }), (s) => {
        expect(bytesToPathText(Buffer.from(s))).toBe(s);
      }),
    );
    expect(bytesToPathText(Buffer.from([0x61, 0xff, 0xed, 0xa0, 0x80]))).toBe('a\udcff\udced\udca0\udc80');
  });

  it('the display form has no control character, and gives back the bytes', () => {
    fc.assert(
      fc.property(pathBytes, (bytes) => {
        const display = DiffPath.fromBytes(bytes).display;
        // eslint-disable-next-line no-control-regex
        expect(display).not.toMatch(/[\u0000-\u001f\u007f]/);
        expect(displayPathBytes(display)).toEqual(bytes);
      }),
      { numRuns: 2000 },
    );
  });

  it('unquoteC reads back what git would quote', () => {
    fc.assert(
      fc.property(pathBytes, (bytes) => {
        const quoted = '"' + [...bytes].map((b) => '\\' + b.toString(8).padStart(3, '0')).join('') + '" rest';
        const buf = Buffer.from(quoted, 'latin1');
        const result = unquoteC(buf, 0, buf.length);
        expect(result.bytes).toEqual(bytes);
        expect(buf.toString('latin1', result.next)).toBe(' rest');
      }),
    );
  });
});
