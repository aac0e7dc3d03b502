import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { minimatch } from 'minimatch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileChange } from '../../src/diff/file-change.js';
import { DiffParseError, parseGitDiff } from '../../src/diff/parse-git-diff.js';
import { bytesToPathText, type DiffPath } from '../../src/diff/path-text.js';
import { readPrDiff } from '../../src/diff/read-pr-diff.js';
import { deniedPathReason } from '../../src/policy/denied-path-reason.js';
import { concatSections, evaluatePolicy, type PathPolicy } from '../../src/policy/evaluate-policy.js';
import { repoCase } from '../diff/helpers/arbitraries.js';
import { git, importCommits, initRepo, scratch, type Entry } from '../diff/helpers/git-fixture.js';
import { fuzz, guard, numRuns, testTimeout } from './budget.js';
import { b64, mutatedSeed, printable, randomInput, type Mutated } from './mutations.js';

/**
 * The diff parser (src/diff/parse-git-diff.ts) on hostile bytes. Seeds are real `git diff` output
 * from generated repositories with hostile names, with and without rename/copy detection and
 * binary patches; mutations move, cut, double and splice their lines and salt them with diff
 * syntax. The reference for "what does this diff touch" is git itself: `git apply --numstat`,
 * which the container's harness (git apply) agrees with by construction.
 */

const TARGET = 'diff parser';
const area = scratch('fuzz-diff');
afterAll(() => area.cleanup());

const TOKENS = [
  'diff --git a/x b/x',
  'diff --git a/.github/workflows/ci.yml b/.github/workflows/ci.yml',
  'diff --git "a/q\\"x" "b/q\\"x"',
  'diff --git a/a b/b.txt',
  'diff --cc x',
  '--- a/x',
  '+++ b/x',
  '--- a/.github/workflows/ci.yml',
  '+++ b/.github/workflows/ci.yml',
  '--- "a/\\303\\274.txt"',
  '+++ "b/\\377"',
  '--- /dev/null',
  '+++ /dev/null',
  '@@ -1 +1 @@',
  '@@ -0,0 +1,2 @@',
  '@@ -1,3 +1,3 @@ def f():',
  '@@ -1,0 +0,0 @@',
  '\\ No newline at end of file',
  'new file mode 100644',
  'new file mode 120000',
  'deleted file mode 100755',
  'old mode 100644',
  'new mode 160000',
  'index 0123456..89abcde 100644',
  'index 0000000000000000000000000000000000000000..1111111111111111111111111111111111111111',
  'similarity index 90%',
  'dissimilarity index 101%',
  'rename from x',
  'rename to .github/workflows/ci.yml',
  'copy from a',
  'copy to .github/x',
  'GIT binary patch',
  'literal 0',
  'literal 5',
  'delta 12',
  'HcmV?d00001',
  'Binary files a/x and b/x differ',
  'Binary files /dev/null and "b/\\tq" differ',
  '+',
  '-',
  ' ',
  '',
  '+added',
  '-removed',
  ' context',
  'a/',
  'b/',
  '"',
  '\t',
].map((t) => Buffer.from(t, 'latin1'));

/** Found by this fuzzer (since fixed, pinned so they stay fixed). */
const RAW_CR_IN_NAME = 'ZGlmZiAtLWdpdCBhL3gNIGIveA0KLS0tIGEveA0KKysrIGIveA0KQEAgLTEgKzEgQEAKLWEKK2IK';
const CORRUPT_BINARY_PATCH =
  'ZGlmZiAtLWdpdCBhL2EgYi9hCm5ldyBmaWxlIG1vZGUgMTAwNjQ0Ci0tLSAvZGV2L251bGwKKysrIGIvYQpAQCAtMCwwICsxIEBACit4CmRpZmYgLS1naXQgYS9iIGIvYgppbmRleCAwMTIzNDU2Li44OWFiY2RlIDEwMDY0NApHSVQgYmluYXJ5IHBhdGNoCmxpdGVyYWwgNgoKbGl0ZXJhbCAwCkhjbVY/ZDAwMDAxCgpkaWZmIC0tZ2l0IGEvYyBiL2MKbmV3IGZpbGUgbW9kZSAxMDA2NDQKLS0tIC9kZXYvbnVsbAorKysgYi9jCkBAIC0wLDAgKzEgQEAKK3kK';
const BINARY_PATCH_WITHOUT_BLOCK =
  'ZGlmZiAtLWdpdCBhL2EgYi9hCm5ldyBmaWxlIG1vZGUgMTAwNjQ0Ci0tLSAvZGV2L251bGwKKysrIGIvYQpAQCAtMCwwICsxIEBACit4CmRpZmYgLS1naXQgYS9iIGIvYgpvbGQgbW9kZSAxMDA2NDQKbmV3IG1vZGUgMTAwNzU1CkdJVCBiaW5hcnkgcGF0Y2gK';
const RAW_BYTE_AFTER_BACKSLASH = Buffer.from('diff --git "a/\\\r" b/x\n', 'latin1');
const example = (base64: string): Mutated => ({
  seed: -1,
  steps: [],
  bytes: printable(Buffer.from(base64, 'base64')),
});

const text = (lines: string[]) => Buffer.from(lines.map((l) => `${l}\n`).join(''));

/** Renames, copies, a binary edit, a mode change, a symlink and a workflow file, for the detectors. */
const HANDMADE: { base: Entry[]; head: Entry[] } = (() => {
  const body = text(Array.from({ length: 12 }, (_, i) => `line ${i}`));
  const base: Entry[] = [
    { path: Buffer.from('src/a.py'), mode: '100644', content: body },
    { path: Buffer.from('doc/readme.md'), mode: '100644', content: text(['# read', 'me', 'now']) },
    { path: Buffer.from('bin.dat'), mode: '100644', content: Buffer.from([0, 1, 2, 3, 255]) },
    { path: Buffer.from('tool.sh'), mode: '100644', content: text(['echo hi']) },
    { path: Buffer.from('gone b'), mode: '100644', content: text(['bye']) },
  ];
  const head: Entry[] = [
    { path: Buffer.from('src/b.py'), mode: '100644', content: Buffer.concat([body, text(['added'])]) },
    { path: Buffer.from('doc/readme.md'), mode: '100644', content: text(['# read', 'me', 'now']) },
    { path: Buffer.from('doc/copy.md'), mode: '100644', content: text(['# read', 'me', 'now']) },
    { path: Buffer.from('bin.dat'), mode: '100644', content: Buffer.from([0, 9, 2, 3, 255, 7]) },
    { path: Buffer.from('tool.sh'), mode: '100755', content: text(['echo hi']) },
    { path: Buffer.from('link'), mode: '120000', content: Buffer.from('src') },
    { path: Buffer.from('.github/workflows/ci.yml'), mode: '100644', content: text(['on: push']) },
    { path: Buffer.from('caf\xe9 "q"', 'latin1'), mode: '100644', content: text(['x']) },
  ];
  return { base, head };
})();

let seeds: Buffer[] = [];

beforeAll(async () => {
  const cases = [HANDMADE, ...fc.sample(repoCase, { numRuns: 8, seed: 20260101 })];
  const diffs: Buffer[] = [];
  for (const c of cases) {
    const dir = initRepo(area.dir('repo'));
    importCommits(dir, [
      { ref: 'refs/heads/base', entries: c.base },
      { ref: 'refs/heads/head', parent: 'refs/heads/base', entries: c.head },
    ]);
    // The gate's own diff, then git's other forms the parser also reads.
    diffs.push(await readPrDiff(dir, 'refs/heads/base', 'refs/heads/head'));
    const plain = ['diff', '--no-ext-diff', '--no-textconv', '--src-prefix=a/', '--dst-prefix=b/'];
    diffs.push(
      git(dir, [...plain, '--binary', '--full-index', '-M', '-C', '--find-copies-harder', 'base', 'head']),
    );
    diffs.push(git(dir, [...plain, '-M30%', 'base', 'head']));
  }
  seeds = diffs.filter((d) => d.length > 0);
  // Every seed is a diff the parser reads: mutations start from valid input.
  for (const seed of seeds) parseGitDiff(seed);
}, 120_000);

/** Random bytes and diff-alphabet soup (weight 1) and mutated real diffs (weight 4). */
const diffInput = () =>
  fc.oneof(
    { weight: 1, arbitrary: randomInput(TOKENS) },
    { weight: 4, arbitrary: mutatedSeed(seeds, TOKENS).map((m) => m.bytes) },
  );

type Parsed = { ok: true; files: FileChange[] } | { ok: false; error: DiffParseError };

/** Runs the parser; anything thrown but a DiffParseError fails the property with the input. */
function parse(input: Buffer): Parsed {
  try {
    return { ok: true, files: guard(`${TARGET}: parseGitDiff`, input, () => parseGitDiff(input)) };
  } catch (error) {
    if (error instanceof DiffParseError) return { ok: false, error };
    throw new Error(`parseGitDiff threw ${String(error)} (not a DiffParseError) on base64 ${b64(input)}`, {
      cause: error,
    });
  }
}

const EVERYTHING: PathPolicy = {
  denyGlobs: [],
  allowGlobs: null,
  allowSymlinks: true,
  allowSubmodules: true,
  allowGitattributes: true,
};
const STRICT: PathPolicy = {
  denyGlobs: ['.github/**'],
  allowGlobs: ['a', 'b.txt', 'src/**', '**/b.txt', 'x'],
  allowSymlinks: false,
  allowSubmodules: false,
  allowGitattributes: false,
};

describe('fuzz: the diff parser', () => {
  it(
    'returns sections that tile the input exactly, or throws a DiffParseError with a one-line reason; nothing else escapes',
    () => {
      const runs = numRuns(1);
      let accepted = 0;
      fuzz(
        TARGET,
        'only DiffParseError; accepted sections tile the input',
        fc.property(diffInput(), (input) => {
          const parsed = parse(input);
          if (!parsed.ok) {
            const lines = input.length === 0 ? 1 : input.toString('latin1').split('\n').length;
            expect(parsed.error.line).toBeGreaterThanOrEqual(1);
            expect(parsed.error.line).toBeLessThanOrEqual(lines + 1);
            // A reason is one line of text with no raw control byte from the input in it.
            const control = [...parsed.error.message].filter((ch) => ch.charCodeAt(0) < 0x20);
            expect(control, `a reason with a control byte; base64 ${b64(input)}`).toEqual([]);
            return;
          }
          let at = 0;
          for (const f of parsed.files) {
            expect(f.start).toBe(at);
            expect(f.raw.subarray(0, 11).toString('latin1')).toBe('diff --git ');
            expect(f.oldPath !== null || f.newPath !== null).toBe(true);
            let hunkAt = f.start;
            for (const h of f.hunks) {
              expect(h.start).toBeGreaterThanOrEqual(hunkAt);
              expect(h.end).toBeLessThanOrEqual(f.end);
              expect(h.raw.subarray(0, 4).toString('latin1')).toBe('@@ -');
              hunkAt = h.end;
            }
            at = f.end;
          }
          expect(at).toBe(input.length);
          accepted++;
        }),
        { runs, examples: [[printable(RAW_BYTE_AFTER_BACKSLASH)]] },
      );
      console.log(`[fuzz] ${TARGET}: ${accepted} of ${runs} inputs parsed, the rest refused`);
    },
    testTimeout(numRuns(1), 5),
  );

  it(
    'the policy takes every accepted diff without throwing: allow-all keeps every section with a safe path byte for byte, a strict policy gives actionable denials',
    () => {
      const runs = numRuns(1);
      fuzz(
        TARGET,
        'policy never throws on an accepted diff',
        fc.property(diffInput(), (input) => {
          const parsed = parse(input);
          if (!parsed.ok) return;
          const all = guard(`${TARGET}: evaluatePolicy`, input, () =>
            evaluatePolicy(parsed.files, EVERYTHING),
          );
          // Allow-all keeps every section but those whose path is unsafe (empty, `.`, `..` or
          // `.git` components), which are denied whatever the policy says.
          expect(all.dropped).toEqual([]);
          for (const d of all.denied) expect(d.rule, `base64 ${b64(input)}`).toBe('unsafe path');
          expect(
            all.filteredDiff.equals(concatSections(parsed.files.filter((f) => !all.deniedFiles.includes(f)))),
            `allow-all changed the bytes it kept; base64 ${b64(input)}`,
          ).toBe(true);
          if (all.denied.length === 0) expect(all.filteredDiff.equals(input)).toBe(true);
          const strict = guard(`${TARGET}: evaluatePolicy`, input, () =>
            evaluatePolicy(parsed.files, STRICT),
          );
          expect(strict.keptFiles.length + strict.droppedFiles.length + strict.deniedFiles.length).toBe(
            parsed.files.length,
          );
          if (strict.denied.length > 0) {
            const reason = deniedPathReason(strict.denied);
            expect(reason.subkind).toBe('denied-path');
            expect(reason.message).not.toMatch(/[\r\n]/);
            for (const d of strict.denied) expect(reason.message).toContain(d.path);
          }
        }),
        { runs },
      );
    },
    testTimeout(numRuns(1), 10),
  );

  it(
    'whatever diff it accepts, git apply reads the same files in the same order (same names, same line counts); what git would write under .github/ is denied, and the filtered diff writes only allowed paths',
    () => {
      // Up to four git processes per accepted case: a quarter of the budget, one or two mutations each.
      const runs = numRuns(0.25, 20);
      let agreed = 0;
      let gitRefused = 0;
      const gitStoppedEarly: string[] = [];
      fuzz(
        TARGET,
        'git apply reads the files the parser reads',
        fc.property(mutatedSeed(seeds, TOKENS, 2), ({ bytes: input }) => {
          const parsed = parse(input);
          if (!parsed.ok) return;
          const forward = gitNumstat(input, false);
          const reverse = gitNumstat(input, true);
          if (!forward.ok || !reverse.ok) {
            // git refuses what the parser took: the container's git apply --check fails, closed.
            gitRefused++;
            return;
          }
          const ours = parsed.files.map((f) => {
            const name = (p: DiffPath) => p.bytes.toString('hex');
            return {
              forward: name((f.newPath ?? f.oldPath)!),
              reverse: name((f.oldPath ?? f.newPath)!),
              counts: f.binary ? '-\t-' : lineCounts(f),
            };
          });
          const theirs = forward.entries.map((e, i) => ({
            forward: e.name.toString('hex'),
            reverse: reverse.entries[i]?.name.toString('hex'),
            counts: e.counts,
          }));
          if (theirs.length < ours.length && /(corrupt|unrecognized) binary patch/.test(forward.stderr)) {
            // git (2.39) stops reading at a binary patch it cannot decode ("error: corrupt binary
            // patch") and still exits 0, having read only the sections before it. The parser
            // checks a binary patch's line shapes, not its zlib contents, so it takes such a diff;
            // the harness fails any git apply that prints an error (patch-does-not-apply, tested
            // in test/container/oracle-run.e2e.test.ts). Here: git read a prefix of what we read.
            expect(parsed.files[theirs.length]!.binary).toBe(true);
            expect(theirs, `git apply reads a different prefix; base64 ${b64(input)}`).toEqual(
              ours.slice(0, theirs.length),
            );
            gitStoppedEarly.push(b64(input));
            return;
          }
          expect(theirs, `git apply reads this diff differently; base64 ${b64(input)}`).toEqual(ours);
          agreed++;

          const strict = evaluatePolicy(parsed.files, STRICT);
          if (forward.entries.some((e) => e.name.subarray(0, 8).toString('latin1') === '.github/'))
            expect(strict.denied.length, `a .github/ write not denied; base64 ${b64(input)}`).toBeGreaterThan(
              0,
            );
          if (strict.denied.length > 0 || strict.filteredBytes === 0) return;
          const kept = gitNumstat(strict.filteredDiff, false);
          const keptReverse = gitNumstat(strict.filteredDiff, true);
          expect(kept.ok && keptReverse.ok, `git refuses the filtered diff; base64 ${b64(input)}`).toBe(true);
          if (!kept.ok || !keptReverse.ok) return;
          // Every path git would write: each section's new (or deleted) path, and a rename's source.
          kept.entries.forEach((entry, i) => {
            const renamed = strict.keptFiles[i]?.change === 'renamed';
            for (const name of [entry.name, ...(renamed ? [keptReverse.entries[i]!.name] : [])])
              expect(
                STRICT.allowGlobs!.some((g) => minimatch(bytesToPathText(name), g, { dot: true })),
                `the filtered diff writes ${JSON.stringify(bytesToPathText(name))}, outside the allow-list; base64 ${b64(input)}`,
              ).toBe(true);
          });
        }),
        {
          runs,
          examples: [
            [example(RAW_CR_IN_NAME)],
            [example(CORRUPT_BINARY_PATCH)],
            [example(BINARY_PATCH_WITHOUT_BLOCK)],
          ],
        },
      );
      const shortest = (list: string[]) =>
        list.length > 0 ? `; the shortest: base64 ${list.sort((a, b) => a.length - b.length)[0]}` : '';
      console.log(
        `[fuzz] ${TARGET}: git agreed on ${agreed} accepted diffs, refused ${gitRefused}, ` +
          `stopped early at a binary patch it could not decode (exit 0; the harness fails it) on ${gitStoppedEarly.length}${shortest(gitStoppedEarly)}`,
      );
    },
    testTimeout(numRuns(0.25, 20), 40),
  );
});

function lineCounts(f: FileChange): string {
  let added = 0;
  let deleted = 0;
  for (const h of f.hunks)
    for (const line of h.raw.toString('latin1').split('\n').slice(1)) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) deleted++;
    }
  return `${added}\t${deleted}`;
}

interface NumstatEntry {
  counts: string;
  name: Buffer;
}

type Numstat = { ok: true; entries: NumstatEntry[]; stderr: string } | { ok: false };

const GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  LC_ALL: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};
let outsideRepo: string | undefined;

/** `git apply --numstat -z` (with -R: the names of the other side), outside any repository. */
function gitNumstat(diff: Buffer, reverse: boolean): Numstat {
  outsideRepo ??= area.dir('outside');
  const run = spawnSync('git', ['apply', '--numstat', '-z', ...(reverse ? ['-R'] : [])], {
    cwd: outsideRepo,
    input: diff,
    env: { ...GIT_ENV, GIT_CEILING_DIRECTORIES: outsideRepo },
    maxBuffer: 256 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  if (run.status !== 0) return { ok: false };
  const out = run.stdout;
  const entries: NumstatEntry[] = [];
  let start = 0;
  for (let end = out.indexOf(0, start); end !== -1; end = out.indexOf(0, start)) {
    const record = out.subarray(start, end);
    const tab1 = record.indexOf(0x09);
    const tab2 = record.indexOf(0x09, tab1 + 1);
    entries.push({ counts: record.subarray(0, tab2).toString('latin1'), name: record.subarray(tab2 + 1) });
    start = end + 1;
  }
  // With -R git lists the sections last to first.
  return { ok: true, entries: reverse ? entries.reverse() : entries, stderr: run.stderr.toString('latin1') };
}
