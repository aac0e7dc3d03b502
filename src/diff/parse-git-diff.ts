import type { ChangeKind } from '../gate/report.js';
import { QuoteError, unquoteC } from './c-quote.js';
import { FileChange, HunkTable, type FileMode } from './file-change.js';
import { bytesToPathText, DiffPath } from './path-text.js';

/**
 * Parses the bytes of `git diff` output (git's patch format, as read-pr-diff.ts produces it) into
 * one FileChange per `diff --git` section. Works on a Buffer, never a decoded string: names and
 * contents may be any bytes. Hunks are read by the line counts in their headers, so no content
 * line, however it starts, is mistaken for a header. Every extended header git writes is
 * understood; anything else, and any disagreement between the names a section gives for its
 * file, is a DiffParseError: the gate fails closed rather than guess what a patch touches.
 *
 * The parse libraries on npm (parse-diff, parse-git-diff, gitdiff-parser) work on strings, leave
 * quoted names undecoded or mangle them, and misread binary patches; none keeps the raw bytes a
 * filtered diff is cut from. Hence this parser.
 */

export interface DiffParseLimits {
  /** Most `diff --git` sections in one diff. */
  maxFiles: number;
  /** Most extended header lines (modes, index, rename/copy, similarity) in one section. */
  maxHeaderLines: number;
  /** Longest header line (`diff --git`, `---`, `+++`, extended header, hunk header), in bytes. */
  maxHeaderLineBytes: number;
}

/** Byte offsets are kept as 32-bit numbers (file-change.ts HunkTable). */
const MAX_DIFF_BYTES = 0xffffffff;

export const DEFAULT_DIFF_PARSE_LIMITS: DiffParseLimits = {
  maxFiles: 1_000_000,
  maxHeaderLines: 16,
  maxHeaderLineBytes: 64 * 1024,
};

export class DiffParseError extends Error {
  constructor(
    readonly reason: string,
    /** 1-based line of the diff where parsing stopped. */
    readonly line: number,
  ) {
    super(`cannot parse the diff at line ${line}: ${reason}`);
  }
}

export function parseGitDiff(diff: Buffer, limits: Partial<DiffParseLimits> = {}): FileChange[] {
  return new DiffParser(diff, { ...DEFAULT_DIFF_PARSE_LIMITS, ...limits }).parse();
}

const ascii = (s: string) => Uint8Array.from(Buffer.from(s, 'latin1'));
const DIFF_GIT = ascii('diff --git ');
const DIFF_COMBINED = [ascii('diff --cc '), ascii('diff --combined ')];
const MINUS = ascii('--- ');
const PLUS = ascii('+++ ');
const HUNK = ascii('@@ -');
const GIT_BINARY_PATCH = ascii('GIT binary patch');
const BINARY_FILES = ascii('Binary files ');
const DIFFER = ascii(' differ');
const DEV_NULL = ascii('/dev/null');
const A_PREFIX = 'a/';
const B_PREFIX = 'b/';

const MODE_BYTES = (['100644', '100755', '120000', '160000'] as const).map((m) => [m, ascii(m)] as const);
const PERCENT = /^(\d{1,3})%$/;
const BINARY_BLOCK = /^(?:literal|delta) \d{1,19}$/;
const MAX_RANGE = 0x7fffffff;

/** `/dev/null` on a `---`/`+++` line: no file on that side. */
const NO_FILE = Symbol('no file');
/**
 * Names are kept as lossless path text (path-text.ts) while parsing: one-to-one with the bytes, so
 * comparing texts compares bytes, and an ASCII name costs one string.
 */
type FileLineName = string | typeof NO_FILE;

/** The extended headers of one section; a field is set at most once. */
class Headers {
  oldMode: FileMode | undefined = undefined;
  newMode: FileMode | undefined = undefined;
  deletedFileMode: FileMode | undefined = undefined;
  newFileMode: FileMode | undefined = undefined;
  copyFrom: string | undefined = undefined;
  copyTo: string | undefined = undefined;
  renameFrom: string | undefined = undefined;
  renameTo: string | undefined = undefined;
  similarity: number | undefined = undefined;
  dissimilarity: number | undefined = undefined;
  indexMode: FileMode | undefined = undefined;
  index: boolean | undefined = undefined;

  /** Clears every field, so one instance serves every section. */
  reset(): this {
    this.oldMode = this.newMode = this.deletedFileMode = this.newFileMode = undefined;
    this.copyFrom = this.copyTo = this.renameFrom = this.renameTo = undefined;
    this.similarity = this.dissimilarity = undefined;
    this.indexMode = undefined;
    this.index = undefined;
    return this;
  }
}

class DiffParser {
  private pos = 0;
  private line = 1;
  private readonly files: FileChange[] = [];
  private readonly hunkTable = new HunkTable();
  private readonly headers = new Headers();
  /** The names on the current section's `diff --git` line, when certain (see gitLineNames). */
  private gitA: string | null = null;
  private gitB: string | null = null;
  /** Where gitA's bytes are when it was written unquoted (-1 otherwise), to reuse its string. */
  private gitAStart = -1;
  private gitAEnd = -1;
  /** The current hunk header's ranges, and the last number read. */
  private oldStart = 0;
  private oldLines = 0;
  private newStart = 0;
  private newLines = 0;
  private value = 0;

  constructor(
    private readonly buf: Buffer,
    private readonly limits: DiffParseLimits,
  ) {}

  parse(): FileChange[] {
    const { buf } = this;
    if (buf.length === 0) return this.files;
    if (buf.length > MAX_DIFF_BYTES) throw new DiffParseError('the diff is 4 GiB or larger', 1);
    if (buf[buf.length - 1] !== 0x0a) {
      let lines = 1;
      for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, i + 1)) lines++;
      throw new DiffParseError('the diff does not end with a newline (truncated?)', lines);
    }
    while (this.pos < buf.length) {
      if (this.files.length >= this.limits.maxFiles)
        this.fail(`more than ${this.limits.maxFiles} files in one diff`);
      this.files.push(this.section());
    }
    return this.files;
  }

  private fail(reason: string): never {
    throw new DiffParseError(reason, this.line);
  }

  /** End of the current line (offset of its newline); header lines are capped in length. */
  private eol(): number {
    const end = this.buf.indexOf(0x0a, this.pos);
    if (end - this.pos > this.limits.maxHeaderLineBytes)
      this.fail(`header line longer than ${this.limits.maxHeaderLineBytes} bytes`);
    return end;
  }

  private next(end: number): void {
    this.pos = end + 1;
    this.line++;
  }

  /** The bytes at `at` (before `end`) are `literal`. A loop: cheaper than Buffer#compare for a few bytes. */
  private bytesAt(at: number, end: number, literal: Uint8Array): boolean {
    if (end - at < literal.length) return false;
    const { buf } = this;
    for (let i = 0; i < literal.length; i++) if (buf[at + i] !== literal[i]) return false;
    return true;
  }

  private startsWith(literal: Uint8Array, end: number): boolean {
    return this.bytesAt(this.pos, end, literal);
  }

  private text(start: number, end: number): string {
    return this.buf.toString('latin1', start, end);
  }

  /** Lossless path text of buf[start, end). */
  private name(start: number, end: number): string {
    const { buf } = this;
    let high = false;
    for (let i = start; i < end; i++) {
      const c = buf[i]!;
      // git quotes every name holding one, and git apply ends an unquoted name at a CR: taken
      // as part of the name, a path the policy judged would differ from the one applied.
      if (c < 0x20 || c === 0x7f) this.fail('an unquoted name holds a control character (git quotes those)');
      if (c >= 0x80) high = true;
    }
    return high ? bytesToPathText(buf, start, end) : buf.toString('latin1', start, end);
  }

  private section(): FileChange {
    const start = this.pos;
    let end = this.eol();
    if (!this.startsWith(DIFF_GIT, end)) {
      if (DIFF_COMBINED.some((p) => this.startsWith(p, end)))
        this.fail('combined (merge) diffs are not supported');
      this.fail('expected a "diff --git" line');
    }
    this.gitLineNames(this.pos + DIFF_GIT.length, end);
    this.next(end);

    const headers = this.headers.reset();
    let headerLines = 0;
    let minus: FileLineName | undefined;
    let plus: FileLineName | undefined;
    let binary = false;
    const firstHunk = this.hunkTable.size;
    const { buf } = this;
    while (this.pos < buf.length) {
      end = this.eol();
      const first = buf[this.pos];
      if (first === 0x64 /* d */ && this.startsWith(DIFF_GIT, end)) break;
      if (first === 0x2d /* - */ && this.startsWith(MINUS, end)) {
        minus = this.fileLineName(MINUS.length, A_PREFIX, end, '---');
        this.next(end);
        end = this.eol();
        if (!this.startsWith(PLUS, end)) this.fail('expected a "+++" line after "---"');
        plus = this.fileLineName(PLUS.length, B_PREFIX, end, '+++');
        this.next(end);
        this.hunks();
        break;
      }
      if (
        first === 0x47 /* G */ &&
        end - this.pos === GIT_BINARY_PATCH.length &&
        this.startsWith(GIT_BINARY_PATCH, end)
      ) {
        this.next(end);
        this.binaryPatch();
        binary = true;
        break;
      }
      if (
        first === 0x42 /* B */ &&
        this.startsWith(BINARY_FILES, end) &&
        this.bytesAt(end - DIFFER.length, end, DIFFER)
      ) {
        this.next(end);
        binary = true;
        break;
      }
      if (first === 0x40 /* @ */ && this.startsWith(HUNK, end))
        this.fail('hunk without "---" and "+++" lines');
      if (++headerLines > this.limits.maxHeaderLines)
        this.fail(`more than ${this.limits.maxHeaderLines} extended header lines in one file`);
      this.extendedHeader(headers, end);
      this.next(end);
    }
    return this.build(start, headers, minus, plus, binary, firstHunk, this.hunkTable.size - firstHunk);
  }

  /**
   * Sets gitA/gitB to the two names of `diff --git a/X b/Y`. Quoted names are exact; an unquoted
   * pair is only certain when both names are equal (git's own rule), else both are null and other
   * headers must say.
   */
  private gitLineNames(start: number, end: number): void {
    const { buf } = this;
    this.gitA = this.gitB = null;
    this.gitAStart = this.gitAEnd = -1;
    let quote = -1;
    for (let i = start; i < end; i++)
      if (buf[i] === 0x22) {
        quote = i;
        break;
      }
    if (quote !== -1) {
      let a: string;
      let bStart: number;
      if (quote === start) {
        const first = this.unquote(start, end);
        a = first.text;
        if (buf[first.next] !== 0x20)
          this.fail('expected a space between the names on the "diff --git" line');
        bStart = first.next + 1;
      } else {
        if (buf[quote - 1] !== 0x20) this.fail('stray quote on the "diff --git" line');
        a = this.name(start, quote - 1);
        bStart = quote;
      }
      let b: string;
      if (buf[bStart] === 0x22) {
        const second = this.unquote(bStart, end);
        if (second.next !== end) this.fail('text after the second name on the "diff --git" line');
        b = second.text;
      } else {
        b = this.name(bStart, end);
        if (b.includes('"')) this.fail('stray quote on the "diff --git" line');
      }
      this.gitA = this.stripPrefix(a, A_PREFIX);
      this.gitB = this.stripPrefix(b, B_PREFIX);
      return;
    }
    // Unquoted: "a/" N " b/" N, so N's length follows from the line's.
    const length = end - start;
    if ((length - 5) % 2 !== 0 || length < 7) return;
    const half = (length - 5) / 2;
    const bStart = start + 3 + half;
    if (buf[start] !== 0x61 || buf[start + 1] !== 0x2f || buf[start + 2 + half] !== 0x20) return;
    if (buf[bStart] !== 0x62 || buf[bStart + 1] !== 0x2f) return;
    for (let i = 0; i < half; i++) if (buf[start + 2 + i] !== buf[bStart + 2 + i]) return;
    this.gitA = this.gitB = this.name(start + 2, start + 2 + half);
    this.gitAStart = start + 2;
    this.gitAEnd = start + 2 + half;
  }

  /** buf[start, end) holds the same bytes as the unquoted name on the `diff --git` line. */
  private sameAsGitName(start: number, end: number): boolean {
    const from = this.gitAStart;
    if (from === -1 || end - start !== this.gitAEnd - from) return false;
    const { buf } = this;
    for (let i = 0; i < end - start; i++) if (buf[start + i] !== buf[from + i]) return false;
    return true;
  }

  private unquote(start: number, end: number): { text: string; next: number } {
    try {
      const { bytes, next } = unquoteC(this.buf, start, end);
      return { text: bytesToPathText(bytes), next };
    } catch (e) {
      if (e instanceof QuoteError) this.fail(e.message);
      throw e;
    }
  }

  private stripPrefix(name: string, prefix: string): string {
    if (name.length <= prefix.length || !name.startsWith(prefix))
      this.fail(`expected the name ${JSON.stringify(name)} to start with ${prefix}`);
    return name.slice(prefix.length);
  }

  /** The name on a `---`/`+++` line: `/dev/null`, or the prefixed name, quoted or followed by a tab. */
  private fileLineName(markerLength: number, prefix: string, end: number, marker: string): FileLineName {
    const { buf } = this;
    const start = this.pos + markerLength;
    if (end - start === DEV_NULL.length && this.bytesAt(start, end, DEV_NULL)) return NO_FILE;
    let name: string;
    let after: number;
    if (buf[start] === 0x22) {
      const quoted = this.unquote(start, end);
      name = this.stripPrefix(quoted.text, prefix);
      after = quoted.next;
    } else {
      after = end;
      for (let i = start; i < end; i++)
        if (buf[i] === 0x09) {
          after = i;
          break;
        }
      if (after - start <= prefix.length || buf[start] !== prefix.charCodeAt(0) || buf[start + 1] !== 0x2f)
        this.stripPrefix(this.name(start, after), prefix); // fails, naming the name
      // Usually the same bytes as the diff --git line: reuse that string.
      name = this.sameAsGitName(start + 2, after) ? this.gitA! : this.name(start + 2, after);
    }
    // git ends a name that holds a space with a tab, so trailing spaces stay part of the name.
    if (!(after === end || (after === end - 1 && buf[after] === 0x09)))
      this.fail(`unexpected text after the name on the "${marker}" line`);
    return name;
  }

  private extendedHeader(h: Headers, end: number): void {
    const header = this.extendedHeaderName(end);
    if (header === undefined)
      this.fail(
        `unknown line in the header of a file: ${JSON.stringify(this.text(this.pos, end).slice(0, 80))}`,
      );
    const at = this.pos + header.length;
    switch (header) {
      case 'old mode ':
        h.oldMode = this.once(h.oldMode, header, this.mode(at, end));
        return;
      case 'new mode ':
        h.newMode = this.once(h.newMode, header, this.mode(at, end));
        return;
      case 'deleted file mode ':
        h.deletedFileMode = this.once(h.deletedFileMode, header, this.mode(at, end));
        return;
      case 'new file mode ':
        h.newFileMode = this.once(h.newFileMode, header, this.mode(at, end));
        return;
      case 'copy from ':
        h.copyFrom = this.once(h.copyFrom, header, this.headerPath(at, end, header));
        return;
      case 'copy to ':
        h.copyTo = this.once(h.copyTo, header, this.headerPath(at, end, header));
        return;
      case 'rename from ':
        h.renameFrom = this.once(h.renameFrom, header, this.headerPath(at, end, header));
        return;
      case 'rename to ':
        h.renameTo = this.once(h.renameTo, header, this.headerPath(at, end, header));
        return;
      case 'similarity index ':
        h.similarity = this.once(h.similarity, header, this.percent(at, end, header));
        return;
      case 'dissimilarity index ':
        h.dissimilarity = this.once(h.dissimilarity, header, this.percent(at, end, header));
        return;
      case 'index ':
        h.index = this.once(h.index, header, true);
        h.indexMode = this.indexLine(at, end);
        return;
    }
  }

  private once<T>(previous: T | undefined, header: string, value: T): T {
    if (previous !== undefined) this.fail(`"${header.trim()}" given twice for one file`);
    return value;
  }

  /** One of git's four modes, as the shared constant string (no allocation per file). */
  private mode(start: number, end: number): FileMode {
    if (end - start === 6)
      for (const [mode, bytes] of MODE_BYTES) if (this.bytesAt(start, end, bytes)) return mode;
    this.fail(`unknown file mode ${JSON.stringify(this.text(start, end).slice(0, 20))}`);
  }

  private percent(start: number, end: number, header: string): number {
    const m = PERCENT.exec(this.text(start, end));
    if (!m || Number(m[1]) > 100) this.fail(`bad percentage in "${header.trim()}"`);
    return Number(m[1]);
  }

  private headerPath(start: number, end: number, header: string): string {
    if (this.buf[start] !== 0x22) return this.name(start, end);
    const quoted = this.unquote(start, end);
    if (quoted.next !== end) this.fail(`text after the name on the "${header.trim()}" line`);
    return quoted.text;
  }

  /** Which extended header the current line is, by its first bytes. */
  private extendedHeaderName(end: number): ExtendedHeader | undefined {
    const candidates = EXTENDED_HEADERS_BY_FIRST_BYTE.get(this.buf[this.pos]!);
    if (candidates) for (const [name, bytes] of candidates) if (this.startsWith(bytes, end)) return name;
    return undefined;
  }

  /** `<hex>..<hex>[ <mode>]` (4 to 64 lowercase hex digits each side); returns the mode if given. */
  private indexLine(start: number, end: number): FileMode | undefined {
    const { buf } = this;
    const hex = (from: number): number => {
      let i = from;
      while (i < end && ((buf[i]! >= 0x30 && buf[i]! <= 0x39) || (buf[i]! >= 0x61 && buf[i]! <= 0x66))) i++;
      if (i - from < 4 || i - from > 64) this.fail('malformed "index" line');
      return i;
    };
    let i = hex(start);
    if (buf[i] !== 0x2e || buf[i + 1] !== 0x2e) this.fail('malformed "index" line');
    i = hex(i + 2);
    if (i === end) return undefined;
    if (buf[i] !== 0x20) this.fail('malformed "index" line');
    return this.mode(i + 1, end);
  }

  /** Hunks, each read by its header's line counts, until the next section or the end. */
  private hunks(): void {
    const { buf } = this;
    const first = this.hunkTable.size;
    const length = buf.length;
    while (this.pos < length) {
      const start = this.pos;
      const headerEnd = this.eol();
      if (!this.startsWith(HUNK, headerEnd)) break;
      this.hunkHeader(start + HUNK.length, headerEnd);
      const { oldStart, oldLines, newStart, newLines } = this;
      let p = headerEnd + 1;
      let line = this.line + 1;
      let oldLeft = oldLines;
      let newLeft = newLines;
      let afterContent = false;
      while (oldLeft > 0 || newLeft > 0 || (afterContent && buf[p] === 0x5c)) {
        if (p >= length) {
          this.line = line;
          this.fail('the diff ends inside a hunk');
        }
        const c = buf[p];
        if (c === 0x20 || c === 0x0a) {
          // A bare newline is an empty context line, as git apply reads it.
          oldLeft--;
          newLeft--;
        } else if (c === 0x2d) oldLeft--;
        else if (c === 0x2b) newLeft--;
        else if (c !== 0x5c || !afterContent) {
          this.line = line;
          this.fail('unexpected line inside a hunk');
        }
        if (oldLeft < 0 || newLeft < 0) {
          this.line = line;
          this.fail('hunk has more lines than its header says');
        }
        afterContent = c !== 0x5c;
        p = buf.indexOf(0x0a, p) + 1;
        line++;
      }
      this.pos = p;
      this.line = line;
      this.hunkTable.add(oldStart, oldLines, newStart, newLines, start, p);
    }
    if (this.hunkTable.size === first) this.fail('expected a hunk after the "+++" line');
  }

  /**
   * `-a[,b] +c[,d] @@[ context]`, starting after `@@ -`; an omitted count is 1. Sets the range
   * fields (no array or closure per hunk: a big diff has hundreds of thousands).
   */
  private hunkHeader(start: number, end: number): void {
    const { buf } = this;
    let i = this.hunkNumber(start, end);
    this.oldStart = this.value;
    this.oldLines = 1;
    if (buf[i] === 0x2c) {
      i = this.hunkNumber(i + 1, end);
      this.oldLines = this.value;
    }
    if (buf[i] !== 0x20 || buf[i + 1] !== 0x2b) this.fail('malformed hunk header');
    i = this.hunkNumber(i + 2, end);
    this.newStart = this.value;
    this.newLines = 1;
    if (buf[i] === 0x2c) {
      i = this.hunkNumber(i + 1, end);
      this.newLines = this.value;
    }
    if (i + 3 > end || buf[i] !== 0x20 || buf[i + 1] !== 0x40 || buf[i + 2] !== 0x40)
      this.fail('malformed hunk header');
    i += 3;
    if (i !== end && buf[i] !== 0x20) this.fail('malformed hunk header');
  }

  /** Reads decimal digits at `start` into `value`; returns the offset after them. */
  private hunkNumber(start: number, end: number): number {
    const { buf } = this;
    let i = start;
    let value = 0;
    while (i < end && buf[i]! >= 0x30 && buf[i]! <= 0x39 && i - start < 11)
      value = value * 10 + buf[i++]! - 0x30;
    if (i === start || value > MAX_RANGE) this.fail('malformed hunk header');
    this.value = value;
    return i;
  }

  /** `literal N` or `delta N` blocks of base85 lines, each block ending with an empty line. */
  private binaryPatch(): void {
    for (let block = 0; block < 2; block++) {
      // git apply stops at a binary patch it cannot read yet exits 0, having applied only the
      // sections before it: every block must be whole, and the first must be there.
      if (this.pos >= this.buf.length) {
        if (block === 0) this.fail('expected "literal" or "delta" after "GIT binary patch"');
        break;
      }
      const end = this.eol();
      if (!BINARY_BLOCK.test(this.text(this.pos, end))) {
        if (block === 0) this.fail('expected "literal" or "delta" after "GIT binary patch"');
        break;
      }
      this.next(end);
      for (let lines = 0; ; lines++) {
        if (this.pos >= this.buf.length) this.fail('the diff ends inside a binary patch');
        const lineEnd = this.buf.indexOf(0x0a, this.pos);
        const length = lineEnd - this.pos;
        if (length === 0) {
          if (lines === 0) this.fail('a binary patch block holds no data');
          this.next(lineEnd);
          break;
        }
        const c = this.buf[this.pos]!;
        const bytes = c >= 0x41 && c <= 0x5a ? c - 0x40 : c >= 0x61 && c <= 0x7a ? c - 0x60 + 26 : 0;
        if (bytes === 0 || length !== 1 + Math.ceil(bytes / 4) * 5) this.fail('malformed binary patch line');
        this.next(lineEnd);
      }
    }
  }

  private build(
    start: number,
    h: Headers,
    minus: FileLineName | undefined,
    plus: FileLineName | undefined,
    binary: boolean,
    firstHunk: number,
    hunkCount: number,
  ): FileChange {
    const isNew = h.newFileMode !== undefined;
    const isDeleted = h.deletedFileMode !== undefined;
    const renamed = h.renameFrom !== undefined || h.renameTo !== undefined;
    const copied = h.copyFrom !== undefined || h.copyTo !== undefined;
    if (renamed && (h.renameFrom === undefined || h.renameTo === undefined))
      this.fail('"rename from" without "rename to", or the other way round');
    if (copied && (h.copyFrom === undefined || h.copyTo === undefined))
      this.fail('"copy from" without "copy to", or the other way round');
    if (+isNew + +isDeleted + +renamed + +copied > 1)
      this.fail('a file is at most one of new, deleted, renamed and copied');
    if ((h.oldMode === undefined) !== (h.newMode === undefined))
      this.fail('"old mode" without "new mode", or the other way round');
    if (h.oldMode !== undefined && (isNew || isDeleted || h.indexMode !== undefined))
      this.fail('"old mode"/"new mode" with a new or deleted file or a mode on the "index" line');
    if (h.indexMode !== undefined && (isNew || isDeleted))
      this.fail('a mode on the "index" line of a new or deleted file');
    if (minus === NO_FILE && !isNew) this.fail('"--- /dev/null" for a file that is not new');
    if (plus === NO_FILE && !isDeleted) this.fail('"+++ /dev/null" for a file that is not deleted');
    if (isNew && minus !== undefined && minus !== NO_FILE) this.fail('a new file with an old name on "---"');
    if (isDeleted && plus !== undefined && plus !== NO_FILE)
      this.fail('a deleted file with a new name on "+++"');

    let oldName: string;
    let newName: string;
    if (renamed || copied) {
      oldName = (h.renameFrom ?? h.copyFrom)!;
      newName = (h.renameTo ?? h.copyTo)!;
      this.agree('old ', oldName, minus, this.gitA);
      this.agree('new ', newName, plus, this.gitB);
    } else {
      const name =
        this.gitA ??
        (typeof minus === 'string' ? minus : undefined) ??
        (typeof plus === 'string' ? plus : undefined);
      if (name === undefined)
        this.fail(
          'cannot tell the file name: unquoted names differ on the "diff --git" line and no other line names the file',
        );
      this.agree('', name, minus, plus, this.gitB);
      oldName = newName = name;
    }

    const oldMode = isNew ? null : (h.deletedFileMode ?? h.oldMode ?? h.indexMode ?? null);
    const newMode = isDeleted ? null : (h.newFileMode ?? h.newMode ?? h.indexMode ?? null);
    let change: ChangeKind;
    if (isNew) change = 'added';
    else if (isDeleted) change = 'deleted';
    else if (renamed) change = 'renamed';
    else if (copied) change = 'copied';
    else if (hunkCount > 0 || binary) change = 'modified';
    else if (oldMode !== newMode) change = 'mode-changed';
    else this.fail('a file section that changes nothing');

    const oldPath = isNew ? null : new DiffPath(oldName);
    const newPath = isDeleted ? null : oldName === newName && oldPath ? oldPath : new DiffPath(newName);
    const similarity = renamed || copied ? (h.similarity ?? null) : null;
    return new FileChange(
      this.buf,
      oldPath,
      newPath,
      change,
      oldMode,
      newMode,
      binary,
      similarity,
      this.hunkTable,
      firstHunk,
      hunkCount,
      start,
      this.pos,
    );
  }

  /** Every name given (a `---`/`+++` name, a `diff --git` name) must be `name`. */
  private agree(side: string, name: string, ...others: (FileLineName | null | undefined)[]): void {
    for (const other of others)
      if (typeof other === 'string' && other !== name)
        this.fail(`the ${side}file name differs between the lines of one file's header`);
  }
}

const EXTENDED_HEADERS = [
  'old mode ',
  'new mode ',
  'deleted file mode ',
  'new file mode ',
  'copy from ',
  'copy to ',
  'rename from ',
  'rename to ',
  'similarity index ',
  'dissimilarity index ',
  'index ',
] as const;
type ExtendedHeader = (typeof EXTENDED_HEADERS)[number];
const EXTENDED_HEADERS_BY_FIRST_BYTE = new Map<number, [ExtendedHeader, Uint8Array][]>();
for (const header of EXTENDED_HEADERS) {
  const bytes = ascii(header);
  const list = EXTENDED_HEADERS_BY_FIRST_BYTE.get(bytes[0]!) ?? [];
  list.push([header, bytes]);
  EXTENDED_HEADERS_BY_FIRST_BYTE.set(bytes[0]!, list);
}
