import fc from 'fast-check';
import type { GateReport } from '../../../src/gate/report.js';

/** Pieces that have broken reporters before: command prefixes, escapes, separators, markup. */
export const HOSTILE_PIECES = [
  '::',
  '::error::owned',
  '::error file=a,line=1::owned',
  '::stop-commands::tok',
  '::add-mask::x',
  '  ::warning::',
  '\u00a0::error::',
  '##[error]owned',
  '##[',
  ']',
  '%0A',
  '%0D',
  '%25',
  '%3A',
  '\r',
  '\n',
  '\r\n',
  '\u0085',
  '\u2028',
  '\u2029',
  '\t',
  '\u001b[31m',
  '\u0000',
  '\u202e',
  '\ud800',
  '\udfff',
  '😀',
  '|',
  '\\|',
  '`',
  '```',
  '<script>alert(1)</script>',
  '<br>',
  '<!--',
  '&amp;',
  '&#124;',
  '[x](https://evil.example)',
  '![i](x)',
  'https://evil.example',
  'www.evil.example',
  '@octocat',
  '#1',
  '$x$',
  '**',
  '_',
  '~~',
  '- ',
  '1. ',
  '> ',
  '# ',
  '---',
  '=',
  'ghadelimiter_',
  '\\',
];

/** A string made of hostile pieces and arbitrary code units (lone surrogates included). */
export const hostileString: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_PIECES) },
      { weight: 2, arbitrary: fc.string({ maxLength: 12 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) },
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

const lineNumber = fc.integer({ min: -3, max: 100_000 });

/** A GateReport whose every untrusted string is hostile. */
export const hostileReport: fc.Arbitrary<GateReport> = fc.record({
  verdict: fc.oneof(
    fc.record({ kind: fc.constant('pass' as const), chain: fc.array(hostileString, { maxLength: 4 }) }),
    fc.record({
      kind: fc.constant('fail' as const),
      reasons: fc.array(
        fc.record({ kind: fc.constant('custom' as const), subkind: hostileString, message: hostileString }),
        { minLength: 1, maxLength: 3 },
      ),
    }),
  ),
  attested: fc.boolean(),
  mode: fc.constantFrom('grade' as const, 'baseline' as const),
  testsHash: fc.option(hostileString, { nil: undefined }),
  oracleHash: fc.option(hostileString, { nil: undefined }),
  imageDigest: fc.option(hostileString, { nil: undefined }),
  diffSha256: fc.option(hostileString, { nil: undefined }),
  deniedTouches: fc.array(
    fc.record({
      path: hostileString,
      change: fc.constantFrom('added', 'deleted', 'modified', 'mode-changed', 'renamed', 'copied' as const),
      rule: hostileString,
    }),
    { maxLength: 4 },
  ),
  droppedHunks: fc.array(
    fc.record({
      path: hostileString,
      oldStart: lineNumber,
      oldLines: fc.integer({ min: 0, max: 50 }),
      newStart: lineNumber,
      newLines: fc.integer({ min: 0, max: 50 }),
      reason: hostileString,
    }),
    { maxLength: 4 },
  ),
  tests: fc.array(
    fc.record(
      {
        id: hostileString,
        suite: fc.constantFrom('existing' as const, 'hidden' as const),
        status: fc.constantFrom('passed' as const, 'failed' as const, 'error' as const, 'skipped' as const),
        message: hostileString,
        frozen: fc.boolean(),
        file: hostileString,
        line: lineNumber,
      },
      { requiredKeys: ['id', 'suite', 'status'] },
    ),
    { maxLength: 4 },
  ),
  stages: fc.array(
    fc.record({
      id: hostileString,
      ms: fc.integer({ min: 0, max: 10_000_000 }),
      outcome: fc.constantFrom('pass' as const, 'fail' as const),
    }),
    { maxLength: 4 },
  ),
  quarantined: fc.boolean(),
  logPath: fc.option(hostileString, { nil: undefined }),
  notes: fc.array(hostileString, { maxLength: 3 }),
});

/** A report with nothing in it, to build examples from. */
export function emptyReport(overrides: Partial<GateReport> = {}): GateReport {
  return {
    verdict: { kind: 'fail', reasons: [{ kind: 'custom', subkind: 'config-invalid', message: 'x' }] },
    attested: false,
    mode: 'grade',
    deniedTouches: [],
    droppedHunks: [],
    tests: [],
    stages: [],
    quarantined: false,
    notes: [],
    ...overrides,
  };
}
