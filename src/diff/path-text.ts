import { displayPath } from '../oracle-dir/display-path.js';
import { utf8SequenceLength } from './c-quote.js';

/**
 * A path from a diff, kept three ways:
 * - `bytes`: exactly what git has (paths are bytes, not text);
 * - `text`: a lossless string for matching. Valid UTF-8 decodes as usual; each byte that is not
 *   part of well-formed UTF-8 becomes the lone surrogate U+DC00+byte (Python's surrogateescape).
 *   The mapping is one-to-one, and no glob read as text contains a lone surrogate, so a literal
 *   glob never matches a non-UTF-8 name while `*`, `?` and `**` match its bytes like characters;
 * - `display`: for people and reports, the project's one convention (oracle-dir/display-path.ts):
 *   the UTF-8 text when it is valid and free of control characters and does not start with `"`,
 *   else git's quoted form with every byte outside printable ASCII in octal; displayPathBytes
 *   turns it back into the bytes.
 */
export class DiffPath {
  private displayCache: string | undefined;

  constructor(readonly text: string) {}

  static fromBytes(bytes: Uint8Array): DiffPath {
    return new DiffPath(bytesToPathText(bytes));
  }

  get bytes(): Buffer {
    return pathTextToBytes(this.text);
  }

  get display(): string {
    this.displayCache ??= PLAIN.test(this.text) ? this.text : displayPath(this.bytes);
    return this.displayCache;
  }
}

/** Printable ASCII not starting with a quote: displayPath would return it unchanged. */
const PLAIN = /^(?!")[\x20-\x7e]*$/;

export function bytesToPathText(bytes: Uint8Array, start = 0, end = bytes.length): string {
  let ascii = true;
  for (let i = start; i < end; i++) {
    if (bytes[i]! >= 0x80) {
      ascii = false;
      break;
    }
  }
  const view = Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start);
  if (ascii) return view.toString('latin1');
  let text = '';
  let i = 0;
  while (i < view.length) {
    const length = utf8SequenceLength(view, i);
    if (length === 0) {
      text += String.fromCharCode(0xdc00 + view[i]!);
      i++;
    } else {
      text += view.toString('utf8', i, i + length);
      i += length;
    }
  }
  return text;
}

const ESCAPED_BYTE = /[\udc80-\udcff]/;

export function pathTextToBytes(text: string): Buffer {
  if (!ESCAPED_BYTE.test(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let run = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xdc80 && unit <= 0xdcff && !isLowHalfOfPair(text, i)) {
      if (run) parts.push(Buffer.from(run, 'utf8'));
      run = '';
      parts.push(Buffer.of(unit - 0xdc00));
    } else {
      run += text[i];
    }
  }
  if (run) parts.push(Buffer.from(run, 'utf8'));
  return Buffer.concat(parts);
}

function isLowHalfOfPair(text: string, i: number): boolean {
  const previous = i > 0 ? text.charCodeAt(i - 1) : 0;
  return previous >= 0xd800 && previous <= 0xdbff;
}
