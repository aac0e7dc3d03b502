import { capUtf8 } from './cap-text.js';
import { LOG_LINE_MAX_BYTES } from './github-limits.js';
import { REPLACED_CHARACTERS } from './unsafe-characters.js';

/**
 * Untrusted text into the job log, which the Actions runner scans line by line for workflow
 * commands. It reads two forms (actions/runner, ActionCommand.cs):
 *  - `::name props::data`, only at the start of a line after leading whitespace is trimmed;
 *  - the legacy `##[name props]data`, found ANYWHERE in a line.
 * The runner splits lines on CR and LF. So: no CR or LF survives (each becomes a visible escape,
 * as do NEL, U+2028, U+2029, other controls and bidi overrides), every `##[` becomes `##\[`, and a
 * line that would start with `::` after whitespace is prefixed with `\`. `%0A` needs nothing: the
 * runner decodes percent escapes only inside a command, and a line here is never one.
 */
export function escapeLogText(text: string): string {
  return text
    .toWellFormed()
    .replace(/\r\n|[\r\n\u0085\u2028\u2029]/gu, (m) =>
      m === '\n' ? '\\n' : m === '\r\n' ? '\\r\\n' : codeEscape(m),
    )
    .replace(REPLACED_CHARACTERS, codeEscape)
    .replaceAll('##[', '##\\[');
}

/** `##[` anywhere is the runner's legacy command prefix; `##\[` shows the same and is inert. */
export function neutralizeLegacyCommands(text: string): string {
  return text.replaceAll('##[', '##\\[');
}

function codeEscape(char: string): string {
  if (char === '\r') return '\\r';
  return `\\u${char.codePointAt(0)!.toString(16).padStart(4, '0')}`;
}

/** One job-log line holding untrusted text: escaped, kept from starting a command, and capped. */
export function safeLogLine(text: string): string {
  let line = escapeLogText(text);
  if (/^\s*::/u.test(line)) line = '\\' + line;
  return capUtf8(line, LOG_LINE_MAX_BYTES);
}
