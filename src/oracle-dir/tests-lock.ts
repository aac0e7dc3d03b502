import type { TestOutcome } from '../gate/report.js';
import type { Checked } from '../json/parse-checked.js';
import type { FailReason } from '../verdict/schema.js';
import { textLines } from './text-file.js';
import { hasControlCharacter } from './control-chars.js';

/**
 * `tests.lock`: the hidden test IDs a baseline run recorded, one a line, taken verbatim (IDs may
 * hold spaces, so nothing is trimmed but a CRLF's `\r`); lines holding only whitespace are
 * ignored. No comments: a test ID may start with `#`. A repeated ID is an error, since the lock
 * is a set and a repeat means a hand edit went wrong.
 */
export type TestsLock = ReadonlySet<string>;

export function parseTestsLock(bytes: Uint8Array, fileName = 'tests.lock'): Checked<TestsLock> {
  let lines: string[];
  try {
    lines = textLines(bytes);
  } catch (e) {
    return { ok: false, error: `${fileName}: ${(e as Error).message}` };
  }
  const firstLine = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const id = lines[i]!;
    if (id.trim() === '') continue;
    if (hasControlCharacter(id, true))
      return { ok: false, error: `${fileName} line ${i + 1}: control character in a test ID` };
    const first = firstLine.get(id);
    if (first !== undefined)
      return { ok: false, error: `${fileName} line ${i + 1}: duplicate test ID (first on line ${first})` };
    firstLine.set(id, i + 1);
  }
  return { ok: true, value: new Set(firstLine.keys()) };
}

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

/** The file a baseline run proposes: IDs de-duplicated, sorted by UTF-8 bytes, one a line. */
export function formatTestsLock(ids: Iterable<string>): string {
  return [...new Set(ids)]
    .sort(utf8Order)
    .map((id) => id + '\n')
    .join('');
}

const LISTED_IDS = 10;

function listIds(ids: readonly string[]): string {
  const shown = ids.slice(0, LISTED_IDS).map((id) => JSON.stringify(id));
  const more = ids.length > LISTED_IDS ? ` and ${ids.length - LISTED_IDS} more` : '';
  return shown.join(', ') + more;
}

function testsChanged(message: string): FailReason {
  return { kind: 'custom', subkind: 'tests-changed', message };
}

/**
 * Grade mode's collection check: the hidden tests that ran must be exactly the locked ones, and
 * none of them skipped. One `tests-changed` reason per kind of difference (missing, skipped,
 * extra); empty means the set matches. A locked test that ran and failed is not a change: the
 * tests stage judges failures, where the flake ledger may excuse a frozen one.
 * An ID reported more than once counts as skipped if any report of it is skipped.
 */
export function checkTestsLock(lock: TestsLock, outcomes: readonly TestOutcome[]): FailReason[] {
  const ran = new Map<string, boolean>(); // id -> skipped at least once
  for (const outcome of outcomes) {
    if (outcome.suite !== 'hidden') continue;
    ran.set(outcome.id, (ran.get(outcome.id) ?? false) || outcome.status === 'skipped');
  }
  const sorted = (ids: Iterable<string>) => [...ids].sort(utf8Order);
  const missing = sorted([...lock].filter((id) => !ran.has(id)));
  const skipped = sorted([...lock].filter((id) => ran.get(id) === true));
  const extra = sorted([...ran.keys()].filter((id) => !lock.has(id)));
  const reasons: FailReason[] = [];
  if (missing.length > 0)
    reasons.push(testsChanged(`${missing.length} locked hidden test(s) did not run: ${listIds(missing)}`));
  if (skipped.length > 0)
    reasons.push(testsChanged(`${skipped.length} locked hidden test(s) were skipped: ${listIds(skipped)}`));
  if (extra.length > 0)
    reasons.push(
      testsChanged(`${extra.length} hidden test(s) ran that tests.lock does not list: ${listIds(extra)}`),
    );
  return reasons;
}
