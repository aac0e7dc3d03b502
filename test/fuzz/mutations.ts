import fc from 'fast-check';

/**
 * Structure-aware mutations of valid inputs, shared by the fuzz targets. Random garbage is refused
 * at the first byte; a real diff, report or config with a few lines moved, cut, doubled, spliced
 * from another seed or salted with a format's own tokens gets deep into a parser. Every step is a
 * plain record, so fast-check shrinks a failing case to few steps at small positions.
 */

/** Bytes that break parsers: controls, quotes, escapes, invalid or awkward UTF-8, a BOM. */
export const AWKWARD_BYTES: readonly Buffer[] = [
  [0x00],
  [0x0a],
  [0x0d],
  [0x0d, 0x0a],
  [0x09],
  [0x20],
  [0x22],
  [0x27],
  [0x5c],
  [0x7f],
  [0x1b],
  [0x80],
  [0xfe],
  [0xff],
  [0xc0, 0xaf], // overlong "/"
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate in UTF-8 form
  [0xf0, 0x9f, 0x98], // a cut 4-byte sequence
  [0xf4, 0x90, 0x80, 0x80], // past U+10FFFF
  [0xef, 0xbb, 0xbf], // BOM
  [0xef, 0xbf, 0xbe], // U+FFFE
  [0xe2, 0x80, 0xa8], // U+2028
  [0xe2, 0x80, 0xae], // U+202E, right-to-left override
].map((b) => Buffer.from(b));

/** Numbers at the edges of every integer type a parser might use, and things that look like numbers. */
export const AWKWARD_NUMBERS: readonly string[] = [
  '0',
  '1',
  '-1',
  '-0',
  '00',
  '007',
  '255',
  '256',
  '65535',
  '2147483647',
  '2147483648',
  '4294967295',
  '4294967296',
  '9007199254740991',
  '9007199254740993',
  '18446744073709551616',
  '99999999999999999999999999999999',
  '1e309',
  '1e-400',
  '1.5',
  '0.1',
  '1e3',
  '0x10',
  '+1',
  'NaN',
  'Infinity',
  '',
  '１',
];

export type Step =
  | { op: 'flip'; at: number; bit: number }
  | { op: 'set'; at: number; bytes: Buffer }
  | { op: 'insert'; at: number; bytes: Buffer }
  | { op: 'delete'; at: number; length: number }
  | { op: 'truncate'; at: number }
  | { op: 'repeat'; at: number; length: number; times: number }
  | { op: 'splice'; at: number; donor: number; from: number; length: number }
  | { op: 'dup-line'; line: number; times: number }
  | { op: 'drop-line'; line: number }
  | { op: 'swap-lines'; a: number; b: number }
  | { op: 'donor-line'; line: number; donor: number; donorLine: number }
  | { op: 'token-line'; line: number; token: number }
  | { op: 'token'; at: number; token: number }
  | { op: 'number'; which: number; value: string }
  | { op: 'crlf'; line: number };

const position = fc.nat({ max: 0x7fffffff });

function stepArb(tokenCount: number): fc.Arbitrary<Step> {
  const bytes = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...AWKWARD_BYTES) },
    { weight: 1, arbitrary: fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => Buffer.from(b)) },
  );
  const token = fc.nat({ max: Math.max(0, tokenCount - 1) });
  const steps: fc.WeightedArbitrary<Step>[] = [
    { weight: 2, arbitrary: fc.record({ op: fc.constant('flip'), at: position, bit: fc.nat(7) }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('set'), at: position, bytes }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('insert'), at: position, bytes }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('delete'),
        at: position,
        length: fc.integer({ min: 1, max: 64 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('truncate'), at: position }) },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('repeat'),
        at: position,
        length: fc.integer({ min: 1, max: 32 }),
        times: fc.oneof(fc.integer({ min: 2, max: 8 }), fc.integer({ min: 100, max: 3000 })),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('splice'),
        at: position,
        donor: position,
        from: position,
        length: fc.integer({ min: 1, max: 256 }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant('dup-line'),
        line: position,
        times: fc.oneof(fc.constant(1), fc.integer({ min: 2, max: 50 })),
      }),
    },
    { weight: 3, arbitrary: fc.record({ op: fc.constant('drop-line'), line: position }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('swap-lines'), a: position, b: position }) },
    {
      weight: 2,
      arbitrary: fc.record({
        op: fc.constant('donor-line'),
        line: position,
        donor: position,
        donorLine: position,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        op: fc.constant('number'),
        which: position,
        value: fc.constantFrom(...AWKWARD_NUMBERS),
      }),
    },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('crlf'), line: position }) },
  ];
  if (tokenCount > 0) {
    steps.push(
      { weight: 3, arbitrary: fc.record({ op: fc.constant('token-line'), line: position, token }) },
      { weight: 3, arbitrary: fc.record({ op: fc.constant('token'), at: position, token }) },
    );
  }
  return fc.oneof(...steps);
}

/** The lines of `buf`, each with its newline (the last one may have none). */
export function splitLines(buf: Buffer): Buffer[] {
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = buf.indexOf(0x0a); i !== -1; i = buf.indexOf(0x0a, start)) {
    lines.push(buf.subarray(start, i + 1));
    start = i + 1;
  }
  if (start < buf.length) lines.push(buf.subarray(start));
  return lines;
}

const withNewline = (b: Buffer) =>
  b.length > 0 && b[b.length - 1] === 0x0a ? b : Buffer.concat([b, Buffer.from('\n')]);

function applyStep(buf: Buffer, step: Step, donors: readonly Buffer[], tokens: readonly Buffer[]): Buffer {
  const at = (p: number) => p % (buf.length + 1);
  switch (step.op) {
    case 'flip': {
      if (buf.length === 0) return buf;
      const out = Buffer.from(buf);
      const i = step.at % buf.length;
      out[i] = out[i]! ^ (1 << step.bit);
      return out;
    }
    case 'set': {
      const i = at(step.at);
      return Buffer.concat([buf.subarray(0, i), step.bytes, buf.subarray(i + step.bytes.length)]);
    }
    case 'insert': {
      const i = at(step.at);
      return Buffer.concat([buf.subarray(0, i), step.bytes, buf.subarray(i)]);
    }
    case 'delete': {
      const i = at(step.at);
      return Buffer.concat([buf.subarray(0, i), buf.subarray(i + step.length)]);
    }
    case 'truncate':
      return buf.subarray(0, at(step.at));
    case 'repeat': {
      const i = at(step.at);
      const slice = buf.subarray(i, i + step.length);
      return Buffer.concat([
        buf.subarray(0, i),
        ...Array<Buffer>(step.times).fill(slice),
        buf.subarray(i + step.length),
      ]);
    }
    case 'splice': {
      const donor = donors[step.donor % donors.length]!;
      const from = step.from % (donor.length + 1);
      const i = at(step.at);
      return Buffer.concat([buf.subarray(0, i), donor.subarray(from, from + step.length), buf.subarray(i)]);
    }
    case 'token': {
      const i = at(step.at);
      return Buffer.concat([buf.subarray(0, i), tokens[step.token % tokens.length]!, buf.subarray(i)]);
    }
    case 'number': {
      const runs = [...buf.toString('latin1').matchAll(/[0-9]+/g)];
      if (runs.length === 0) return buf;
      const run = runs[step.which % runs.length]!;
      const start = run.index;
      return Buffer.concat([
        buf.subarray(0, start),
        Buffer.from(step.value, 'utf8'),
        buf.subarray(start + run[0].length),
      ]);
    }
  }
  const lines = splitLines(buf);
  const line = (n: number) => n % (lines.length + 1);
  switch (step.op) {
    case 'dup-line': {
      if (lines.length === 0) return buf;
      const i = step.line % lines.length;
      const copy = withNewline(lines[i]!);
      lines.splice(i, 0, ...Array<Buffer>(step.times).fill(copy));
      break;
    }
    case 'drop-line':
      if (lines.length === 0) return buf;
      lines.splice(step.line % lines.length, 1);
      break;
    case 'swap-lines': {
      if (lines.length < 2) return buf;
      const a = step.a % lines.length;
      const b = step.b % lines.length;
      [lines[a], lines[b]] = [withNewline(lines[b]!), withNewline(lines[a]!)];
      break;
    }
    case 'donor-line': {
      const donorLines = splitLines(donors[step.donor % donors.length]!);
      if (donorLines.length === 0) return buf;
      lines.splice(line(step.line), 0, withNewline(donorLines[step.donorLine % donorLines.length]!));
      break;
    }
    case 'token-line':
      lines.splice(line(step.line), 0, withNewline(tokens[step.token % tokens.length]!));
      break;
    case 'crlf': {
      if (lines.length === 0) return buf;
      const i = step.line % lines.length;
      const l = lines[i]!;
      if (l[l.length - 1] === 0x0a) lines[i] = Buffer.concat([l.subarray(0, -1), Buffer.from('\r\n')]);
      break;
    }
  }
  return Buffer.concat(lines);
}

export interface Mutated {
  /** Which seed it started from. */
  seed: number;
  steps: Step[];
  bytes: Buffer;
}

/**
 * A seed with 1 to `maxSteps` mutations. `tokens` are the format's own syntax (header lines, tags,
 * keys), inserted whole or as lines; other seeds donate lines and byte ranges.
 */
export function mutatedSeed(
  seeds: readonly Buffer[],
  tokens: readonly Buffer[] = [],
  maxSteps = 4,
): fc.Arbitrary<Mutated> {
  if (seeds.length === 0) throw new Error('no seeds to mutate');
  return fc
    .record({
      seed: fc.nat({ max: seeds.length - 1 }),
      steps: fc.array(stepArb(tokens.length), { minLength: 1, maxLength: maxSteps }),
    })
    .map(({ seed, steps }) => {
      const bytes = printable(steps.reduce((buf, step) => applyStep(buf, step, seeds, tokens), seeds[seed]!));
      const mutated: Mutated = { seed, steps, bytes };
      return Object.defineProperty(mutated, fc.toStringMethod, {
        value: () => `seed ${seed} mutated by ${JSON.stringify(steps)}: ${bytes[fc.toStringMethod]()}`,
      });
    });
}

/** Plain random input: bytes, or text over a format's alphabet, or its tokens strung together. */
export function randomInput(tokens: readonly Buffer[] = []): fc.Arbitrary<Buffer> {
  const arbs: fc.Arbitrary<Buffer>[] = [
    fc.uint8Array({ maxLength: 512 }).map((b) => printable(Buffer.from(b))),
    fc.string({ unit: 'binary', maxLength: 256 }).map((s) => printable(Buffer.from(s, 'utf8'))),
  ];
  if (tokens.length > 0)
    arbs.push(
      fc
        .array(fc.oneof(fc.constantFrom(...tokens), fc.constantFrom(...AWKWARD_BYTES)), { maxLength: 40 })
        .map((parts) => printable(Buffer.concat(parts))),
    );
  return fc.oneof(...arbs);
}

/** Bytes that fast-check prints as base64 in a counterexample (not as a list of numbers). */
export function printable(bytes: Buffer): Buffer & { [fc.toStringMethod]: () => string } {
  if (Object.hasOwn(bytes, fc.toStringMethod)) return bytes as Buffer & { [fc.toStringMethod]: () => string };
  return Object.defineProperty(bytes, fc.toStringMethod, {
    value: () => `base64:${bytes.toString('base64')}`,
  }) as Buffer & { [fc.toStringMethod]: () => string };
}

/** Base64 of an input, for a reproduction in a failure message. */
export const b64 = (input: Buffer | string) =>
  (typeof input === 'string' ? Buffer.from(input, 'utf8') : input).toString('base64');
