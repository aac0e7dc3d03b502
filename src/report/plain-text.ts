import { REPLACED_CHARACTERS } from './unsafe-characters.js';

/**
 * Untrusted text for fields GitHub shows as plain text (check run title, annotation message and
 * title): controls and bidi overrides become U+FFFD, and line breaks are normalised to LF (or, for
 * one-line fields, to a space). Nothing here is Markdown or a workflow command.
 */
export function plainText(text: string): string {
  return text
    .toWellFormed()
    .replace(/\r\n|[\r\u0085\u2028\u2029]/gu, '\n')
    .replace(REPLACED_CHARACTERS, '\ufffd');
}

export function plainOneLine(text: string): string {
  return plainText(text)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}
