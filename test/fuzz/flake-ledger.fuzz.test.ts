import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_EXIT } from '../../src/container/harness-protocol.js';
import type { OracleRunRequest, OracleRunResult } from '../../src/container/run-oracle-container.js';
import { CONFIG_INVALID } from '../../src/gate/config-stage.js';
import type { TestStatus } from '../../src/gate/report.js';
import {
  formatFlakeLedger,
  parseFlakeLedger,
  updateLedger,
  type BaselineResult,
} from '../../src/oracle-dir/flake-ledger.js';
import { judgeRun } from '../../src/results/judge-run.js';
import type { JUnitCase } from '../../src/results/junit-report.js';
import { buildSampleRepo, type SampleRepo } from '../container/sample-repo.js';
import { EXISTING_IDS, fakeRun, LOCKED_IDS, tempDirs, type OracleCopy } from '../gate/helpers.js';
import { fixturePath } from '../helpers/fixtures.js';
import { fuzz, fuzzAsync, guard, numRuns, testTimeout } from './budget.js';
import { expectWellFormedVerdict, gateWithFile, oracleCopy } from './gate-harness.js';
import { jsonInput, nativeParse } from './json-mutations.js';
import { b64 } from './mutations.js';

/**
 * The flake ledger (src/oracle-dir/flake-ledger.ts) alone, and in an otherwise valid oracle
 * directory through the gate, where a frozen test's failure does not fail it. The reference is
 * JSON.parse plus the format's rules restated here. The fake container fails one hidden test and
 * judges the run with the real judgeRun and the frozen set the gate hands it, so a Pass needs a
 * ledger that freezes exactly that test, within the freeze budget.
 */

const TARGET = 'flake ledger';
const FAILING = LOCKED_IDS[0]!;
const BUDGET = 0.5;

const SEEDS: unknown[] = [
  {
    version: 1,
    tests: [
      { id: FAILING, state: 'frozen', history: 'PPFPPFPPPP' },
      { id: LOCKED_IDS[1], state: 'active', history: 'PPPPP' },
    ],
  },
  { version: 1, tests: [{ id: FAILING, state: 'active', history: 'PPPPPPPPPF' }] },
  {
    version: 1,
    tests: LOCKED_IDS.slice(0, 3).map((id) => ({ id, state: 'frozen', history: 'PFPFP' })),
  },
  JSON.parse(readFileSync(fixturePath('oracle-dir/complete/flake_ledger.json'), 'utf8')),
  {
    version: 1,
    tests: [
      { id: '日本::テスト', state: 'active', history: '' },
      { id: 'a"b\\c::\u202ed', state: 'frozen', history: 'PF'.repeat(500) },
      { id: FAILING + ' ', state: 'frozen', history: 'F' },
    ],
  },
  { version: 1, tests: [] },
];
const KEYS = ['version', 'tests', 'id', 'state', 'history', FAILING, 'frozen', 'active'];

// --- the reference -------------------------------------------------------------------------------

interface RefEntry {
  id: string;
  state: string;
  history: string;
}

/** The format's rules over JSON.parse's reading: the entries, or null if the text breaks one. */
function referenceEntries(text: string): RefEntry[] | null {
  const native = nativeParse(text);
  if (!native.ok) return null;
  const v = native.value as { version?: unknown; tests?: unknown };
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  if (Object.keys(v).sort().join() !== 'tests,version' || v.version !== 1 || !Array.isArray(v.tests))
    return null;
  const ids = new Set<string>();
  for (const t of v.tests as unknown[]) {
    if (t === null || typeof t !== 'object' || Array.isArray(t)) return null;
    const e = t as Record<string, unknown>;
    if (Object.keys(e).sort().join() !== 'history,id,state') return null;
    if (typeof e.id !== 'string' || e.id.length < 1 || e.id.length > 65536 || ids.has(e.id)) return null;
    if (e.state !== 'active' && e.state !== 'frozen') return null;
    if (typeof e.history !== 'string' || !/^[PF]*$/.test(e.history) || e.history.length > 1000) return null;
    ids.add(e.id);
  }
  return v.tests as RefEntry[];
}

const status = fc.constantFrom<TestStatus>('passed', 'failed', 'error', 'skipped');
const results = fc.array(
  fc.record({ id: fc.oneof(fc.constantFrom(FAILING, ...LOCKED_IDS), fc.string({ minLength: 1 })), status }),
  { maxLength: 8 },
);
const params = fc
  .record({
    window: fc.integer({ min: 1, max: 30 }),
    min_runs: fc.integer({ min: 1, max: 30 }),
    freeze_above: fc.double({ min: 0.01, max: 1, noNaN: true }),
    unfreeze_below: fc.double({ min: 0, max: 0.99, noNaN: true }),
  })
  .map((p) => ({
    ...p,
    min_runs: Math.min(p.min_runs, p.window),
    unfreeze_below: Math.min(p.unfreeze_below, p.freeze_above / 2),
  }));

describe('fuzz: the flake ledger', () => {
  it(
    'parseFlakeLedger never throws; it refuses with one line, or accepts only a ledger JSON.parse reads the same way, which its writer and updateLedger keep whole',
    () => {
      const runs = numRuns(1);
      let accepted = 0;
      fuzz(
        TARGET,
        'refused with one line, or valid, the same entries, and round-tripping',
        fc.property(jsonInput(SEEDS, KEYS), results, params, (input, run, p) => {
          const text = input.toString('utf8');
          const parsed = guard(`${TARGET}: parseFlakeLedger`, input, () => parseFlakeLedger(text));
          if (!parsed.ok) {
            expect(parsed.error.length).toBeGreaterThan(0);
            expect(parsed.error, `a reason with a line break; base64 ${b64(input)}`).not.toMatch(/[\r\n]/);
            return;
          }
          accepted++;
          const reference = referenceEntries(text);
          expect(reference, `accepted a ledger that breaks the format; base64 ${b64(input)}`).not.toBeNull();
          expect(
            [...parsed.value.tests].map(([id, e]) => ({ id, state: e.state, history: e.history })),
            `the ledger differs from JSON.parse's reading; base64 ${b64(input)}`,
          ).toEqual(reference);
          // What a baseline run writes back, the reader takes again, unchanged.
          const again = parseFlakeLedger(formatFlakeLedger(parsed.value));
          expect(again.ok && [...again.value.tests]).toEqual([...parsed.value.tests].sort(byUtf8Id));
          const updated = guard(`${TARGET}: updateLedger`, input, () =>
            updateLedger(parsed.value, run as BaselineResult[], p),
          );
          const reread = parseFlakeLedger(formatFlakeLedger(updated));
          expect(reread.ok, `updateLedger wrote a ledger its reader refuses; base64 ${b64(input)}`).toBe(
            true,
          );
        }),
        { runs },
      );
      console.log(`[fuzz] ${TARGET}: ${accepted} of ${runs} ledgers accepted, the rest refused`);
    },
    testTimeout(numRuns(1), 5),
  );

  describe('through the gate', () => {
    const tempDir = tempDirs('og-fuzz-ledger-');
    let repo: SampleRepo;
    let oracle: OracleCopy;
    beforeAll(async () => {
      repo = await buildSampleRepo();
      oracle = await oracleCopy(tempDir(), { flake: { freeze_budget: BUDGET } });
    }, 120_000);
    afterAll(() => repo?.remove());

    const runs = numRuns(0.05, 25);
    it(
      'a refused ledger fails the gate naming flake_ledger.json; an accepted one passes exactly when it freezes the failing test within the freeze budget',
      async () => {
        let passes = 0;
        let refused = 0;
        await fuzzAsync(
          TARGET,
          'the gate passes only on a valid ledger that excuses the failure',
          fc.asyncProperty(jsonInput(SEEDS, KEYS), async (input) => {
            const { report, ranContainer } = await gateWithFile(
              `${TARGET}: runGate`,
              repo,
              oracle,
              'flake_ledger.json',
              input,
              oneHiddenTestFails,
            );
            expectWellFormedVerdict(report, `base64 ${b64(input)}`);
            let text: string | undefined;
            try {
              // As loadOracleDir reads it: UTF-8, a byte-order mark dropped.
              text = new TextDecoder('utf-8', { fatal: true }).decode(input);
            } catch {
              text = undefined;
            }
            const parsed = text === undefined ? undefined : parseFlakeLedger(text);
            if (parsed === undefined || !parsed.ok) {
              refused++;
              expect(report.verdict.kind, `the gate passed a refused ledger; base64 ${b64(input)}`).toBe(
                'fail',
              );
              expect(ranContainer).toBe(false);
              if (report.verdict.kind !== 'fail') return;
              expect(report.verdict.reasons[0]!.subkind).toBe(CONFIG_INVALID);
              expect(report.verdict.reasons[0]!.message).toMatch(/^flake_ledger\.json: /);
              return;
            }
            const entries = referenceEntries(text!)!;
            const frozen = new Set(entries.filter((e) => e.state === 'frozen').map((e) => e.id));
            const frozenLocked = LOCKED_IDS.filter((id) => frozen.has(id)).length;
            const shouldPass = frozen.has(FAILING) && frozenLocked / LOCKED_IDS.length <= BUDGET;
            expect(report.verdict.kind, `base64 ${b64(input)}`).toBe(shouldPass ? 'pass' : 'fail');
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

function byUtf8Id([a]: [string, unknown], [b]: [string, unknown]): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

const junitCase = (id: string, status: TestStatus): JUnitCase => {
  const [classname = '', name = ''] = id.split('::');
  return { id, classname, name, status };
};

/** A container run where the hidden test FAILING fails and all else passes, judged as the real layer does. */
function oneHiddenTestFails(request: OracleRunRequest): OracleRunResult {
  const judgement = judgeRun(
    {
      mode: 'grade',
      timedOut: false,
      timeoutSeconds: 60,
      exitCode: HARNESS_EXIT.hiddenTestsFailed,
      oomKilled: false,
      memoryLimit: '512m',
      existing: {
        exitCode: 0,
        harnessSawReport: true,
        report: {
          kind: 'parsed',
          cases: EXISTING_IDS.map((id) => junitCase(id, 'passed')),
          files: ['junit.xml'],
        },
      },
      hidden: {
        exitCode: 1,
        harnessSawReport: true,
        report: {
          kind: 'parsed',
          cases: LOCKED_IDS.map((id) => junitCase(id, id === FAILING ? 'failed' : 'passed')),
          files: ['junit.xml'],
        },
      },
    },
    request.frozen,
  );
  return fakeRun(request, {
    outcomes: judgement.outcomes,
    containerReasons: judgement.containerReasons,
    testReasons: judgement.testReasons,
    ...(judgement.testsHash !== undefined ? { testsHash: judgement.testsHash } : {}),
  });
}
