import type { Checked } from '../json/parse-checked.js';
import { globProblem, normalizeGlob } from './glob.js';
import { textLines } from './text-file.js';

export interface GlobListEntry {
  /** The glob as minimatch should use it (see glob.ts: a trailing `/` becomes `/**`). */
  glob: string;
  /** 1-based line in the file, for messages and annotations. */
  line: number;
}

/**
 * `path_deny.txt` / `path_allow.txt`: one glob a line, surrounding whitespace trimmed, blank lines
 * and lines starting with `#` ignored. A line the gate cannot use as written is an error naming
 * the file and line, never skipped: a skipped deny glob would be a hole.
 */
export function parseGlobList(bytes: Uint8Array, fileName: string): Checked<GlobListEntry[]> {
  let lines: string[];
  try {
    lines = textLines(bytes);
  } catch (e) {
    return { ok: false, error: `${fileName}: ${(e as Error).message}` };
  }
  if (lines.length > 100000) return { ok: false, error: `${fileName}: more than 100000 lines` };
  const entries: GlobListEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.trim();
    if (text === '' || text.startsWith('#')) continue;
    const problem = globProblem(text);
    if (problem) return { ok: false, error: `${fileName} line ${i + 1}: ${problem}` };
    entries.push({ glob: normalizeGlob(text), line: i + 1 });
  }
  return { ok: true, value: entries };
}
