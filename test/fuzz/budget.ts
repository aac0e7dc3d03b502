import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll } from 'vitest';

/**
 * The fuzz budget, shared by every file in test/fuzz.
 *
 * - FUZZ_RUNS: cases per property [200]. `npm test` runs the default, `npm run fuzz` 50000.
 *   Properties whose cases are costly (a gate run, a spawned process) take a fraction of it.
 * - FUZZ_SEED: where every property's seed comes from [a fresh one for each test file]; set it to
 *   the FUZZ_SEED a property printed to replay that property's cases.
 * - FUZZ_HANG_SECONDS: how long one call into the code under test may take before it counts as a
 *   hang [60]. Generous on purpose: this catches loops that never end, it is no speed target.
 *
 * Each property prints `[fuzz] <target> › <property>: <n> cases (seed <s>, FUZZ_SEED=<f>)` and
 * each file a total, so a long run's counts can be read off its output.
 */

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a positive integer`);
  return value;
}

export const FUZZ_RUNS = positiveInt('FUZZ_RUNS', 200);
export const FUZZ_SEED: number =
  process.env.FUZZ_SEED !== undefined && process.env.FUZZ_SEED !== ''
    ? Number(process.env.FUZZ_SEED) | 0
    : (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0;
const HANG_MS = positiveInt('FUZZ_HANG_SECONDS', 60) * 1000;

/** Cases for a property: FUZZ_RUNS scaled by `weight`, never fewer than `min`. */
export function numRuns(weight = 1, min = 1): number {
  return Math.max(min, Math.ceil(FUZZ_RUNS * weight));
}

/**
 * vitest's per-test timeout for a property of `runs` cases that each take about `msPerCase` on a
 * slow machine: ten times that, and at least two minutes. It catches an await that never returns;
 * the watchdog below catches synchronous loops, which no timer on the same thread can interrupt.
 */
export function testTimeout(runs: number, msPerCase: number): number {
  return Math.max(120_000, runs * msPerCase * 10);
}

// --- the watchdog -----------------------------------------------------------------------------
//
// A worker thread watches a shared clock: `guard` stamps when a call into the code under test
// starts and copies the input beside it. A call still running after FUZZ_HANG_SECONDS means the
// code under test spins; the main thread is stuck and vitest's timeout cannot fire, so the worker
// writes the input (base64) to a file and to stderr, then kills this test process, which fails the run.

const MAX_KEPT_INPUT = 4 * 1024 * 1024;
const MAX_LABEL = 512;
const control = new SharedArrayBuffer(4 * Int32Array.BYTES_PER_ELEMENT + Float64Array.BYTES_PER_ELEMENT);
const state = new Int32Array(control, 0, 4); // [busy, input bytes kept, input bytes in all, label bytes]
const startedAt = new Float64Array(control, 16, 1);
const inputArea = new Uint8Array(new SharedArrayBuffer(MAX_KEPT_INPUT));
const labelArea = new Uint8Array(new SharedArrayBuffer(MAX_LABEL));

const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const { writeFileSync, writeSync } = require('node:fs');
const state = new Int32Array(workerData.control, 0, 4);
const startedAt = new Float64Array(workerData.control, 16, 1);
setInterval(() => {
  if (Atomics.load(state, 0) !== 1 || Date.now() - startedAt[0] < workerData.hangMs) return;
  const input = Buffer.from(workerData.input.slice(0, Atomics.load(state, 1))).toString('base64');
  const label = Buffer.from(workerData.label.slice(0, Atomics.load(state, 3))).toString('utf8');
  const text = 'fuzz hang: ' + label + ' still running after ' + workerData.hangMs + ' ms\\n' +
    'input (' + Atomics.load(state, 2) + ' bytes, base64' +
    (Atomics.load(state, 2) > Atomics.load(state, 1) ? ', cut' : '') + '):\\n' + input + '\\n';
  try { writeFileSync(workerData.dump, text); } catch {}
  writeSync(2, text + '(also in ' + workerData.dump + ')\\n');
  process.kill(process.pid, 'SIGKILL');
}, 250);
`;

let watchdog: Worker | undefined;

function startWatchdog(): void {
  if (watchdog) return;
  const dump = join(tmpdir(), `oracle-gate-fuzz-hang-${process.pid}-${Date.now()}.txt`);
  watchdog = new Worker(WATCHDOG, {
    eval: true,
    workerData: { control, input: inputArea, label: labelArea, hangMs: HANG_MS, dump },
  });
  watchdog.unref();
}

afterAll(async () => {
  await watchdog?.terminate();
  watchdog = undefined;
});

function enter(label: string, input: Uint8Array | string): void {
  startWatchdog();
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : input;
  const kept = Math.min(bytes.length, MAX_KEPT_INPUT);
  inputArea.set(bytes.subarray(0, kept));
  const labelBytes = Buffer.from(label, 'utf8').subarray(0, MAX_LABEL);
  labelArea.set(labelBytes);
  Atomics.store(state, 1, kept);
  Atomics.store(state, 2, bytes.length);
  Atomics.store(state, 3, labelBytes.length);
  startedAt[0] = Date.now();
  Atomics.store(state, 0, 1);
}

function leave(): void {
  Atomics.store(state, 0, 0);
}

/** Calls the code under test on `input` under the watchdog. */
export function guard<T>(label: string, input: Uint8Array | string, call: () => T): T {
  enter(label, input);
  try {
    return call();
  } finally {
    leave();
  }
}

/** `guard` for an async call: a synchronous loop anywhere inside it still trips the watchdog. */
export async function guardAsync<T>(
  label: string,
  input: Uint8Array | string,
  call: () => Promise<T>,
): Promise<T> {
  enter(label, input);
  try {
    return await call();
  } finally {
    leave();
  }
}

// --- running and counting -----------------------------------------------------------------------

const fileTotals = new Map<string, number>();
afterAll(() => {
  for (const [target, total] of fileTotals) console.log(`[fuzz] ${target}: ${total} cases in all`);
});

export interface FuzzOptions<Ts> {
  runs: number;
  examples?: Ts[];
}

/** Each property's own seed, from FUZZ_SEED and its name: properties over one arbitrary see different cases. */
function propertySeed(target: string, property: string): number {
  let hash = 0x811c9dc5;
  for (const c of `${target} › ${property}`) hash = Math.imul(hash ^ c.codePointAt(0)!, 0x01000193);
  return (FUZZ_SEED ^ hash) | 0;
}

function record<Ts>(target: string, property: string, details: fc.RunDetails<Ts>): void {
  const runs = details.numRuns;
  fileTotals.set(target, (fileTotals.get(target) ?? 0) + runs);
  const skips = details.numSkips > 0 ? `, ${details.numSkips} skipped` : '';
  console.log(
    `[fuzz] ${target} › ${property}: ${runs} cases${skips} (seed ${details.seed}, FUZZ_SEED=${FUZZ_SEED})`,
  );
}

/**
 * Checks a property with its seed (from FUZZ_SEED and its name) and prints how many cases ran. A
 * failure throws fast-check's report (counterexample, seed and path); the same FUZZ_SEED replays it.
 */
export function fuzz<Ts extends [unknown, ...unknown[]]>(
  target: string,
  property: string,
  prop: fc.IProperty<Ts>,
  options: FuzzOptions<Ts>,
): void {
  const details = fc.check(prop, {
    numRuns: options.runs,
    seed: propertySeed(target, property),
    ...(options.examples ? { examples: options.examples } : {}),
  });
  record(target, property, details);
  if (details.failed) throw failure(fc.defaultReportMessage(details), details);
}

export async function fuzzAsync<Ts extends [unknown, ...unknown[]]>(
  target: string,
  property: string,
  prop: fc.IAsyncProperty<Ts>,
  options: FuzzOptions<Ts>,
): Promise<void> {
  const details = await fc.check(prop, {
    numRuns: options.runs,
    seed: propertySeed(target, property),
    ...(options.examples ? { examples: options.examples } : {}),
  });
  record(target, property, details);
  if (details.failed) throw failure(await fc.asyncDefaultReportMessage(details), details);
}

/** fast-check's report with the property's own error in it (fast-check 4 keeps it as the cause only). */
function failure<Ts>(report: string | undefined, details: fc.RunDetails<Ts>): Error {
  const cause = details.errorInstance;
  const why = cause instanceof Error ? cause.message : String(cause);
  return new Error(`${report ?? 'property failed'}\nGot error: ${why}`, { cause });
}
