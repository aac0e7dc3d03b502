import fc from 'fast-check';
import type { Entry, Mode } from './git-fixture.js';

/** Path components a hostile patch author would pick; joined by `/` into 1-3 deep paths. */
export const HOSTILE_COMPONENTS: readonly Buffer[] = [
  'a',
  'b.txt',
  'src',
  'sp ace',
  ' lead',
  'trail ',
  'tab\tname',
  'quo"te',
  'back\\slash',
  '\\',
  '"',
  'new\nline',
  'cr\rlf',
  'ctl\x01\x7f',
  '-dash',
  '--',
  '-',
  '..dots',
  '...',
  '.hidden',
  'x b',
  'dev',
  'null',
  '#hash',
  '!bang',
  '*star',
  '[br]',
  '{a,b}',
  'ü.txt',
  '日本',
  '😀',
  '\u202eevil',
  '.gitattributes',
].map((s) => Buffer.from(s, 'utf8'));

const NON_UTF8: readonly Buffer[] = [
  Buffer.from([0xff, 0xfe]),
  Buffer.from([0x63, 0x61, 0x66, 0xe9]), // latin-1 "café"
  Buffer.from([0xed, 0xa0, 0x80]), // a UTF-16 surrogate in UTF-8 form: not UTF-8
  Buffer.from([0xc0, 0xaf]), // overlong "/"
];

export const component = fc.constantFrom(...HOSTILE_COMPONENTS, ...NON_UTF8);

export const repoPath = fc
  .array(component, { minLength: 1, maxLength: 3 })
  .map((parts) => Buffer.concat(parts.flatMap((p, i) => (i ? [Buffer.from('/'), p] : [p]))));

/** Lines chosen to look like diff syntax once prefixed, to catch a parser that reads content. */
const LINES = [
  'alpha',
  'beta',
  'gamma',
  'delta',
  '',
  ' space',
  '-- dash',
  '++ plus',
  '@@ -1 +1 @@',
  'diff --git a/x b/x',
  '\\ No newline at end of file',
  'index 0000000..1111111 100644',
  'GIT binary patch',
  'caf\xe9',
];

const lines = fc.array(fc.constantFrom(...LINES), { maxLength: 60, size: 'large' });

export const textContent = fc
  .record({ lines, finalNewline: fc.boolean(), crlf: fc.boolean() })
  .map(({ lines, finalNewline, crlf }) => {
    const eol = crlf ? '\r\n' : '\n';
    return Buffer.from(lines.join(eol) + (finalNewline && lines.length ? eol : ''), 'latin1');
  });

const binaryContent = fc
  .uint8Array({ minLength: 1, maxLength: 64 })
  .map((b) => Buffer.concat([Buffer.from([0]), b]));

const oid = fc
  .stringMatching(/^[0-9a-f]{40}$/)
  .map((s) => Buffer.from(s === '0'.repeat(40) ? '1' + s.slice(1) : s));

export const entryBody = fc.oneof(
  { weight: 6, arbitrary: textContent.map((content) => ({ mode: '100644' as Mode, content })) },
  { weight: 2, arbitrary: textContent.map((content) => ({ mode: '100755' as Mode, content })) },
  { weight: 1, arbitrary: binaryContent.map((content) => ({ mode: '100644' as Mode, content })) },
  { weight: 1, arbitrary: repoPath.map((content) => ({ mode: '120000' as Mode, content })) },
  { weight: 1, arbitrary: oid.map((content) => ({ mode: '160000' as Mode, content })) },
);

/** Edits lines of a text file in a few places, so a file gets several hunks. */
const edit = fc.record({
  at: fc.nat(60),
  kind: fc.constantFrom('replace', 'insert', 'delete'),
  line: fc.constantFrom(...LINES),
});

export type Op =
  | { kind: 'keep' }
  | { kind: 'delete' }
  | { kind: 'edit'; edits: { at: number; kind: string; line: string }[] }
  | { kind: 'chmod' }
  | { kind: 'replace'; body: { mode: Mode; content: Buffer } }
  | { kind: 'become-directory'; child: Buffer; body: { mode: Mode; content: Buffer } };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: 'keep' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'delete' as const }) },
  {
    weight: 4,
    arbitrary: fc
      .array(edit, { minLength: 1, maxLength: 6, size: 'large' })
      .map((edits) => ({ kind: 'edit' as const, edits })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'chmod' as const }) },
  { weight: 1, arbitrary: entryBody.map((body) => ({ kind: 'replace' as const, body })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(component, entryBody)
      .map(([child, body]) => ({ kind: 'become-directory' as const, child, body })),
  },
);

export interface RepoCase {
  base: Entry[];
  head: Entry[];
}

/** Keeps the first entry of each path and drops any that would make a path both file and directory. */
export function consistentTree(entries: readonly Entry[]): Entry[] {
  const kept: Entry[] = [];
  const files = new Set<string>();
  const dirs = new Set<string>();
  for (const entry of entries) {
    const key = entry.path.toString('latin1');
    const parents = parentsOf(key);
    if (files.has(key) || dirs.has(key) || parents.some((p) => files.has(p))) continue;
    kept.push(entry);
    files.add(key);
    for (const p of parents) dirs.add(p);
  }
  return kept;
}

function parentsOf(key: string): string[] {
  const out: string[] = [];
  for (let i = key.indexOf('/'); i !== -1; i = key.indexOf('/', i + 1)) out.push(key.slice(0, i));
  return out;
}

function applyEdits(content: Buffer, edits: Op & { kind: 'edit' }): Buffer {
  const text = content.toString('latin1');
  const lines = text.split('\n');
  for (const e of edits.edits) {
    const at = Math.min(e.at, lines.length);
    if (e.kind === 'replace' && at < lines.length) lines[at] = e.line + '!';
    else if (e.kind === 'delete' && at < lines.length) lines.splice(at, 1);
    else lines.splice(at, 0, e.line);
  }
  return Buffer.from(lines.join('\n'), 'latin1');
}

function headEntry(entry: Entry, o: Op): Entry[] {
  switch (o.kind) {
    case 'keep':
      return [entry];
    case 'delete':
      return [];
    case 'edit':
      return entry.mode === '160000' || entry.mode === '120000'
        ? [entry]
        : [{ ...entry, content: applyEdits(entry.content, o) }];
    case 'chmod':
      return entry.mode === '100644'
        ? [{ ...entry, mode: '100755' }]
        : entry.mode === '100755'
          ? [{ ...entry, mode: '100644' }]
          : [entry];
    case 'replace':
      return [{ path: entry.path, ...o.body }];
    case 'become-directory':
      return [{ path: Buffer.concat([entry.path, Buffer.from('/'), o.child]), ...o.body }];
  }
}

/** A base tree, and a head tree made from it by per-file operations plus new files. */
export const repoCase: fc.Arbitrary<RepoCase> = fc
  .record({
    base: fc.array(fc.record({ path: repoPath, body: entryBody }), { minLength: 1, maxLength: 10 }),
    ops: fc.array(op, { minLength: 10, maxLength: 10 }),
    added: fc.array(fc.record({ path: repoPath, body: entryBody }), { maxLength: 5 }),
    collapse: fc.option(fc.nat(9), { nil: undefined }),
  })
  .map(({ base, ops, added, collapse }) => {
    const baseTree = consistentTree(base.map(({ path, body }) => ({ path, ...body })));
    let head = baseTree.flatMap((entry, i) => headEntry(entry, ops[i]!));
    // A directory that becomes a file: every entry under it goes, a file takes its name.
    const victim = collapse === undefined ? undefined : baseTree[collapse % baseTree.length];
    const slash = victim?.path.indexOf(0x2f) ?? -1;
    if (victim && slash > 0) {
      const dir = victim.path.subarray(0, slash);
      const prefix = Buffer.concat([dir, Buffer.from('/')]);
      head = head.filter((e) => !e.path.subarray(0, prefix.length).equals(prefix));
      head.unshift({ path: dir, mode: '100644', content: Buffer.from('now a file\n') });
    }
    const headTree = consistentTree([...head, ...added.map(({ path, body }) => ({ path, ...body }))]);
    return { base: baseTree, head: headTree };
  });
