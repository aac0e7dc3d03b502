import { Minimatch } from 'minimatch';
import { hasControlCharacter } from './control-chars.js';

// Globs in oracle files match repository-relative paths with minimatch (`dot: true`), anchored at
// the root: `*.py` is top-level only, `**/*.py` any depth. A trailing `/` means everything under a
// directory (`vendor/` is `vendor/**`; unlike .gitignore, still anchored at the root). A glob that
// can only match nothing (absolute, `..`, a leading `#` that minimatch reads as a comment) would be
// a silent hole in a deny list, so it is refused; so is `!` negation, whose minimatch meaning
// (everything else) is not what a reader of a list expects.

/** The problem with a glob, or null when it is acceptable. */
export function globProblem(glob: string): string | null {
  if (glob === '') return 'empty glob';
  if (glob.length > 4096) return 'glob longer than 4096 characters';
  if (hasControlCharacter(glob)) return 'glob holds a control character';
  if (glob.startsWith('/')) return 'globs are relative to the repository root; drop the leading /';
  if (glob.startsWith('!')) return 'negated globs are not supported (write \\! for a literal !)';
  if (glob.startsWith('#'))
    return 'a glob starting with # is a comment to minimatch (write \\# for a literal #)';
  if (glob.split('/').some((s) => s === '.' || s === '..'))
    return "'.' and '..' segments never match a repository path";
  if (new Minimatch(normalizeGlob(glob), { dot: true }).makeRe() === false) return 'not a valid glob';
  return null;
}

/** The glob as minimatch should see it: a trailing `/` becomes `/**`. */
export function normalizeGlob(glob: string): string {
  return glob.endsWith('/') ? glob + '**' : glob;
}
