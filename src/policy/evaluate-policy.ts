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
  /** The sections that passed, byte for byte as git wrote them: what the container applies. */
  filteredDiff: Buffer;
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
    for (const { path, change, created } of touchesOf(file)) {
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
  const filteredDiff = concatSections(keptFiles);
  return {
    touched,
    denied,
    dropped,
    filteredDiff,
    filteredSha256: createHash('sha256').update(filteredDiff).digest('hex'),
    keptFiles,
    droppedFiles,
    deniedFiles,
  };
}

/** Per section: null kept, DENIED, or why it was dropped. */
const DENIED = Symbol('denied');
type SectionVerdict = null | typeof DENIED | string;

interface SectionTouch {
  path: DiffPath;
  change: ChangeKind;
  /** The path exists after the change (new side). */
  created: boolean;
}

function touchesOf(file: FileChange): SectionTouch[] {
  switch (file.change) {
    case 'added':
      return [{ path: file.newPath!, change: 'added', created: true }];
    case 'deleted':
      return [{ path: file.oldPath!, change: 'deleted', created: false }];
    case 'renamed':
      return [
        { path: file.oldPath!, change: 'renamed', created: false },
        { path: file.newPath!, change: 'renamed', created: true },
      ];
    case 'copied':
      return [{ path: file.newPath!, change: 'copied', created: true }];
    default:
      return [{ path: file.path, change: file.change, created: true }];
  }
}

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

function isSafeRepositoryPath(text: string): boolean {
  if (text.includes('\0')) return false;
  for (const part of text.split('/'))
    if (part === '' || part === '.' || part === '..' || part.toLowerCase() === '.git') return false;
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
  if (file.hunks.length > 0)
    return file.hunks.map((h) => ({
      path,
      oldStart: h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newStart,
      newLines: h.newLines,
      reason,
    }));
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

/** The sections' bytes in order; adjacent sections of one diff are copied as one run. */
export function concatSections(files: readonly FileChange[]): Buffer {
  if (files.length === 0) return Buffer.alloc(0);
  const first = files[0]!;
  const last = files[files.length - 1]!;
  const contiguous = files.every(
    (f, i) => i === 0 || (f.diff === files[i - 1]!.diff && f.start === files[i - 1]!.end),
  );
  if (contiguous && first.diff === last.diff && first.start === 0 && last.end === first.diff.length)
    return first.diff;
  const runs: Buffer[] = [];
  let runStart = first.start;
  let runEnd = first.end;
  let runDiff = first.diff;
  for (let i = 1; i < files.length; i++) {
    const f = files[i]!;
    if (f.diff === runDiff && f.start === runEnd) runEnd = f.end;
    else {
      runs.push(runDiff.subarray(runStart, runEnd));
      runStart = f.start;
      runEnd = f.end;
      runDiff = f.diff;
    }
  }
  runs.push(runDiff.subarray(runStart, runEnd));
  return Buffer.concat(runs);
}
