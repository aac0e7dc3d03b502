const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The lines of a human-edited text file: UTF-8 (a byte-order mark is dropped), split on `\n` with a
 * trailing `\r` removed, so a CRLF file reads like an LF one. Throws on bytes that are not UTF-8.
 */
export function textLines(bytes: Uint8Array): string[] {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new Error('not valid UTF-8');
  }
  if (text.startsWith('\uFEFF')) text = text.slice(1);
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
