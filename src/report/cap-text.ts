/** Cutting text to a byte budget without splitting a character, and saying that it was cut. */

const encoder = new TextEncoder();

export function utf8Length(text: string): number {
  return encoder.encode(text).length;
}

/** The marker a cut text ends with, so a reader knows there was more. */
export const CUT_MARKER = ' …[cut]';

/**
 * `text` if it fits in `maxBytes` UTF-8 bytes, else its longest prefix that fits together with
 * `marker`, cut between code points (never inside a surrogate pair). Lone surrogates are replaced
 * first, since they have no UTF-8 form and JSON encoders disagree on them.
 */
export function capUtf8(text: string, maxBytes: number, marker: string = CUT_MARKER): string {
  const wellFormed = text.toWellFormed();
  if (utf8Length(wellFormed) <= maxBytes) return wellFormed;
  const budget = maxBytes - utf8Length(marker);
  if (budget <= 0) return truncateToBytes(marker, maxBytes);
  return truncateToBytes(wellFormed, budget) + marker;
}

/** The longest prefix of `text` (well-formed) whose UTF-8 form fits in `maxBytes`. */
function truncateToBytes(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8CharLength(char.codePointAt(0)!);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return text.slice(0, end);
}

function utf8CharLength(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/** The first `maxLines` lines of `text`, with a marker line when some were left out. */
export function firstLines(text: string, maxLines: number): string {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length <= maxLines) return text;
  return lines.slice(0, maxLines).join('\n') + `\n…[${lines.length - maxLines} more lines cut]`;
}
