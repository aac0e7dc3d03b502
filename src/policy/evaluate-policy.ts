import { createHash } from 'node:crypto';
import type { ChangeKind, DeniedTouch, DroppedHunk } from '../gate/report.js';
import { SYMLINK_MODE, type FileChange } from '../diff/file-change.js';
import type { DiffPath } from '../diff/path-text.js';
import { PathRuleSet, type PathRule } from './path-rules.js';

/** What the policy is given: the caller reads the oracle directory and builds this. */
export interface PathPolicy {
  /** Deny rules in the order they are reported: defaultDenyRules() first, then path_deny.txt. */
  denyGlobs: readonly (string | PathRule)[];
  /** path_allow.txt's globs; null when there is no path_allow.txt (everything allowed). */
  allowGlobs: readonly string[] | null;
  allowSymlinks: boolean;
  allowSubmodules: boolean;
  allowGitattributes: boolean;
}

export interface Touch {
  path: string;
  change: ChangeKind;
}

export interface PolicyResult {
  /** Every path the patch touches, with what it does to it, in diff order. */
  touched: Touch[];
  /** Touches of denied paths: any one of them fails the gate (`denied-path`). */
  denied: DeniedTouch[];
  /** Hunks of files outside the allow-list, left out of the filtered diff. */
  dropped: DroppedHunk[];
  /**
   * The sections that passed, byte for byte as git wrote them: what the container applies. Joined
   * on first access (the parsed diff itself when nothing was left out); to write it to a file
   * without a copy, use filteredChunks.
   */
  readonly filteredDiff: Buffer;
  /** The filtered diff as views of the parsed diff, in order (adjacent sections joined). */
  filteredChunks: Buffer[];
  filteredBytes: number;
  filteredSha256: string;
  keptFiles: FileChange[];
  /** Sections dropped whole (outside the allow-list, or needing a dropped change). */
  droppedFiles: FileChange[];
  /** Sections with a denied touch; in neither the filtered diff nor `dropped`. */
  deniedFiles: FileChange[];
}

export const OUTSIDE_ALLOW_LIST = 'outside the allow-list';

/**
 * The path policy as a pure function of the parsed diff (shared/DESIGN.md, The oracle directory
 * and The gate step 3). Decisions:
 * - A section touches its path; a rename touches both of its paths, a copy only its new path.
 * - Denied, checked first on every touch whatever the allow-list says: a path that is not a safe
 *   repository path (empty, `.` or `..` component, `.git` component, NUL); a symlink created or
 *   re-pointed (new mode 120000; deleting one is fine) unless allowSymlinks; any change to a
 *   gitlink (mode 160000) or to a `.gitmodules` file unless allowSubmodules; any change to a
 *   `.gitattributes` file (at any depth, added, edited or deleted) unless allowGitattributes;
 *   a rename or copy whose mode the diff does not give (git --no-renames never writes one)
 *   unless both symlinks and submodules are allowed; then the deny rules.
 * - Deny rules also cover what is under a matched directory; allow globs match the path itself
 *   only (path-rules.ts), so each reading errs toward refusing.
 * - Allowed: every touched path is matched by an allow glob. Otherwise the whole
 *   section is dropped: each hunk recorded with its line ranges, and a section without hunks
 *   (binary, mode-only, empty file, pure rename) as one record with all ranges 0.
 * - Sections are kept or dropped whole, so the filtered diff is a subsequence of git's own
 *   sections, bytes untouched: no hunk offsets or index lines need rewriting, and each kept
 *   section applies at the base exactly as it did in the full diff. The one thing a subset can
 *   break is a file/directory swap: a kept section creating `d/x` (or `d`) needs the deletion of
 *   the file `d` (or of `d/...`) that the full diff made; when that deletion is dropped or denied
 *   the creating section is dropped too, recorded with the reason.
 */
export function evaluatePolicy(files: readonly FileChange[], policy: PathPolicy): PolicyResult {
  const deny = new PathRuleSet(
    policy.denyGlobs.map((g) => (typeof g === 'string' ? { glob: g, rule: `deny glob ${g}` } : g)),
    true,
  );
  const allow =
    policy.allowGlobs === null
      ? null
      : new PathRuleSet(
          policy.allowGlobs.map((glob) => ({ glob, rule: `allow glob ${glob}` })),
          false,
        );

  const touched: Touch[] = [];
  const denied: DeniedTouch[] = [];
  const verdicts: SectionVerdict[] = [];
  for (const file of files) {
    let sectionDenied = false;
    let outside: string | null = null;
    // What a section touches: its path; a rename both of its paths; a copy only its new path.
    for (let side = file.change === 'renamed' ? 0 : 1; side < 2; side++) {
      const created = side === 1 && file.change !== 'deleted';
      const path = created ? file.newPath! : file.oldPath!;
      const change = file.change;
      touched.push({ path: path.display, change });
      const rule = deniedBy(file, path, created, policy, deny);
      if (rule !== undefined) {
        denied.push({ path: path.display, change, rule });
        sectionDenied = true;
      } else if (allow && outside === null && allow.firstMatch(path.text) === undefined) {
        outside = path === file.path ? OUTSIDE_ALLOW_LIST : `${OUTSIDE_ALLOW_LIST}: ${path.display}`;
      }
    }
    verdicts.push(sectionDenied ? DENIED : outside);
  }

  dropCreationsNeedingDroppedDeletions(files, verdicts);

  const keptFiles: FileChange[] = [];
  const droppedFiles: FileChange[] = [];
  const deniedFiles: FileChange[] = [];
  const dropped: DroppedHunk[] = [];
  files.forEach((file, i) => {
    const verdict = verdicts[i]!;
    if (verdict === null) keptFiles.push(file);
    else if (verdict === DENIED) deniedFiles.push(file);
    else {
      droppedFiles.push(file);
      dropped.push(...droppedHunksOf(file, verdict));
    }
  });
  const filteredChunks = sectionChunks(keptFiles);
  const hash = createHash('sha256');
  let filteredBytes = 0;
  for (const chunk of filteredChunks) {
    hash.update(chunk);
    filteredBytes += chunk.length;
  }
  let joined: Buffer | undefined;
  return {
    touched,
    denied,
    dropped,
    get filteredDiff() {
      joined ??= joinChunks(filteredChunks, files[0]?.diff);
      return joined;
    },
    filteredChunks,
    filteredBytes,
    filteredSha256: hash.digest('hex'),
    keptFiles,
    droppedFiles,
    deniedFiles,
  };
}

/** Per section: null kept, DENIED, or why it was dropped. */
const DENIED = Symbol('denied');
type SectionVerdict = null | typeof DENIED | string;

function deniedBy(
  file: FileChange,
  path: DiffPath,
  created: boolean,
  policy: PathPolicy,
  deny: PathRuleSet,
): string | undefined {
  const text = path.text;
  if (!isSafeRepositoryPath(text)) return 'unsafe path';
  if (created && file.newMode === SYMLINK_MODE && !policy.allowSymlinks) return 'symlink';
  const name = text.slice(text.lastIndexOf('/') + 1);
  if (!policy.allowSubmodules && (file.submodule || name === '.gitmodules')) return 'submodule';
  if (!policy.allowGitattributes && name === '.gitattributes') return '.gitattributes';
  if (
    created &&
    file.newMode === null &&
    (file.change === 'renamed' || file.change === 'copied') &&
    !(policy.allowSymlinks && policy.allowSubmodules)
  )
    return 'unknown file mode (could be a symlink or submodule)';
  return deny.firstMatch(text)?.rule;
}

/** No NUL, and no empty, `.`, `..` or `.git` (any case) segment. A scan: this runs for every path. */
function isSafeRepositoryPath(text: string): boolean {
  let segmentStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i === text.length ? 0x2f : text.charCodeAt(i);
    if (c === 0) return false;
    if (c !== 0x2f) continue;
    const length = i - segmentStart;
    if (length === 0) return false;
    if (text.charCodeAt(segmentStart) === 0x2e) {
      if (length === 1 || (length === 2 && text.charCodeAt(segmentStart + 1) === 0x2e)) return false;
      if (length === 4 && text.slice(segmentStart, i).toLowerCase() === '.git') return false;
    }
    segmentStart = i + 1;
  }
  return true;
}

/** Drops kept sections that create a path whose way the full diff cleared with a deletion now left out. */
function dropCreationsNeedingDroppedDeletions(
  files: readonly FileChange[],
  verdicts: SectionVerdict[],
): void {
  const removed = new Map<string, string>();
  const aboveRemoved = new Map<string, string>();
  files.forEach((file, i) => {
    if (verdicts[i] === null || (file.change !== 'deleted' && file.change !== 'renamed')) return;
    const path = file.oldPath!;
    removed.set(path.text, path.display);
    for (let slash = path.text.indexOf('/'); slash !== -1; slash = path.text.indexOf('/', slash + 1))
      aboveRemoved.set(path.text.slice(0, slash), path.display);
  });
  if (removed.size === 0) return;
  files.forEach((file, i) => {
    if (
      verdicts[i] !== null ||
      !(file.change === 'added' || file.change === 'renamed' || file.change === 'copied')
    )
      return;
    const text = file.newPath!.text;
    let blocker = removed.get(text) ?? aboveRemoved.get(text);
    for (
      let slash = text.indexOf('/');
      blocker === undefined && slash !== -1;
      slash = text.indexOf('/', slash + 1)
    )
      blocker = removed.get(text.slice(0, slash));
    if (blocker !== undefined) verdicts[i] = `needs the deletion of ${blocker}, which was not applied`;
  });
}

function droppedHunksOf(file: FileChange, reason: string): DroppedHunk[] {
  const path = file.path.display;
  const records: DroppedHunk[] = [];
  for (let i = 0; i < file.hunkCount; i++) {
    const h = file.hunk(i);
    records.push({
      path,
      oldStart: h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newStart,
      newLines: h.newLines,
      reason,
    });
  }
  if (records.length > 0) return records;
  return [
    {
      path,
      oldStart: 0,
      oldLines: 0,
      newStart: 0,
      newLines: 0,
      reason: `${reason} (${wholeFileChange(file)})`,
    },
  ];
}

function wholeFileChange(file: FileChange): string {
  if (file.binary) return `binary file ${file.change}`;
  switch (file.change) {
    case 'mode-changed':
      return `mode ${file.oldMode} -> ${file.newMode}`;
    case 'added':
      return 'empty file added';
    case 'deleted':
      return 'empty file deleted';
    case 'renamed':
      return `renamed from ${file.oldPath!.display}`;
    case 'copied':
      return `copied from ${file.oldPath!.display}`;
    default:
      return file.change;
  }
}

/** The sections' bytes in order, as views: adjacent sections of one diff make one chunk. */
export function sectionChunks(files: readonly FileChange[]): Buffer[] {
  const chunks: Buffer[] = [];
  let run: FileChange | undefined;
  let runEnd = 0;
  for (const f of files) {
    if (run && f.diff === run.diff && f.start === runEnd) {
      runEnd = f.end;
      continue;
    }
    if (run) chunks.push(run.diff.subarray(run.start, runEnd));
    run = f;
    runEnd = f.end;
  }
  if (run) chunks.push(run.diff.subarray(run.start, runEnd));
  return chunks;
}

/** The sections' bytes as one Buffer (the parsed diff itself when they are all of it). */
export function concatSections(files: readonly FileChange[]): Buffer {
  return joinChunks(sectionChunks(files), files[0]?.diff);
}

function joinChunks(chunks: readonly Buffer[], diff: Buffer | undefined): Buffer {
  if (chunks.length === 1 && diff && chunks[0]!.length === diff.length) return diff;
  return chunks.length === 0 ? Buffer.alloc(0) : Buffer.concat(chunks);
}
