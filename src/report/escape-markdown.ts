import { REPLACED_CHARACTERS } from './unsafe-characters.js';

/**
 * Untrusted text into GitHub-flavoured Markdown (check run summaries and the job summary), so that
 * it renders as the same characters and nothing else: no HTML, no link, no emphasis, no code span,
 * no math, no list or heading, no table-cell break, no new block.
 *
 * Every ASCII character with a meaning in Markdown, HTML or GitHub's extensions becomes a numeric
 * character reference, which renders as itself. A table row is split on raw `|` before entities
 * are decoded, so `&#124;` stays inside its cell. `:` and `.` are escaped too, which keeps GitHub's
 * extended autolinks (`https://...`, `www.`) from forming. Line breaks become `<br>` (inline HTML
 * we emit ourselves), so a text never starts a new line, block or row. Control and bidirectional
 * formatting characters, which have no business in a report, become U+FFFD.
 */
const ESCAPED = new Set([...'&<>"\'`|[]()\\*_~!#@$:{}+-.=^%']);

const LINE_BREAK = /\r\n|[\r\n\u0085\u2028\u2029]/u;

export function escapeMarkdownText(text: string): string {
  const clean = text.toWellFormed().replace(/\t/g, ' ');
  return clean.split(LINE_BREAK).map(escapeSegment).join('<br>');
}

function escapeSegment(segment: string): string {
  let out = '';
  for (const char of segment.replace(REPLACED_CHARACTERS, '\ufffd')) {
    out += ESCAPED.has(char) ? `&#${char.codePointAt(0)};` : char;
  }
  return out;
}

/** Untrusted text as inline code: monospace, escaped as above (GitHub skips mentions in <code>). */
export function markdownCode(text: string): string {
  return `<code>${escapeMarkdownText(text)}</code>`;
}

/** One table row from already-escaped cells. */
export function tableRow(cells: readonly string[]): string {
  return `| ${cells.join(' | ')} |`;
}
