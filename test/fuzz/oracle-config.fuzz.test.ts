import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONFIG_INVALID } from '../../src/gate/config-stage.js';
import { DEFAULTS, parseOracleConfig, RESERVED_ENV, type OracleConfig } from '../../src/oracle-dir/config.js';
import { buildSampleRepo, SAMPLE, type SampleRepo } from '../container/sample-repo.js';
import { tempDirs, type OracleCopy } from '../gate/helpers.js';
import { fixturePath } from '../helpers/fixtures.js';
import { fuzz, fuzzAsync, guard, numRuns, testTimeout } from './budget.js';
import { expectWellFormedVerdict, FAKE_IMAGE, gateWithFile, oracleCopy } from './gate-harness.js';
import { jsonInput, nativeParse } from './json-mutations.js';
import { b64 } from './mutations.js';

/**
 * oracle.json (src/oracle-dir/config.ts), alone and through the gate (loadOracleDir, the config
 * stage and every stage after it). The reference is JSON.parse plus the documented rules restated
 * here, independently of the zod schema: whatever the parser accepts must satisfy them and mean
 * what JSON.parse reads.
 */

const TARGET = 'oracle.json';
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;

const SAMPLE_CONFIG = { ...readJson(`${SAMPLE}/oracle/oracle.json`), image: FAKE_IMAGE };
const SEEDS: Record<string, unknown>[] = [
  readJson(fixturePath('oracle-dir/complete/oracle.json')),
  SAMPLE_CONFIG,
  {
    image: 'localhost:5000/team/app_oracle@sha256:' + 'b'.repeat(64),
    hidden_tests: { command: 'npm test -- --reporter junit', dest: 'hidden/tests_1' },
    env: { NODE_ENV: 'test', _X: '' },
    timeout_seconds: 21600,
    limits: { memory: '6m', cpus: 0.5, pids: 4194304 },
    source_date_epoch: 0,
    user: '2147483647:0',
    policy: { allow_symlinks: true, allow_submodules: false, allow_gitattributes: true },
    flake: { window: 1000, min_runs: 1000, freeze_above: 1, unfreeze_below: 0, freeze_budget: 1 },
  },
];
const KEYS = [
  'image',
  'existing_suite',
  'hidden_tests',
  'command',
  'paths',
  'dest',
  'env',
  'timeout_seconds',
  'limits',
  'memory',
  'cpus',
  'pids',
  'source_date_epoch',
  'user',
  'policy',
  'allow_symlinks',
  'allow_submodules',
  'allow_gitattributes',
  'flake',
  'window',
  'min_runs',
  'freeze_above',
  'unfreeze_below',
  'freeze_budget',
  'HOME',
  'ORACLE_REPORT_DIR',
  'GIT_DIR',
  'LD_PRELOAD',
];

// --- the reference: the documented rules over JSON.parse's reading -----------------------------

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);
const isInt = (v: unknown, min: number, max: number) =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
const only = (v: Record<string, unknown>, keys: string[]) => Object.keys(v).every((k) => keys.includes(k));
const command = (v: unknown) =>
  typeof v === 'string' && v.trim() !== '' && !v.includes('\u0000') && v.length <= 65536;
const repoRelative = (v: string) =>
  v !== '' &&
  !v.startsWith('/') &&
  v.split('/').every((s) => s !== '..' && s !== '.' && s !== '' && s !== '.git');
const MEMORY_UNIT = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 } as const;

/** What the text must say for the gate to take it; [] when it says nothing wrong. */
function violations(raw: unknown): string[] {
  const bad: string[] = [];
  const check = (ok: boolean, what: string) => (ok ? undefined : bad.push(what));
  if (!isObject(raw)) return ['not an object'];
  check(
    only(raw, [
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
    ]),
    'unknown top-level key',
  );
  check(
    typeof raw.image === 'string' &&
      raw.image.length <= 512 &&
      /^[a-z0-9.\-_/:[\]A-Z]+@sha256:[0-9a-f]{64}$/.test(raw.image) &&
      !/:[\w][\w.-]*@/.test(raw.image.replace(/^[^/]*\//, '')),
    'image pinned by digest, no tag',
  );
  const suite = raw.existing_suite;
  if (suite !== undefined)
    check(
      isObject(suite) &&
        only(suite, ['command', 'paths']) &&
        command(suite.command) &&
        (suite.paths === undefined ||
          (Array.isArray(suite.paths) &&
            suite.paths.length <= 10000 &&
            suite.paths.every((g) => typeof g === 'string' && g !== '' && !g.startsWith('!')))),
      'existing_suite',
    );
  const hidden = raw.hidden_tests;
  check(
    isObject(hidden) &&
      only(hidden, ['command', 'dest']) &&
      command(hidden.command) &&
      (hidden.dest === undefined ||
        (typeof hidden.dest === 'string' &&
          repoRelative(hidden.dest) &&
          hidden.dest.split('/').every((s) => /^[A-Za-z0-9._][A-Za-z0-9._-]*$/.test(s)))),
    'hidden_tests',
  );
  if (raw.env !== undefined)
    check(
      isObject(raw.env) &&
        Object.keys(raw.env).length <= 256 &&
        Object.entries(raw.env).every(
          ([k, v]) =>
            /^[A-Za-z_][A-Za-z0-9_]{0,255}$/.test(k) &&
            !(RESERVED_ENV as readonly string[]).includes(k) &&
            !k.startsWith('ORACLE_') &&
            !k.startsWith('GIT_') &&
            typeof v === 'string' &&
            v.length <= 32768 &&
            !v.includes('\u0000'),
        ),
      'env',
    );
  if (raw.timeout_seconds !== undefined) check(isInt(raw.timeout_seconds, 1, 21600), 'timeout_seconds');
  const limits = raw.limits;
  if (limits !== undefined) {
    const memory = isObject(limits) ? limits.memory : undefined;
    const match = typeof memory === 'string' ? /^([1-9][0-9]{0,9})([kmg])$/.exec(memory) : null;
    check(
      isObject(limits) &&
        only(limits, ['memory', 'cpus', 'pids']) &&
        (memory === undefined ||
          (match !== null &&
            Number(match[1]) * MEMORY_UNIT[match[2] as keyof typeof MEMORY_UNIT] >= 6 * 1024 ** 2)) &&
        (limits.cpus === undefined ||
          (typeof limits.cpus === 'number' && limits.cpus > 0 && limits.cpus <= 1024)) &&
        (limits.pids === undefined || isInt(limits.pids, 1, 4194304)),
      'limits',
    );
  }
  if (raw.source_date_epoch !== undefined)
    check(isInt(raw.source_date_epoch, 0, 253402300799), 'source_date_epoch');
  if (raw.user !== undefined) {
    const m = typeof raw.user === 'string' ? /^([0-9]{1,10}):([0-9]{1,10})$/.exec(raw.user) : null;
    check(
      m !== null && Number(m[1]) !== 0 && Number(m[1]) < 2 ** 31 && Number(m[2]) < 2 ** 31,
      'user: numeric, not root',
    );
  }
  const policy = raw.policy;
  if (policy !== undefined)
    check(
      isObject(policy) &&
        only(policy, ['allow_symlinks', 'allow_submodules', 'allow_gitattributes']) &&
        Object.values(policy).every((v) => typeof v === 'boolean'),
      'policy',
    );
  const flake = raw.flake;
  if (flake !== undefined) {
    const f = isObject(flake) ? { ...DEFAULTS.flake, ...flake } : undefined;
    check(
      f !== undefined &&
        only(flake as Record<string, unknown>, Object.keys(DEFAULTS.flake)) &&
        isInt(f.window, 1, 1000) &&
        isInt(f.min_runs, 1, Number.MAX_SAFE_INTEGER) &&
        f.min_runs <= f.window &&
        typeof f.freeze_above === 'number' &&
        f.freeze_above > 0 &&
        f.freeze_above <= 1 &&
        typeof f.unfreeze_below === 'number' &&
        f.unfreeze_below >= 0 &&
        f.unfreeze_below < f.freeze_above &&
        typeof f.freeze_budget === 'number' &&
        f.freeze_budget >= 0 &&
        f.freeze_budget <= 1,
      'flake',
    );
  }
  return bad;
}

/** The parsed config says what JSON.parse reads, with DESIGN.md's defaults where the text is silent. */
function expectSameMeaning(config: OracleConfig, raw: Record<string, unknown>, input: string): void {
  const r = raw as {
    image: string;
    existing_suite?: { command: string; paths?: string[] };
    hidden_tests: { command: string; dest?: string };
    env?: Record<string, string>;
    timeout_seconds?: number;
    limits?: { memory?: string; cpus?: number; pids?: number };
    source_date_epoch?: number;
    user?: string;
  };
  const why = `the parsed config differs from JSON.parse's reading; ${input}`;
  expect(config.image, why).toBe(r.image);
  expect(config.hidden_tests.command, why).toBe(r.hidden_tests.command);
  expect(config.hidden_tests.dest, why).toBe(r.hidden_tests.dest ?? DEFAULTS.hidden_tests_dest);
  expect(config.existing_suite?.command, why).toBe(r.existing_suite?.command);
  expect(Object.fromEntries(config.env), why).toEqual(r.env ?? {});
  expect(config.timeout_seconds, why).toBe(r.timeout_seconds ?? DEFAULTS.timeout_seconds);
  expect(config.limits, why).toEqual({ ...DEFAULTS.limits, ...r.limits });
  expect(config.source_date_epoch, why).toBe(r.source_date_epoch ?? DEFAULTS.source_date_epoch);
  expect(config.user, why).toBe(r.user ?? DEFAULTS.user);
}

function parse(input: Buffer) {
  const text = input.toString('utf8');
  return { text, parsed: guard(`${TARGET}: parseOracleConfig`, input, () => parseOracleConfig(text)) };
}

describe('fuzz: oracle.json', () => {
  it(
    'parseOracleConfig never throws; it refuses with one line, or accepts only what JSON.parse reads and the documented rules allow, meaning the same',
    () => {
      const runs = numRuns(1);
      let accepted = 0;
      fuzz(
        TARGET,
        'refused with one line, or valid and meaning what it says',
        fc.property(jsonInput(SEEDS, KEYS), (input) => {
          const { text, parsed } = parse(input);
          if (!parsed.ok) {
            expect(parsed.error.length).toBeGreaterThan(0);
            expect(parsed.error, `a reason with a line break; base64 ${b64(input)}`).not.toMatch(/[\r\n]/);
            return;
          }
          accepted++;
          const native = nativeParse(text);
          expect(native.ok, `accepted what JSON.parse refuses; base64 ${b64(input)}`).toBe(true);
          if (!native.ok) return;
          expect(
            violations(native.value),
            `accepted a config that breaks the rules; base64 ${b64(input)}`,
          ).toEqual([]);
          expectSameMeaning(parsed.value, native.value as Record<string, unknown>, `base64 ${b64(input)}`);
        }),
        { runs },
      );
      console.log(`[fuzz] ${TARGET}: ${accepted} of ${runs} configs accepted, the rest refused`);
    },
    testTimeout(numRuns(1), 5),
  );

  describe('through the gate', () => {
    const tempDir = tempDirs('og-fuzz-config-');
    let repo: SampleRepo;
    let oracle: OracleCopy;
    beforeAll(async () => {
      repo = await buildSampleRepo();
      oracle = await oracleCopy(tempDir());
    }, 120_000);
    afterAll(() => repo?.remove());

    const runs = numRuns(0.05, 25);
    it(
      'a refused oracle.json fails the gate at the config stage, naming oracle.json; the gate passes only on one the parser accepts',
      async () => {
        let passes = 0;
        let refused = 0;
        await fuzzAsync(
          TARGET,
          'the gate never passes a refused oracle.json',
          fc.asyncProperty(jsonInput(SEEDS, KEYS), async (input) => {
            const { report, ranContainer } = await gateWithFile(
              `${TARGET}: runGate`,
              repo,
              oracle,
              'oracle.json',
              input,
            );
            expectWellFormedVerdict(report, `base64 ${b64(input)}`);
            // As loadOracleDir reads it: UTF-8, a byte-order mark dropped.
            const decoded = new TextDecoder('utf-8', { fatal: true });
            let text: string | undefined;
            try {
              text = decoded.decode(input);
            } catch {
              text = undefined;
            }
            const parsed = text === undefined ? undefined : parseOracleConfig(text);
            if (parsed === undefined || !parsed.ok) {
              refused++;
              expect(report.verdict.kind, `the gate passed a refused oracle.json; base64 ${b64(input)}`).toBe(
                'fail',
              );
              expect(ranContainer).toBe(false);
              if (report.verdict.kind !== 'fail') return;
              const first = report.verdict.reasons[0]!;
              expect(first.subkind).toBe(CONFIG_INVALID);
              expect(first.message).toMatch(/^oracle\.json: /);
              if (parsed !== undefined && !parsed.ok) expect(first.message).toContain(parsed.error);
              expect(report.stages.map((s) => s.id)).toEqual(['config']);
              return;
            }
            if (report.verdict.kind === 'pass') passes++;
          }),
          { runs },
        );
        console.log(`[fuzz] ${TARGET}: through the gate, ${refused} refused, ${passes} passed`);
      },
      testTimeout(runs, 200),
    );
  });
});
