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

interface CompiledRule {
  rule: PathRule;
  test: (path: string) => boolean;
}

const HAS_ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/;
const EVERY_ASTRAL = /[\ud800-\udbff][\udc00-\udfff]/g;

export class PathRuleSet {
  private readonly compiled: CompiledRule[];
  /** Directory -> index of the first rule matching it or a directory above it (-1: none). */
  private readonly directoryCache = new Map<string, number>();

  /** `broad`: the fail-closed reading for deny rules (directories above, astral characters). */
  constructor(
    rules: readonly PathRule[],
    private readonly broad: boolean,
  ) {
    this.compiled = rules.map(compileRule);
  }

  get size(): number {
    return this.compiled.length;
  }

  /** The first rule (in the order given) matching the path or a directory above it. */
  firstMatch(path: string): PathRule | undefined {
    let best = this.firstMatchOf(path);
    if (this.broad && HAS_ASTRAL.test(path)) {
      const other = this.firstMatchOf(path.replace(EVERY_ASTRAL, '\ufffd'));
      if (other !== -1 && (best === -1 || other < best)) best = other;
    }
    return best === -1 ? undefined : this.compiled[best]!.rule;
  }

  private firstMatchOf(path: string): number {
    const slash = path.lastIndexOf('/');
    let best = slash === -1 || !this.broad ? -1 : this.directoryMatch(path.slice(0, slash));
    const limit = best === -1 ? this.compiled.length : best;
    for (let i = 0; i < limit; i++) {
      if (this.compiled[i]!.test(path)) {
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
    return { rule, test: (candidate) => candidate === path };
  }
  const glob = rule.glob.endsWith('/') ? rule.glob + '**' : rule.glob;
  if (glob === '' || glob.startsWith('/'))
    throw new PolicyConfigError(`glob ${JSON.stringify(rule.glob)} cannot name a repository path`);
  const matcher = new Minimatch(glob, GLOB_OPTIONS);
  // match(), not makeRe(): the regex lets `a/**` match `a` itself, minimatch's own match does not.
  if (matcher.makeRe() === false) throw new PolicyConfigError(`invalid glob ${JSON.stringify(rule.glob)}`);
  return { rule, test: (candidate) => matcher.match(candidate) };
}
