import { hasControlCharacter } from './control-chars.js';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * A path's bytes as a string for a message: the UTF-8 text when it is valid UTF-8 free of control
 * characters, else git's C-quoted form (`"a\377b"`), so a hostile name can neither break a line nor
 * pose as another path.
 */
export function displayPath(bytes: Uint8Array): string {
  let text: string | undefined;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = undefined;
  }
  if (text !== undefined && !hasControlCharacter(text) && !text.startsWith('"')) return text;
  let out = '"';
  for (const byte of bytes) {
    if (byte === 0x22) out += '\\"';
    else if (byte === 0x5c) out += '\\\\';
    else if (byte === 0x0a) out += '\\n';
    else if (byte === 0x09) out += '\\t';
    else if (byte < 0x20 || byte >= 0x7f) out += '\\' + byte.toString(8).padStart(3, '0');
    else out += String.fromCharCode(byte);
  }
  return out + '"';
}

const C_ESCAPES: Record<string, number> = {
  a: 7,
  b: 8,
  t: 9,
  n: 10,
  v: 11,
  f: 12,
  r: 13,
  '"': 0x22,
  '\\': 0x5c,
};

/**
 * The bytes a display path stands for: a git C-quoted path (`"a\377b"`, as displayPath or git's
 * quotePath write it) is unquoted; anything else is UTF-8. Comparing paths as bytes this way keeps
 * a quoted form from dodging a check that a plain string comparison would miss.
 */
export function displayPathBytes(display: string): Buffer {
  if (!(display.length >= 2 && display.startsWith('"') && display.endsWith('"'))) return Buffer.from(display);
  const bytes: number[] = [];
  const body = display.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c));
      continue;
    }
    const octal = /^[0-3][0-7]{2}/.exec(body.slice(i + 1, i + 4));
    if (octal) {
      bytes.push(parseInt(octal[0], 8));
      i += 3;
    } else if (body[i + 1] !== undefined && C_ESCAPES[body[i + 1]!] !== undefined) {
      bytes.push(C_ESCAPES[body[i + 1]!]!);
      i += 1;
    } else return Buffer.from(display); // not git's quoting after all
  }
  return Buffer.from(bytes);
}
