import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { TestStatus } from '../gate/report.js';
import { testId } from './test-id.js';

/**
 * JUnit XML from a test run, parsed as hostile input. saxes is a strict, well-formedness-checking
 * XML parser that never expands entities declared in a DTD (only the five predefined ones and
 * character references, each checked against XML's Char production); on top of that a DOCTYPE is
 * refused outright, and size, depth and test count are capped. Past a cap the report is rejected,
 * never truncated: a cut list of tests would be a different list.
 */

export interface JUnitCase {
  id: string;
  classname: string;
  name: string;
  file?: string;
  line?: number;
  status: TestStatus;
  /** The failure, error or skip message, cut to `maxMessageChars`. Untrusted. */
  message?: string;
}

export interface JUnitLimits {
  maxBytes: number;
  maxCases: number;
  maxDepth: number;
  maxMessageChars: number;
  maxIdChars: number;
}

export const DEFAULT_JUNIT_LIMITS: JUnitLimits = {
  maxBytes: 32 * 1024 * 1024,
  maxCases: 100_000,
  maxDepth: 64,
  maxMessageChars: 4096,
  maxIdChars: 8192,
};

export type JUnitParse = { ok: true; cases: JUnitCase[] } | { ok: false; error: string };

class ReportRejected extends Error {}

const OUTCOME_ELEMENTS: Record<string, TestStatus> = {
  failure: 'failed',
  error: 'error',
  skipped: 'skipped',
};
// When a testcase holds several outcome elements, the worst one counts.
const SEVERITY: Record<TestStatus, number> = { passed: 0, skipped: 1, failed: 2, error: 3 };

interface OpenCase {
  classname: string;
  name: string;
  file?: string;
  line?: number;
  status: TestStatus;
  message: string;
  /** Depth of the outcome element whose text is being collected, if any, and that text. */
  collecting?: number;
  body: string;
}

function decode(input: Buffer | string, maxBytes: number): string {
  if (typeof input === 'string') {
    if (Buffer.byteLength(input, 'utf8') > maxBytes)
      throw new ReportRejected(`larger than ${maxBytes} bytes`);
    return input.startsWith('\uFEFF') ? input.slice(1) : input;
  }
  if (input.length > maxBytes) throw new ReportRejected(`larger than ${maxBytes} bytes`);
  try {
    // fatal: bytes that are not UTF-8 are refused instead of being replaced (and so merging IDs).
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(input);
  } catch {
    throw new ReportRejected('not valid UTF-8');
  }
}

function appendCapped(current: string, more: string, cap: number): string {
  if (current.length >= cap) return current;
  const next = current + more;
  return next.length > cap ? `${next.slice(0, cap)}…[cut]` : next;
}

function parseLine(value: string | undefined): number | undefined {
  if (value === undefined || !/^[0-9]{1,9}$/.test(value)) return undefined;
  return Number(value);
}

/** Parses one JUnit XML report. Never throws: a report it cannot vouch for is `{ ok: false }`. */
export function parseJUnit(input: Buffer | string, limits: JUnitLimits = DEFAULT_JUNIT_LIMITS): JUnitParse {
  try {
    return { ok: true, cases: parseOrThrow(decode(input, limits.maxBytes), limits) };
  } catch (error) {
    if (error instanceof ReportRejected) return { ok: false, error: error.message };
    // saxes reports well-formedness errors as plain Errors carrying a position.
    return { ok: false, error: `not well-formed XML: ${(error as Error).message.slice(0, 300)}` };
  }
}

function parseOrThrow(text: string, limits: JUnitLimits): JUnitCase[] {
  const parser = new SaxesParser({ xmlns: false, position: true });
  const stack: string[] = [];
  const cases: JUnitCase[] = [];
  let open: OpenCase | undefined;

  parser.on('error', (error) => {
    throw error;
  });
  parser.on('xmldecl', (decl) => {
    if (decl.encoding !== undefined && !/^utf-?8$/i.test(decl.encoding)) {
      throw new ReportRejected(
        `declares encoding ${JSON.stringify(decl.encoding.slice(0, 40))}; only UTF-8 is read`,
      );
    }
  });
  parser.on('doctype', () => {
    throw new ReportRejected('has a DOCTYPE; JUnit reports never need one, and it is how entity bombs start');
  });
  parser.on('opentag', (tag: SaxesTagPlain) => {
    const name = tag.name;
    const parent = stack[stack.length - 1];
    stack.push(name);
    if (stack.length > limits.maxDepth)
      throw new ReportRejected(`nested deeper than ${limits.maxDepth} elements`);
    if (stack.length === 1) {
      if (name !== 'testsuites' && name !== 'testsuite') {
        throw new ReportRejected(`root element is <${name.slice(0, 40)}>, not <testsuites> or <testsuite>`);
      }
      return;
    }
    if (name === 'testsuite' && parent !== 'testsuites' && parent !== 'testsuite') {
      throw new ReportRejected('a <testsuite> outside <testsuites>');
    }
    if (name === 'testcase') {
      if (parent !== 'testsuite') throw new ReportRejected('a <testcase> outside a <testsuite>');
      const attrs = tag.attributes;
      if (attrs.name === undefined) throw new ReportRejected('a <testcase> without a name');
      open = {
        classname: attrs.classname ?? '',
        name: attrs.name,
        status: 'passed',
        message: '',
        body: '',
        ...(attrs.file !== undefined ? { file: attrs.file } : {}),
        ...(parseLine(attrs.line) !== undefined ? { line: parseLine(attrs.line) } : {}),
      };
      return;
    }
    if (open !== undefined && parent === 'testcase' && name in OUTCOME_ELEMENTS) {
      const status = OUTCOME_ELEMENTS[name] as TestStatus;
      if (SEVERITY[status] > SEVERITY[open.status]) open.status = status;
      const message = tag.attributes.message;
      if (message !== undefined && message !== '') {
        open.message = appendCapped(
          open.message,
          (open.message ? '\n' : '') + message,
          limits.maxMessageChars,
        );
      }
      open.collecting = stack.length;
    }
  });
  // An outcome element's text can arrive in several events (text, CDATA sections): join them as
  // they come, and add the trimmed whole to the message when the element closes.
  const collectText = (text: string) => {
    if (open?.collecting !== undefined && stack.length >= open.collecting) {
      open.body = appendCapped(open.body, text, limits.maxMessageChars + 1);
    }
  };
  parser.on('text', collectText);
  parser.on('cdata', collectText);
  parser.on('closetag', (tag: SaxesTagPlain) => {
    if (open !== undefined && open.collecting === stack.length) {
      const body = open.body.trim();
      if (body !== '') {
        open.message = appendCapped(open.message, (open.message ? '\n' : '') + body, limits.maxMessageChars);
      }
      open.collecting = undefined;
      open.body = '';
    }
    stack.pop();
    if (tag.name === 'testcase' && open !== undefined && stack[stack.length - 1] === 'testsuite') {
      cases.push(finishCase(open, limits));
      open = undefined;
      if (cases.length > limits.maxCases)
        throw new ReportRejected(`lists more than ${limits.maxCases} tests`);
    }
  });

  parser.write(text).close();
  if (stack.length !== 0) throw new ReportRejected('ends before its root element closes');
  return cases;
}

function finishCase(open: OpenCase, limits: JUnitLimits): JUnitCase {
  const id = testId(open.classname, open.name, open.file);
  if (id.length > limits.maxIdChars)
    throw new ReportRejected(`a test ID longer than ${limits.maxIdChars} characters`);
  // tests_hash is line-based: an ID with a newline would let two different lists hash alike.
  if (/[\n\r]/.test(id)) throw new ReportRejected('a test ID contains a line break');
  return {
    id,
    classname: open.classname,
    name: open.name,
    ...(open.file !== undefined ? { file: open.file } : {}),
    ...(open.line !== undefined ? { line: open.line } : {}),
    status: open.status,
    ...(open.message !== '' ? { message: open.message } : {}),
  };
}
