import { hasControlCharacter } from './control-chars.js';

/**
 * Checks a repository-relative path as oracle files name them: `/`-separated, no leading `/`, no
 * empty, `.` or `..` segment, nothing inside `.git`, no control characters, and no leading `"` (the
 * gate shows a path whose bytes are not UTF-8 in git's quoted form, which must never equal a
 * listed path). Returns the problem, or null when the path is acceptable.
 */
export function repoPathProblem(path: string): string | null {
  if (path === '') return 'empty path';
  if (path.length > 4096) return 'path longer than 4096 characters';
  if (hasControlCharacter(path)) return 'path holds a control character';
  if (path.startsWith('/')) return 'must be relative to the repository root (no leading /)';
  if (path.startsWith('"')) return 'must not start with a double quote';
  const segments = path.split('/');
  if (segments.some((s) => s === '')) return 'empty path segment (a doubled or trailing /)';
  if (segments.some((s) => s === '.' || s === '..')) return "'.' and '..' segments are not allowed";
  if (segments.some((s) => s.toLowerCase() === '.git')) return '.git is not part of the repository';
  return null;
}
