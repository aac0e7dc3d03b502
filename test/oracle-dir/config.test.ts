import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULTS, memoryBytes, parseOracleConfig, RESERVED_ENV } from '../../src/oracle-dir/config.js';

const DIGEST = 'sha256:' + 'ab'.repeat(32);
const IMAGE = `registry.example/app-oracle@${DIGEST}`;
const minimal = { image: IMAGE, hidden_tests: { command: 'pytest -q oracle_tests' } };

/** DESIGN.md's normative example, verbatim but for a real-looking digest. */
const designExample = {
  image: IMAGE,
  existing_suite: {
    command: 'python3 -m pytest -q tests --junitxml="$ORACLE_REPORT_DIR/junit.xml"',
    paths: ['tests/**'],
  },
  hidden_tests: {
    command: 'python3 -m pytest -q oracle_tests --junitxml="$ORACLE_REPORT_DIR/junit.xml"',
    dest: 'oracle_tests',
  },
  env: { APP_MODE: 'test' },
  timeout_seconds: 900,
  limits: { memory: '2g', cpus: 2, pids: 512 },
  source_date_epoch: 315532800,
  user: '1000:1000',
};

function parse(value: unknown) {
  return parseOracleConfig(typeof value === 'string' ? value : JSON.stringify(value));
}

function errorOf(value: unknown): string {
  const result = parse(value);
  if (result.ok) throw new Error('expected an error');
  return result.error;
}

/** A copy of `base` with `path` set to `value` (undefined deletes it). */
function withField(base: object, path: string, value: unknown): object {
  const copy = structuredClone(base) as Record<string, unknown>;
  const keys = path.split('.');
  let node = copy;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  if (value === undefined) delete node[keys.at(-1)!];
  else node[keys.at(-1)!] = value;
  return copy;
}

describe('oracle.json', () => {
  it('accepts a minimal file and fills every documented default', () => {
    const result = parse(minimal);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const config = result.value;
    expect(config.existing_suite).toBeUndefined();
    expect(config.hidden_tests).toEqual({ command: 'pytest -q oracle_tests', dest: 'oracle_tests' });
    expect(config.env).toEqual(new Map());
    expect(config.timeout_seconds).toBe(900);
    expect(config.limits).toEqual({ memory: '2g', cpus: 2, pids: 512 });
    expect(config.source_date_epoch).toBe(315532800);
    expect(config.user).toBe('1000:1000');
    expect(config.policy).toEqual({
      allow_symlinks: false,
      allow_submodules: false,
      allow_gitattributes: false,
    });
    expect(config.flake).toEqual({
      window: 20,
      min_runs: 5,
      freeze_above: 0.2,
      unfreeze_below: 0.05,
      freeze_budget: 0.1,
    });
    expect(config.flake).toEqual(DEFAULTS.flake);
  });

  it("accepts DESIGN.md's example as written", () => {
    const result = parse(designExample);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.existing_suite).toEqual(designExample.existing_suite);
    expect(result.value.env).toEqual(new Map([['APP_MODE', 'test']]));
  });

  it('defaults existing_suite.paths to none, and completes partial limits, policy and flake', () => {
    const result = parse({
      ...minimal,
      existing_suite: { command: 'make test' },
      limits: { pids: 100 },
      policy: { allow_symlinks: true },
      flake: { window: 10 },
    });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.existing_suite).toEqual({ command: 'make test', paths: [] });
    expect(result.value.limits).toEqual({ memory: '2g', cpus: 2, pids: 100 });
    expect(result.value.policy).toEqual({
      allow_symlinks: true,
      allow_submodules: false,
      allow_gitattributes: false,
    });
    expect(result.value.flake.window).toBe(10);
    expect(result.value.flake.min_runs).toBe(5);
  });

  it('normalizes a trailing / in existing_suite.paths to /**', () => {
    const result = parse({ ...minimal, existing_suite: { command: 'x', paths: ['tests/', 'conftest.py'] } });
    expect(result.ok && result.value.existing_suite?.paths).toEqual(['tests/**', 'conftest.py']);
  });

  it('keeps an env key named __proto__, which z.record would drop silently', () => {
    const result = parse(`{"image":"${IMAGE}","hidden_tests":{"command":"x"},"env":{"__proto__":"x"}}`);
    expect(result.ok && [...result.value.env]).toEqual([['__proto__', 'x']]);
  });

  it.each([
    'registry.example/app@' + DIGEST,
    'app@' + DIGEST,
    '127.0.0.1:5000/oracle-gate-test@' + DIGEST,
    'ghcr.io/org/team/app-oracle_v2@' + DIGEST,
    'localhost/a__b--c.d@' + DIGEST,
    '[::1]:5000/app@' + DIGEST,
  ])('accepts the pinned image %s', (image) => {
    expect(parse({ ...minimal, image }).ok).toBe(true);
  });

  const invalid: [string, string, unknown, string][] = [
    ['image', 'missing', undefined, 'image: missing field'],
    ['image', 'a tag alone', 'registry.example/app:1.2', 'image: must be pinned by digest'],
    ['image', 'a bare name', 'registry.example/app', 'image: must be pinned by digest'],
    ['image', 'tag and digest', `registry.example/app:1.2@${DIGEST}`, 'image: drop the tag'],
    ['image', 'uppercase digest', 'app@sha256:' + 'AB'.repeat(32), 'image: the digest must be sha256:'],
    ['image', 'short digest', 'app@sha256:abc', 'image: the digest must be sha256:'],
    ['image', 'sha512 digest', 'app@sha512:' + 'ab'.repeat(64), 'image: the digest must be sha256:'],
    ['image', 'option-like', '--privileged@' + DIGEST, 'image: the name before @ is not an image name'],
    ['image', 'uppercase repository', 'App@' + DIGEST, 'image: the name before @ is not an image name'],
    ['image', 'two digests', `app@${DIGEST}@${DIGEST}`, 'image: the name before @ is not an image name'],
    ['image', 'space', ` app@${DIGEST}`, 'image: the name before @ is not an image name'],
    ['image', 'garbage', 'not an image', 'image: must be an image reference pinned by digest'],
    ['image', 'not a string', 7, 'image: Invalid input: expected string, received number'],
    ['hidden_tests', 'missing', undefined, 'hidden_tests: missing field'],
    ['hidden_tests.command', 'missing', undefined, 'hidden_tests.command: missing field'],
    ['hidden_tests.command', 'blank', '   ', 'hidden_tests.command: empty command'],
    ['hidden_tests.command', 'NUL', 'a\u0000b', 'hidden_tests.command: command holds a NUL character'],
    ['hidden_tests.command', 'huge', 'x'.repeat(65537), 'hidden_tests.command: command longer than 65536'],
    ['hidden_tests.dest', 'absolute', '/oracle', 'hidden_tests.dest: must be relative'],
    ['hidden_tests.dest', 'parent', '../oracle', "hidden_tests.dest: '.' and '..' segments"],
    ['hidden_tests.dest', 'inner parent', 'a/../../b', "hidden_tests.dest: '.' and '..' segments"],
    ['hidden_tests.dest', 'dot', '.', "hidden_tests.dest: '.' and '..' segments"],
    ['hidden_tests.dest', 'empty', '', 'hidden_tests.dest: empty path'],
    ['hidden_tests.dest', 'trailing slash', 'oracle/', 'hidden_tests.dest: empty path segment'],
    ['hidden_tests.dest', 'into .git', '.git/hooks', 'hidden_tests.dest: .git is not part'],
    ['hidden_tests.dest', 'into .GIT', 'x/.GIT', 'hidden_tests.dest: .git is not part'],
    ['hidden_tests.dest', 'space', 'oracle tests', 'hidden_tests.dest: use only letters'],
    ['hidden_tests.dest', 'dash first', '-rf', 'hidden_tests.dest: use only letters'],
    ['hidden_tests.dest', 'newline', 'a\nb', 'hidden_tests.dest: path holds a control character'],
    ['hidden_tests.extra', 'unknown key', 1, 'hidden_tests.extra: unknown field'],
    ['existing_suite.command', 'missing', undefined, 'existing_suite.command: missing field'],
    ['existing_suite.paths', 'not an array', 'tests/**', 'existing_suite.paths: Invalid input'],
    ['existing_suite.paths', 'absolute glob', ['/tests/**'], 'existing_suite.paths[0]: globs are relative'],
    ['existing_suite.paths', 'parent glob', ['../x'], "existing_suite.paths[0]: '.' and '..'"],
    ['existing_suite.paths', 'negated glob', ['!x'], 'existing_suite.paths[0]: negated globs'],
    ['existing_suite.paths', 'comment glob', ['#x'], 'existing_suite.paths[0]: a glob starting with #'],
    ['existing_suite.paths', 'empty glob', ['a', ''], 'existing_suite.paths[1]: empty glob'],
    ['existing_suite.typo', 'unknown key', 'x', 'existing_suite.typo: unknown field'],
    ['env', 'not an object', ['A'], 'env: expected an object'],
    ['env.1BAD', 'bad name', 'x', 'env["1BAD"]: not a valid environment variable name'],
    ['env.A-B', 'dash in name', 'x', 'env.A-B: not a valid environment variable name'],
    ['env.ORACLE_X', 'gate namespace', 'x', 'env.ORACLE_X: names starting with ORACLE_ are reserved'],
    ['env.GIT_DIR', 'git namespace', 'x', "env.GIT_DIR: GIT_* variables would change the harness's git"],
    ['env.A', 'number value', 1, 'env.A: Invalid input: expected string, received number'],
    ['env.A', 'NUL value', 'a\u0000', 'env.A: value holds a NUL character'],
    ['timeout_seconds', 'zero', 0, 'timeout_seconds: at least 1 second'],
    ['timeout_seconds', 'negative', -5, 'timeout_seconds: at least 1 second'],
    ['timeout_seconds', 'fraction', 1.5, 'timeout_seconds: whole seconds'],
    ['timeout_seconds', 'over six hours', 21601, 'timeout_seconds: at most 21600 seconds'],
    ['timeout_seconds', 'a string', '900', 'timeout_seconds: Invalid input: expected number'],
    ['limits', 'not an object', 3, 'limits: Invalid input: expected object'],
    ['limits.memory', 'no unit', '2048', 'limits.memory: a size with a unit'],
    ['limits.memory', 'GiB unit', '2gb', 'limits.memory: a size with a unit'],
    ['limits.memory', 'too small', '5m', 'limits.memory: at least 6m'],
    ['limits.memory', 'zero', '0g', 'limits.memory: a size with a unit'],
    ['limits.cpus', 'zero', 0, 'limits.cpus: above 0'],
    ['limits.cpus', 'too many', 2000, 'limits.cpus: at most 1024'],
    ['limits.pids', 'zero', 0, 'limits.pids: at least 1'],
    ['limits.pids', 'unlimited', -1, 'limits.pids: at least 1'],
    ['limits.pids', 'fraction', 2.5, 'limits.pids: an integer'],
    ['limits.swap', 'unknown key', '1g', 'limits.swap: unknown field'],
    ['source_date_epoch', 'negative', -1, 'source_date_epoch: at least 0'],
    ['source_date_epoch', 'fraction', 0.5, 'source_date_epoch: whole seconds'],
    ['source_date_epoch', 'past 9999', 253402300800, 'source_date_epoch: at most 253402300799'],
    ['user', 'root', '0:0', 'user: the tests never run as root'],
    ['user', 'name', 'oracle', 'user: numeric uid:gid'],
    ['user', 'uid only', '1000', 'user: numeric uid:gid'],
    ['user', 'huge uid', '12345678901:1', 'user: numeric uid:gid'],
    ['user', 'uid past 2^31', '2147483648:1', 'user: uid and gid must be below 2^31'],
    ['policy.allow_symlinks', 'a string', 'yes', 'policy.allow_symlinks: Invalid input: expected boolean'],
    ['policy.allow_everything', 'unknown key', true, 'policy.allow_everything: unknown field'],
    ['flake.window', 'zero', 0, 'flake.window: at least 1'],
    ['flake.window', 'huge', 1001, 'flake.window: at most 1000'],
    ['flake.min_runs', 'over window', 21, 'flake.min_runs: must not exceed window'],
    ['flake.min_runs', 'zero', 0, 'flake.min_runs: at least 1'],
    ['flake.freeze_above', 'zero', 0, 'flake.freeze_above: above 0'],
    ['flake.freeze_above', 'over one', 1.5, 'flake.freeze_above: a failure rate, at most 1'],
    ['flake.unfreeze_below', 'negative', -0.1, 'flake.unfreeze_below: a failure rate, at least 0'],
    [
      'flake.unfreeze_below',
      'equal to freeze_above',
      0.2,
      'flake.unfreeze_below: must be below freeze_above',
    ],
    ['flake.unfreeze_below', 'above freeze_above', 0.5, 'flake.unfreeze_below: must be below freeze_above'],
    ['flake.freeze_budget', 'over one', 1.1, 'flake.freeze_budget: a fraction, at most 1'],
    ['flake.freeze_budget', 'negative', -0.1, 'flake.freeze_budget: a fraction, at least 0'],
    ['flake.threshold', 'unknown key', 1, 'flake.threshold: unknown field'],
    ['tags', 'unknown top-level key', ['x'], 'tags: unknown field'],
    ['Image', 'wrong case', IMAGE, 'Image: unknown field'],
  ];
  it.each(invalid)('refuses %s (%s), naming the field', (path, _what, value, expected) => {
    const base = path.startsWith('existing_suite')
      ? { ...minimal, existing_suite: { command: 'x' } }
      : minimal;
    const error = errorOf(withField(base, path, value));
    expect(error.startsWith(expected), `${error} should start with ${expected}`).toBe(true);
    expect(error).not.toContain('\n');
  });

  it.each(RESERVED_ENV)('refuses env.%s: the gate sets it', (key) => {
    expect(errorOf({ ...minimal, env: { [key]: 'x' } })).toMatch(
      new RegExp(
        `^env\\.${key}: set by the gate \\(TZ, LC_ALL, PYTHONHASHSEED, SOURCE_DATE_EPOCH, ORACLE_REPORT_DIR, HOME\\)`,
      ),
    );
  });

  it('refuses malformed and duplicate-key JSON with one line', () => {
    expect(errorOf('{"image": ')).toMatch(/malformed JSON/);
    expect(errorOf(`{"image":"${IMAGE}","image":"${IMAGE}","hidden_tests":{"command":"x"}}`)).toMatch(
      /duplicate key "image"/,
    );
    expect(errorOf('[]')).toMatch(/^\(top level\): /);
  });

  it('memoryBytes reads the units', () => {
    expect(memoryBytes('2g')).toBe(2 * 1024 ** 3);
    expect(memoryBytes('512m')).toBe(512 * 1024 ** 2);
    expect(memoryBytes('6144k')).toBe(6 * 1024 ** 2);
    expect(() => memoryBytes('2')).toThrow();
  });

  it('any unknown key at the top level or in a section is refused (property)', () => {
    const known: Record<string, string[]> = {
      '': [
        'image',
        'existing_suite',
        'hidden_tests',
        'env',
        'timeout_seconds',
        'limits',
        'source_date_epoch',
        'user',
        'policy',
        'flake',
      ],
      hidden_tests: ['command', 'dest'],
      limits: ['memory', 'cpus', 'pids'],
      policy: ['allow_symlinks', 'allow_submodules', 'allow_gitattributes'],
      flake: ['window', 'min_runs', 'freeze_above', 'unfreeze_below', 'freeze_budget'],
    };
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(known)), fc.string({ minLength: 1 }), (section, key) => {
        fc.pre(!known[section]!.includes(key));
        const config: Record<string, unknown> = structuredClone(minimal);
        const target = section === '' ? config : ((config[section] ??= {}) as Record<string, unknown>);
        Object.defineProperty(target, key, {
          value: 1,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        const error = errorOf(config);
        expect(error).toMatch(/: unknown field$/);
      }),
    );
  });
});
