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
 * Every hunk of one parsed diff, six numbers each (old start, old lines, new start, new lines,
 * byte start, byte end) in one growing Uint32Array (the parser refuses diffs of 4 GiB or more):
 * a million hunks cost 24 MB instead of a million objects. FileChange builds Hunk objects from it
 * on demand.
 */
export class HunkTable {
  private values = new Uint32Array(6 * 1024);
  private count = 0;

  add(
    oldStart: number,
    oldLines: number,
    newStart: number,
    newLines: number,
    start: number,
    end: number,
  ): void {
    if ((this.count + 1) * 6 > this.values.length) {
      const grown = new Uint32Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    const at = this.count++ * 6;
    const v = this.values;
    v[at] = oldStart;
    v[at + 1] = oldLines;
    v[at + 2] = newStart;
    v[at + 3] = newLines;
    v[at + 4] = start;
    v[at + 5] = end;
  }

  get size(): number {
    return this.count;
  }

  hunk(source: Buffer, index: number): Hunk {
    const at = index * 6;
    const v = this.values;
    return new Hunk(source, v[at]!, v[at + 1]!, v[at + 2]!, v[at + 3]!, v[at + 4]!, v[at + 5]!);
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
    private readonly hunkTable: HunkTable,
    private readonly firstHunk: number,
    /** How many hunks the section has. */
    readonly hunkCount: number,
    /** Byte offsets, in the parsed diff, of the `diff --git` line and just past the section. */
    readonly start: number,
    readonly end: number,
  ) {}

  /** The section's hunks, in order (built on each call: keep the array if you need it twice). */
  get hunks(): Hunk[] {
    const hunks: Hunk[] = [];
    for (let i = 0; i < this.hunkCount; i++) hunks.push(this.hunk(i));
    return hunks;
  }

  /** The section's i-th hunk (0-based). */
  hunk(i: number): Hunk {
    if (!(i >= 0 && i < this.hunkCount))
      throw new RangeError(`no hunk ${i} in a section of ${this.hunkCount}`);
    return this.hunkTable.hunk(this.source, this.firstHunk + i);
  }

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
