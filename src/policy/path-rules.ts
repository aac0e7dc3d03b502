import { Minimatch, type MinimatchOptions } from 'minimatch';

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
 * - minimatch with `dot: true`, case-sensitive, `/` as the only separator, no `!` negation and no
 *   `#` comments (reading the files handles those), no matchBase: `*.py` is top-level only,
 *   `**\/*.py` is anywhere;
 * - a rule matches a path when it matches the path itself or any directory above it, as in
 *   .gitignore: `oracle` and `oracle/` cover everything under `oracle/`; a trailing `/` makes the
 *   rule match directories only; a leading `/` is dropped (paths are repository-relative);
 * - paths are matched as lossless text (path-text.ts), so a literal rule never matches a name that
 *   is not UTF-8 and wildcards match its bytes;
 * - minimatch's `?` and `[...]` see a character outside the Basic Multilingual Plane as two
 *   units; a deny set (`overMatch`) also tries the path with each such character as one, so it
 *   matches when either reading does. An allow set takes the plain reading only.
 */
export const GLOB_OPTIONS: MinimatchOptions = {
  dot: true,
  nocase: false,
  nocomment: true,
  nonegate: true,
  matchBase: false,
  platform: 'linux',
};

interface CompiledRule {
  rule: PathRule;
  test: (path: string) => boolean;
  directoriesOnly: boolean;
}

const HAS_ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/;
const EVERY_ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/g;

export class PathRuleSet {
  private readonly compiled: CompiledRule[];
  /** Directory -> index of the first rule matching it or a directory above it (-1: none). */
  private readonly directoryCache = new Map<string, number>();

  constructor(
    rules: readonly PathRule[],
    private readonly overMatch: boolean,
  ) {
    this.compiled = rules.map(compileRule);
  }

  get size(): number {
    return this.compiled.length;
  }

  /** The first rule (in the order given) matching the path or a directory above it. */
  firstMatch(path: string): PathRule | undefined {
    let best = this.firstMatchOf(path);
    if (this.overMatch && HAS_ASTRAL.test(path)) {
      const other = this.firstMatchOf(path.replace(EVERY_ASTRAL, '\ufffd'));
      if (other !== -1 && (best === -1 || other < best)) best = other;
    }
    return best === -1 ? undefined : this.compiled[best]!.rule;
  }

  private firstMatchOf(path: string): number {
    const slash = path.lastIndexOf('/');
    let best = slash === -1 ? -1 : this.directoryMatch(path.slice(0, slash));
    const limit = best === -1 ? this.compiled.length : best;
    for (let i = 0; i < limit; i++) {
      const c = this.compiled[i]!;
      if (!c.directoriesOnly && c.test(path)) {
        best = i;
        break;
      }
    }
    return best;
  }

  private directoryMatch(directory: string): number {
    const cached = this.directoryCache.get(directory);
    if (cached !== undefined) return cached;
    const slash = directory.lastIndexOf('/');
    let best = slash === -1 ? -1 : this.directoryMatch(directory.slice(0, slash));
    const limit = best === -1 ? this.compiled.length : best;
    for (let i = 0; i < limit; i++) {
      if (this.compiled[i]!.test(directory)) {
        best = i;
        break;
      }
    }
    this.directoryCache.set(directory, best);
    return best;
  }
}

function compileRule(rule: PathRule): CompiledRule {
  if ('path' in rule) {
    const path = rule.path;
    return { rule, test: (candidate) => candidate === path, directoriesOnly: false };
  }
  let glob = rule.glob;
  const directoriesOnly = glob.endsWith('/');
  if (glob.startsWith('/')) glob = glob.slice(1);
  while (glob.endsWith('/')) glob = glob.slice(0, -1);
  if (glob === '') throw new PolicyConfigError(`empty glob ${JSON.stringify(rule.glob)}`);
  const matcher = new Minimatch(glob, GLOB_OPTIONS);
  // match(), not makeRe(): the regex lets `a/**` match `a` itself, minimatch's own match does not.
  if (matcher.makeRe() === false) throw new PolicyConfigError(`invalid glob ${JSON.stringify(rule.glob)}`);
  return { rule, test: (candidate) => matcher.match(candidate), directoriesOnly };
}
