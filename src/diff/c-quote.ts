/**
 * git's C-style quoting of path names (quote.c), on bytes. git quotes a name in a diff header when
 * it holds a control character, `"`, `\` or (with core.quotePath, which run-git.ts forces on) any
 * byte >= 0x80, and writes those as `\t`, `\"`, `\\`, `\303` and so on inside double quotes.
 */

const ESCAPE_TO_BYTE: Record<number, number> = {
  0x61: 0x07, // \a
  0x62: 0x08, // \b
  0x74: 0x09, // \t
  0x6e: 0x0a, // \n
  0x76: 0x0b, // \v
  0x66: 0x0c, // \f
  0x72: 0x0d, // \r
  0x22: 0x22, // \"
  0x5c: 0x5c, // \\
};

export class QuoteError extends Error {}

/**
 * Reads the quoted name that starts at `start` (which must be `"`) and ends before `end`.
 * Returns its bytes and the offset just past the closing quote. Refuses what git would refuse:
 * a missing closing quote, an unknown escape, an octal escape above \377.
 */
export function unquoteC(buf: Buffer, start: number, end: number): { bytes: Buffer; next: number } {
  if (buf[start] !== 0x22) throw new QuoteError('quoted name does not start with "');
  const out = Buffer.allocUnsafe(end - start);
  let length = 0;
  let i = start + 1;
  while (i < end) {
    const c = buf[i]!;
    if (c === 0x22) return { bytes: Buffer.from(out.subarray(0, length)), next: i + 1 };
    if (c !== 0x5c) {
      out[length++] = c;
      i++;
      continue;
    }
    const e = buf[i + 1];
    if (e === undefined || i + 1 >= end) break;
    const simple = ESCAPE_TO_BYTE[e];
    if (simple !== undefined) {
      out[length++] = simple;
      i += 2;
    } else if (e >= 0x30 && e <= 0x33) {
      const d1 = buf[i + 2];
      const d2 = buf[i + 3];
      if (i + 3 >= end || d1 === undefined || d2 === undefined || !isOctal(d1) || !isOctal(d2))
        throw new QuoteError('truncated octal escape in quoted name');
      out[length++] = ((e - 0x30) << 6) | ((d1 - 0x30) << 3) | (d2 - 0x30);
      i += 4;
    } else {
      // The byte is hostile: name it printable, or by its octal value.
      const shown = e > 0x20 && e < 0x7f ? String.fromCharCode(e) : e.toString(8).padStart(3, '0');
      throw new QuoteError(`unknown escape \\${shown} in quoted name`);
    }
  }
  throw new QuoteError('quoted name has no closing quote');
}

function isOctal(c: number): boolean {
  return c >= 0x30 && c <= 0x37;
}

/** Length of the well-formed UTF-8 sequence at i (RFC 3629: no overlongs, no surrogates), or 0. */
export function utf8SequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const b = bytes[i + k];
    return b !== undefined && b >= lo && b <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
