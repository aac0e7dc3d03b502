import { GLOBSTAR, Minimatch, type MinimatchOptions } from 'minimatch';

/**
 * A rule that matches repository paths: a minimatch glob (from path_deny.txt, path_allow.txt or
 * the defaults), or an exact path (the oracle directory, hidden-tests destination, sealed
 * fixtures: literal names, so no glob character in them can widen or break the match).
 * `rule` is what a report says matched, e.g. `deny glob .github/**` or `sealed fixture`.
 */
export type PathRule = { glob: string; rule: string } | { path: string; rule: string };

export class PolicyConfigError extends Error {}

/**
 * How a rule matches a path (the decisions the design left open, written down):
 * - minimatch's own `match` with `dot: true`, case-sensitive, `/` as the only separator, no `!`
 *   negation and no `#` comments, no matchBase: anchored at the root, `*.py` is top-level only and
 *   `**\/*.py` any depth; a trailing `/` means everything under that directory (`vendor/` is
 *   `vendor/**`), as src/oracle-dir/glob.ts reads path_deny.txt and path_allow.txt;
 * - deny rules fail closed (`broad`): a rule that matches a directory above a path matches the
 *   path too (`oracle`, `**\/__snapshots__` deny everything under them), and minimatch's `?` and
 *   `[...]`, which see a character outside the Basic Multilingual Plane as two units, also get
 *   the path with each such character as one, matching when either reading does;
 * - allow rules match the path itself only, plainly: `src` allows the file `src`, `src/**` what is
 *   under it, and a wider reading never lets more through;
 * - paths are matched as lossless text (path-text.ts), so a literal rule never matches a name that
 *   is not UTF-8 and wildcards match its bytes.
 */
export const GLOB_OPTIONS: MinimatchOptions = {
  dot: true,
  nocase: false,
  nocomment: true,
  nonegate: true,
  matchBase: false,
  platform: 'linux',
};

interface CompiledGlob {
  /** Position among all the set's rules: the first matching rule is the one reported. */
  index: number;
  test: (path: PathView) => boolean;
}

const HAS_ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/;
const EVERY_ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/g;
const SLASHES = /\/+/;

/**
 * One path as minimatch's split would see it (`path.split(/\/+/)`), answering the prefilter's
 * questions without splitting when it can: a big diff asks them for every path and every glob,
 * and the garbage of a split each time is what grows the heap. One instance per rule set, reset
 * for each path.
 */
class PathView {
  private path = '';
  /** No empty part: not empty, no leading, trailing or doubled `/`. */
  private simple = true;
  private parts: string[] | undefined;
  private first: string | undefined;
  private last: string | undefined;
  private count = -1;

  reset(path: string): this {
    this.path = path;
    this.simple = path !== '' && path[0] !== '/' && !path.endsWith('/') && !path.includes('//');
    this.parts = this.first = this.last = undefined;
    this.count = -1;
    return this;
  }

  /** Whether the cheap questions below apply (else ask matchOne with split()). */
  get isSimple(): boolean {
    return this.simple;
  }

  split(): string[] {
    this.parts ??= this.path.split(SLASHES);
    return this.parts;
  }

  partCount(): number {
    if (this.count === -1) {
      let count = 1;
      for (let i = this.path.indexOf('/'); i !== -1; i = this.path.indexOf('/', i + 1)) count++;
      this.count = count;
    }
    return this.count;
  }

  firstIs(part: string): boolean {
    const p = this.path;
    return p.startsWith(part) && (p.length === part.length || p.charCodeAt(part.length) === 0x2f);
  }

  lastIs(part: string): boolean {
    const p = this.path;
    return (
      p.endsWith(part) && (p.length === part.length || p.charCodeAt(p.length - part.length - 1) === 0x2f)
    );
  }

  hasPart(part: string): boolean {
    const p = this.path;
    for (let i = p.indexOf(part); i !== -1; i = p.indexOf(part, i + 1)) {
      const end = i + part.length;
      if ((i === 0 || p.charCodeAt(i - 1) === 0x2f) && (end === p.length || p.charCodeAt(end) === 0x2f))
        return true;
    }
    return false;
  }

  firstPart(): string {
    if (this.first === undefined) {
      const slash = this.path.indexOf('/');
      this.first = slash === -1 ? this.path : this.path.slice(0, slash);
    }
    return this.first;
  }

  lastPart(): string {
    this.last ??= this.path.slice(this.path.lastIndexOf('/') + 1);
    return this.last;
  }
}

export class PathRuleSet {
  private readonly rules: readonly PathRule[];
  /** Exact-path rules: path -> index of the first such rule. */
  private readonly literals = new Map<string, number>();
  private readonly globs: CompiledGlob[] = [];
  /** Directory -> index of the first rule matching it or a directory above it (-1: none). */
  private readonly directoryCache = new Map<string, number>();
  /** The last directory looked up: a diff lists files in path order, so usually the next one's. */
  private lastDirectory: string | undefined;
  private lastDirectoryMatch = -1;
  private readonly view = new PathView();

  /** `broad`: the fail-closed reading for deny rules (directories above, astral characters). */
  constructor(
    rules: readonly PathRule[],
    private readonly broad: boolean,
  ) {
    this.rules = rules;
    rules.forEach((rule, index) => {
      if ('path' in rule) {
        if (!this.literals.has(rule.path)) this.literals.set(rule.path, index);
      } else this.globs.push({ index, test: compileGlob(rule.glob) });
    });
  }

  get size(): number {
    return this.rules.length;
  }

  /** The first rule (in the order given) matching the path (or, when broad, a directory above it). */
  firstMatch(path: string): PathRule | undefined {
    let best = this.firstMatchOf(path);
    if (this.broad && HAS_ASTRAL.test(path)) {
      const other = this.firstMatchOf(path.replace(EVERY_ASTRAL, '\ufffd'));
      if (other !== -1 && (best === -1 || other < best)) best = other;
    }
    return best === -1 ? undefined : this.rules[best];
  }

  private firstMatchOf(path: string): number {
    const slash = path.lastIndexOf('/');
    let above = -1;
    if (slash !== -1 && this.broad) {
      const last = this.lastDirectory;
      if (last !== undefined && last.length === slash && path.startsWith(last))
        above = this.lastDirectoryMatch;
      else {
        const directory = path.slice(0, slash);
        above = this.directoryMatch(directory);
        this.lastDirectory = directory;
        this.lastDirectoryMatch = above;
      }
    }
    return this.matchIndex(path, above);
  }

  private directoryMatch(directory: string): number {
    const cached = this.directoryCache.get(directory);
    if (cached !== undefined) return cached;
    const slash = directory.lastIndexOf('/');
    const above = slash === -1 ? -1 : this.directoryMatch(directory.slice(0, slash));
    const best = this.matchIndex(directory, above);
    this.directoryCache.set(directory, best);
    return best;
  }

  /** The lowest index of a rule matching `path` itself, or `best` when none is lower. */
  private matchIndex(path: string, best: number): number {
    const literal = this.literals.get(path);
    if (literal !== undefined && (best === -1 || literal < best)) best = literal;
    if (this.globs.length === 0) return best;
    const view = this.view.reset(path);
    for (const glob of this.globs) {
      if (best !== -1 && glob.index >= best) break;
      if (glob.test(view)) return glob.index;
    }
    return best;
  }
}

type Element = string | symbol | RegExp | undefined;

/**
 * minimatch's own `match`, less its per-call split: each row of the pattern's set goes through
 * `matchOne` (minimatch's documented API for pre-split paths). Before it, checks that `matchOne`
 * itself would make and fail: a row without `**` needs as many parts as it has, a first or last
 * row element that is not `**` must match the first or last part, and every plain (non-magic)
 * element must equal some part. They only skip work (most paths miss most globs there); a
 * property test holds this equal to `minimatch(path, glob)`.
 */
function compileGlob(raw: string): (path: PathView) => boolean {
  const glob = raw.endsWith('/') ? raw + '**' : raw;
  if (glob === '' || glob.startsWith('/'))
    throw new PolicyConfigError(`glob ${JSON.stringify(raw)} cannot name a repository path`);
  const matcher = new Minimatch(glob, GLOB_OPTIONS);
  if (matcher.makeRe() === false || matcher.comment || matcher.negate || matcher.empty)
    throw new PolicyConfigError(`invalid glob ${JSON.stringify(raw)}`);
  const rows = matcher.set.map((pattern) => {
    const globstars = pattern.filter((p) => p === GLOBSTAR).length;
    return {
      pattern,
      first: pattern[0] as Element,
      last: pattern[pattern.length - 1] as Element,
      length: globstars > 0 ? -1 : pattern.length,
      plain: pattern.filter((p): p is string => typeof p === 'string'),
      // `a/b/**` and `**/a/b`, the usual shapes, are matched here without matchOne's garbage.
      shape:
        globstars === 1 && pattern[pattern.length - 1] === GLOBSTAR
          ? ('head' as const)
          : globstars === 1 && pattern[0] === GLOBSTAR
            ? ('tail' as const)
            : ('other' as const),
    };
  });
  const firstFits = (p: Element, view: PathView): boolean =>
    p === undefined ||
    typeof p === 'symbol' ||
    (typeof p === 'string' ? view.firstIs(p) : p.test(view.firstPart()));
  const lastFits = (p: Element, view: PathView): boolean =>
    p === undefined ||
    typeof p === 'symbol' ||
    (typeof p === 'string' ? view.lastIs(p) : p.test(view.lastPart()));
  return (view) => {
    for (const row of rows) {
      // A path with an empty part has special cases in matchOne: leave it all to matchOne.
      const quick =
        !view.isSimple ||
        ((row.length === -1 || row.length === view.partCount()) &&
          firstFits(row.first, view) &&
          lastFits(row.last, view) &&
          row.plain.every((p) => view.hasPart(p)));
      if (!quick) continue;
      const parts = view.split();
      const hit =
        view.isSimple && row.shape === 'head'
          ? headThenGlobstar(parts, row.pattern)
          : view.isSimple && row.shape === 'tail'
            ? globstarThenTail(parts, row.pattern)
            : matcher.matchOne(parts, row.pattern, false);
      if (hit) return true;
    }
    return false;
  };
}

/** One element of a row against one part, as matchOne compares them. */
function elementMatches(p: unknown, part: string): boolean {
  return typeof p === 'string' ? p === part : p instanceof RegExp && p.test(part);
}

/**
 * `h1/.../hn/**` as matchOne reads it (no empty part): the n parts match, at least one part
 * follows, and none of those is `.` or `..`.
 */
function headThenGlobstar(parts: readonly string[], pattern: readonly unknown[]): boolean {
  const n = pattern.length - 1;
  if (parts.length <= n) return false;
  for (let i = 0; i < n; i++) if (!elementMatches(pattern[i], parts[i]!)) return false;
  for (let i = n; i < parts.length; i++) if (parts[i] === '.' || parts[i] === '..') return false;
  return true;
}

/** `**\/t1/.../tn` as matchOne reads it: the last n parts match, and no part before is `.` or `..`. */
function globstarThenTail(parts: readonly string[], pattern: readonly unknown[]): boolean {
  const n = pattern.length - 1;
  const offset = parts.length - n;
  if (offset < 0) return false;
  for (let i = 0; i < n; i++) if (!elementMatches(pattern[i + 1], parts[offset + i]!)) return false;
  for (let i = 0; i < offset; i++) if (parts[i] === '.' || parts[i] === '..') return false;
  return true;
}
