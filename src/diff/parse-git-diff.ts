import type { ChangeKind } from '../gate/report.js';
import { QuoteError, unquoteC } from './c-quote.js';
import { FileChange, Hunk, type FileMode } from './file-change.js';
import { DiffPath } from './path-text.js';

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

const ascii = (s: string) => Buffer.from(s, 'latin1');
const DIFF_GIT = ascii('diff --git ');
const DIFF_COMBINED = [ascii('diff --cc '), ascii('diff --combined ')];
const MINUS = ascii('--- ');
const PLUS = ascii('+++ ');
const HUNK = ascii('@@ -');
const GIT_BINARY_PATCH = ascii('GIT binary patch');
const BINARY_FILES = ascii('Binary files ');
const DIFFER = ascii(' differ');
const DEV_NULL = ascii('/dev/null');
const A_PREFIX = ascii('a/');
const B_PREFIX = ascii('b/');

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
const EXTENDED_HEADER_BYTES = EXTENDED_HEADERS.map((h) => [h, ascii(h)] as const);

const MODES: ReadonlySet<string> = new Set(['100644', '100755', '120000', '160000']);
const INDEX_LINE = /^([0-9a-f]{4,64})\.\.([0-9a-f]{4,64})(?: ([0-7]{6}))?$/;
const PERCENT = /^(\d{1,3})%$/;
const BINARY_BLOCK = /^(?:literal|delta) \d{1,19}$/;
const MAX_RANGE = 0x7fffffff;

/** `/dev/null` on a `---`/`+++` line: no file on that side. */
const NO_FILE = Symbol('no file');
type FileLineName = Buffer | typeof NO_FILE;

interface Headers {
  oldMode?: FileMode;
  newMode?: FileMode;
  deletedFileMode?: FileMode;
  newFileMode?: FileMode;
  copyFrom?: Buffer;
  copyTo?: Buffer;
  renameFrom?: Buffer;
  renameTo?: Buffer;
  similarity?: number;
  dissimilarity?: number;
  indexMode?: FileMode;
  index?: boolean;
}

class DiffParser {
  private pos = 0;
  private line = 1;
  private readonly files: FileChange[] = [];

  constructor(
    private readonly buf: Buffer,
    private readonly limits: DiffParseLimits,
  ) {}

  parse(): FileChange[] {
    const { buf } = this;
    if (buf.length === 0) return this.files;
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
  private eol(header: boolean): number {
    const end = this.buf.indexOf(0x0a, this.pos);
    if (header && end - this.pos > this.limits.maxHeaderLineBytes)
      this.fail(`header line longer than ${this.limits.maxHeaderLineBytes} bytes`);
    return end;
  }

  private next(end: number): void {
    this.pos = end + 1;
    this.line++;
  }

  private startsWith(prefix: Buffer, end: number): boolean {
    return (
      end - this.pos >= prefix.length &&
      this.buf.compare(prefix, 0, prefix.length, this.pos, this.pos + prefix.length) === 0
    );
  }

  private endsWith(suffix: Buffer, end: number): boolean {
    return (
      end - this.pos >= suffix.length &&
      this.buf.compare(suffix, 0, suffix.length, end - suffix.length, end) === 0
    );
  }

  private text(start: number, end: number): string {
    return this.buf.toString('latin1', start, end);
  }

  private section(): FileChange {
    const start = this.pos;
    let end = this.eol(true);
    if (!this.startsWith(DIFF_GIT, end)) {
      if (DIFF_COMBINED.some((p) => this.startsWith(p, end)))
        this.fail('combined (merge) diffs are not supported');
      this.fail('expected a "diff --git" line');
    }
    const gitNames = this.gitLineNames(this.pos + DIFF_GIT.length, end);
    this.next(end);

    const headers: Headers = {};
    let headerLines = 0;
    let minus: FileLineName | undefined;
    let plus: FileLineName | undefined;
    let binary = false;
    const hunks: Hunk[] = [];
    while (this.pos < this.buf.length) {
      end = this.eol(true);
      if (this.startsWith(DIFF_GIT, end)) break;
      if (this.startsWith(MINUS, end)) {
        minus = this.fileLineName(MINUS, A_PREFIX, end);
        this.next(end);
        end = this.eol(true);
        if (!this.startsWith(PLUS, end)) this.fail('expected a "+++" line after "---"');
        plus = this.fileLineName(PLUS, B_PREFIX, end);
        this.next(end);
        this.hunks(hunks);
        break;
      }
      if (end - this.pos === GIT_BINARY_PATCH.length && this.startsWith(GIT_BINARY_PATCH, end)) {
        this.next(end);
        this.binaryPatch();
        binary = true;
        break;
      }
      if (this.startsWith(BINARY_FILES, end) && this.endsWith(DIFFER, end)) {
        this.next(end);
        binary = true;
        break;
      }
      if (this.startsWith(HUNK, end)) this.fail('hunk without "---" and "+++" lines');
      if (++headerLines > this.limits.maxHeaderLines)
        this.fail(`more than ${this.limits.maxHeaderLines} extended header lines in one file`);
      this.extendedHeader(headers, end);
      this.next(end);
    }
    return this.build(start, gitNames, headers, minus, plus, binary, hunks);
  }

  /**
   * The two names of `diff --git a/X b/Y`. Quoted names are exact; an unquoted pair is only
   * certain when both names are equal (git's own rule), else null and other headers must say.
   */
  private gitLineNames(start: number, end: number): { a: Buffer; b: Buffer } | null {
    const { buf } = this;
    const quoteAt = buf.subarray(start, end).indexOf(0x22);
    const quote = quoteAt === -1 ? -1 : start + quoteAt;
    if (quote !== -1) {
      let a: Buffer;
      let bStart: number;
      if (quote === start) {
        const first = this.unquote(start, end);
        a = first.bytes;
        if (buf[first.next] !== 0x20)
          this.fail('expected a space between the names on the "diff --git" line');
        bStart = first.next + 1;
      } else {
        if (buf[quote - 1] !== 0x20) this.fail('stray quote on the "diff --git" line');
        a = buf.subarray(start, quote - 1);
        bStart = quote;
      }
      let b: Buffer;
      if (buf[bStart] === 0x22) {
        const second = this.unquote(bStart, end);
        if (second.next !== end) this.fail('text after the second name on the "diff --git" line');
        b = second.bytes;
      } else {
        b = buf.subarray(bStart, end);
        if (b.includes(0x22)) this.fail('stray quote on the "diff --git" line');
      }
      return { a: this.stripPrefix(a, A_PREFIX), b: this.stripPrefix(b, B_PREFIX) };
    }
    const length = end - start;
    if ((length - 5) % 2 !== 0 || length < 7) return null;
    const half = (length - 5) / 2;
    const a = buf.subarray(start, start + 2 + half);
    const b = buf.subarray(start + 3 + half, end);
    if (
      buf[start + 2 + half] !== 0x20 ||
      !a.subarray(0, 2).equals(A_PREFIX) ||
      !b.subarray(0, 2).equals(B_PREFIX)
    )
      return null;
    if (!a.subarray(2).equals(b.subarray(2))) return null;
    return { a: a.subarray(2), b: b.subarray(2) };
  }

  private unquote(start: number, end: number): { bytes: Buffer; next: number } {
    try {
      return unquoteC(this.buf, start, end);
    } catch (e) {
      if (e instanceof QuoteError) this.fail(e.message);
      throw e;
    }
  }

  private stripPrefix(name: Buffer, prefix: Buffer): Buffer {
    if (name.length <= prefix.length || !name.subarray(0, prefix.length).equals(prefix))
      this.fail(
        `expected the name ${JSON.stringify(name.toString('latin1'))} to start with ${prefix.toString()}`,
      );
    return name.subarray(prefix.length);
  }

  /** The name on a `---`/`+++` line: `/dev/null`, or the prefixed name, quoted or followed by a tab. */
  private fileLineName(marker: Buffer, prefix: Buffer, end: number): FileLineName {
    const start = this.pos + marker.length;
    if (end - start === DEV_NULL.length && this.buf.compare(DEV_NULL, 0, DEV_NULL.length, start, end) === 0)
      return NO_FILE;
    let name: Buffer;
    let after: number;
    if (this.buf[start] === 0x22) {
      const quoted = this.unquote(start, end);
      name = quoted.bytes;
      after = quoted.next;
    } else {
      const tab = this.buf.subarray(start, end).indexOf(0x09);
      after = tab === -1 ? end : start + tab;
      name = this.buf.subarray(start, after);
    }
    // git ends a name that holds a space with a tab, so trailing spaces stay part of the name.
    if (!(after === end || (after === end - 1 && this.buf[after] === 0x09)))
      this.fail(`unexpected text after the name on the "${marker.toString().trim()}" line`);
    return this.stripPrefix(name, prefix);
  }

  private extendedHeader(headers: Headers, end: number): void {
    const match = EXTENDED_HEADER_BYTES.find(([, bytes]) => this.startsWith(bytes, end));
    if (!match)
      this.fail(
        `unknown line in the header of a file: ${JSON.stringify(this.text(this.pos, end).slice(0, 80))}`,
      );
    const [header, bytes] = match;
    const valueStart = this.pos + bytes.length;
    const value = () => this.text(valueStart, end);
    const once = <K extends keyof Headers>(key: K, v: Headers[K]) => {
      if (headers[key] !== undefined) this.fail(`"${header.trim()}" given twice for one file`);
      headers[key] = v;
    };
    const mode = (): FileMode => {
      const m = value();
      if (!MODES.has(m)) this.fail(`unknown file mode ${JSON.stringify(m.slice(0, 20))}`);
      return m as FileMode;
    };
    const percent = (): number => {
      const m = PERCENT.exec(value());
      if (!m || Number(m[1]) > 100) this.fail(`bad percentage in "${header.trim()}"`);
      return Number(m[1]);
    };
    const path = (): Buffer => {
      if (this.buf[valueStart] !== 0x22) return this.buf.subarray(valueStart, end);
      const quoted = this.unquote(valueStart, end);
      if (quoted.next !== end) this.fail(`text after the name on the "${header.trim()}" line`);
      return quoted.bytes;
    };
    switch (header as ExtendedHeader) {
      case 'old mode ':
        return once('oldMode', mode());
      case 'new mode ':
        return once('newMode', mode());
      case 'deleted file mode ':
        return once('deletedFileMode', mode());
      case 'new file mode ':
        return once('newFileMode', mode());
      case 'copy from ':
        return once('copyFrom', path());
      case 'copy to ':
        return once('copyTo', path());
      case 'rename from ':
        return once('renameFrom', path());
      case 'rename to ':
        return once('renameTo', path());
      case 'similarity index ':
        return once('similarity', percent());
      case 'dissimilarity index ':
        return once('dissimilarity', percent());
      case 'index ': {
        const m = INDEX_LINE.exec(value());
        if (!m) this.fail('malformed "index" line');
        once('index', true);
        if (m[3] !== undefined) {
          if (!MODES.has(m[3])) this.fail(`unknown file mode ${JSON.stringify(m[3])}`);
          headers.indexMode = m[3] as FileMode;
        }
        return;
      }
    }
  }

  /** Hunks, each read by its header's line counts, until the next section or the end. */
  private hunks(into: Hunk[]): void {
    const { buf } = this;
    while (this.pos < buf.length) {
      const start = this.pos;
      const headerEnd = this.eol(true);
      if (!this.startsWith(HUNK, headerEnd)) break;
      const [oldStart, oldLines, newStart, newLines] = this.hunkHeader(start + HUNK.length, headerEnd);
      this.next(headerEnd);
      let oldLeft = oldLines;
      let newLeft = newLines;
      let afterContent = false;
      while (oldLeft > 0 || newLeft > 0 || (afterContent && buf[this.pos] === 0x5c)) {
        if (this.pos >= buf.length) this.fail('the diff ends inside a hunk');
        const c = buf[this.pos];
        if (c === 0x20 || c === 0x0a) {
          // A bare newline is an empty context line, as git apply reads it.
          oldLeft--;
          newLeft--;
        } else if (c === 0x2d) oldLeft--;
        else if (c === 0x2b) newLeft--;
        else if (c !== 0x5c || !afterContent) this.fail('unexpected line inside a hunk');
        if (oldLeft < 0 || newLeft < 0) this.fail('hunk has more lines than its header says');
        afterContent = c !== 0x5c;
        this.next(buf.indexOf(0x0a, this.pos));
      }
      into.push(new Hunk(buf, oldStart, oldLines, newStart, newLines, start, this.pos));
    }
    if (into.length === 0) this.fail('expected a hunk after the "+++" line');
  }

  /** `-a[,b] +c[,d] @@[ context]`, starting after `@@ -`; an omitted count is 1. */
  private hunkHeader(start: number, end: number): [number, number, number, number] {
    const { buf } = this;
    let i = start;
    const number = (): number => {
      let value = 0;
      const from = i;
      while (i < end && buf[i]! >= 0x30 && buf[i]! <= 0x39 && i - from < 11)
        value = value * 10 + buf[i++]! - 0x30;
      if (i === from || value > MAX_RANGE) this.fail('malformed hunk header');
      return value;
    };
    const range = (): [number, number] => {
      const first = number();
      if (buf[i] !== 0x2c) return [first, 1];
      i++;
      return [first, number()];
    };
    const expect = (s: string) => {
      if (end - i < s.length || buf.toString('latin1', i, i + s.length) !== s)
        this.fail('malformed hunk header');
      i += s.length;
    };
    const [oldStart, oldLines] = range();
    expect(' +');
    const [newStart, newLines] = range();
    expect(' @@');
    if (i !== end && buf[i] !== 0x20) this.fail('malformed hunk header');
    return [oldStart, oldLines, newStart, newLines];
  }

  /** `literal N` or `delta N` blocks of base85 lines, each block ending with an empty line. */
  private binaryPatch(): void {
    for (let block = 0; block < 2; block++) {
      if (this.pos >= this.buf.length) break;
      const end = this.eol(true);
      if (!BINARY_BLOCK.test(this.text(this.pos, end))) {
        if (block === 0) this.fail('expected "literal" or "delta" after "GIT binary patch"');
        break;
      }
      this.next(end);
      for (;;) {
        if (this.pos >= this.buf.length) this.fail('the diff ends inside a binary patch');
        const lineEnd = this.buf.indexOf(0x0a, this.pos);
        const length = lineEnd - this.pos;
        if (length === 0) {
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
    gitNames: { a: Buffer; b: Buffer } | null,
    h: Headers,
    minus: FileLineName | undefined,
    plus: FileLineName | undefined,
    binary: boolean,
    hunks: Hunk[],
  ): FileChange {
    const isNew = h.newFileMode !== undefined;
    const isDeleted = h.deletedFileMode !== undefined;
    const renamed = h.renameFrom !== undefined || h.renameTo !== undefined;
    const copied = h.copyFrom !== undefined || h.copyTo !== undefined;
    if (renamed && (h.renameFrom === undefined || h.renameTo === undefined))
      this.fail('"rename from" without "rename to", or the other way round');
    if (copied && (h.copyFrom === undefined || h.copyTo === undefined))
      this.fail('"copy from" without "copy to", or the other way round');
    if ([isNew, isDeleted, renamed, copied].filter(Boolean).length > 1)
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

    let oldName: Buffer;
    let newName: Buffer;
    if (renamed || copied) {
      oldName = (h.renameFrom ?? h.copyFrom)!;
      newName = (h.renameTo ?? h.copyTo)!;
      this.agree('old', oldName, [minus, gitNames?.a]);
      this.agree('new', newName, [plus, gitNames?.b]);
    } else {
      const names = [gitNames?.a, gitNames?.b, minus, plus].filter((n): n is Buffer => n instanceof Buffer);
      if (names.length === 0)
        this.fail(
          'cannot tell the file name: unquoted names differ on the "diff --git" line and no other line names the file',
        );
      oldName = newName = names[0]!;
      this.agree('', oldName, names);
    }

    const oldMode = isNew ? null : (h.deletedFileMode ?? h.oldMode ?? h.indexMode ?? null);
    const newMode = isDeleted ? null : (h.newFileMode ?? h.newMode ?? h.indexMode ?? null);
    let change: ChangeKind;
    if (isNew) change = 'added';
    else if (isDeleted) change = 'deleted';
    else if (renamed) change = 'renamed';
    else if (copied) change = 'copied';
    else if (hunks.length > 0 || binary) change = 'modified';
    else if (oldMode !== newMode) change = 'mode-changed';
    else this.fail('a file section that changes nothing');

    const oldPath = isNew ? null : DiffPath.fromBytes(oldName);
    const newPath = isDeleted ? null : oldName === newName && oldPath ? oldPath : DiffPath.fromBytes(newName);
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
      hunks,
      start,
      this.pos,
    );
  }

  private agree(side: string, name: Buffer, others: readonly (FileLineName | undefined)[]): void {
    for (const other of others)
      if (other instanceof Buffer && !other.equals(name))
        this.fail(`the ${side ? side + ' ' : ''}file name differs between the lines of one file's header`);
  }
}
