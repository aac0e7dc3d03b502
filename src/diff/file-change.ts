import type { ChangeKind } from '../gate/report.js';
import type { DiffPath } from './path-text.js';

/** git's file modes as a diff prints them (git canonicalises every mode to one of these). */
export type FileMode = '100644' | '100755' | '120000' | '160000';

export const SYMLINK_MODE = '120000';
export const GITLINK_MODE = '160000';

/** One `@@ -a,b +c,d @@` hunk; its bytes are a view of the diff it was parsed from. */
export class Hunk {
  constructor(
    private readonly source: Buffer,
    readonly oldStart: number,
    readonly oldLines: number,
    readonly newStart: number,
    readonly newLines: number,
    /** Byte offsets, in the parsed diff, of the hunk header line and just past its last line. */
    readonly start: number,
    readonly end: number,
  ) {}

  /** The hunk header line through its last line (and any `\ No newline` marker), newline included. */
  get raw(): Buffer {
    return this.source.subarray(this.start, this.end);
  }
}

/**
 * One `diff --git` section: everything git's patch says about one file (or, for a rename or
 * copy, one pair of files). Its bytes are a view of the diff it was parsed from.
 */
export class FileChange {
  constructor(
    private readonly source: Buffer,
    /** The path before the change; null for an added file. */
    readonly oldPath: DiffPath | null,
    /** The path after the change; null for a deleted file. */
    readonly newPath: DiffPath | null,
    readonly change: ChangeKind,
    /** Null where the file does not exist on that side, or the diff does not say (a pure rename). */
    readonly oldMode: FileMode | null,
    readonly newMode: FileMode | null,
    /** A `GIT binary patch` or a `Binary files ... differ` line instead of hunks. */
    readonly binary: boolean,
    /** `similarity index` of a rename or copy, in percent. */
    readonly similarity: number | null,
    readonly hunks: readonly Hunk[],
    /** Byte offsets, in the parsed diff, of the `diff --git` line and just past the section. */
    readonly start: number,
    readonly end: number,
  ) {}

  /** The whole section, from its `diff --git` line on: applying it alone makes this change. */
  get raw(): Buffer {
    return this.source.subarray(this.start, this.end);
  }

  /** The diff this section was parsed from. */
  get diff(): Buffer {
    return this.source;
  }

  get symlink(): boolean {
    return this.oldMode === SYMLINK_MODE || this.newMode === SYMLINK_MODE;
  }

  get submodule(): boolean {
    return this.oldMode === GITLINK_MODE || this.newMode === GITLINK_MODE;
  }

  /** The path people should see for this section: the new path, or the old one of a deletion. */
  get path(): DiffPath {
    return (this.newPath ?? this.oldPath)!;
  }
}
