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
