import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LoneSurrogateError, serdeString, serializeVerdict } from '../../src/verdict/serialize.js';
import { VerdictSchema } from '../../src/verdict/schema.js';

const anyText = fc.string({ unit: 'grapheme' });
const wellFormed = fc.string({ unit: 'binary' }).filter((s) => s.isWellFormed());

describe('serdeString', () => {
  it('round-trips through JSON.parse for any well-formed string', () => {
    fc.assert(
      fc.property(wellFormed, (s) => {
        expect(JSON.parse(serdeString(s))).toBe(s);
      }),
    );
  });

  it('writes no raw control character below U+0020, and leaves everything else but " and \\ as is', () => {
    fc.assert(
      fc.property(wellFormed, (s) => {
        const out = serdeString(s);
        // eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
        expect(/[\u0000-\u001f]/.test(out)).toBe(false);
        const plain = [...s].filter((ch) => ch >= ' ' && ch !== '"' && ch !== '\\').join('');
        const outPlain = [...out.slice(1, -1).replace(/\\(u[0-9a-f]{4}|.)/g, '')].join('');
        expect(outPlain).toBe(plain);
      }),
    );
  });

  it('refuses lone surrogates, as a Rust string cannot hold them', () => {
    expect(() => serdeString('a\ud800b')).toThrow(LoneSurrogateError);
    expect(() => serdeString('\udc00')).toThrow(LoneSurrogateError);
    expect(serdeString('\ud83d\ude00')).toBe('"\ud83d\ude00"');
  });
});

describe('serializeVerdict', () => {
  const reason = fc.record({ kind: fc.constant('custom' as const), subkind: anyText, message: anyText });
  const verdict = fc.oneof(
    fc.record({ kind: fc.constant('pass' as const), chain: fc.array(anyText) }),
    fc.record({ kind: fc.constant('fail' as const), reasons: fc.array(reason, { minLength: 1 }) }),
  );

  it('equals JSON.stringify with keys in declaration order, and parses back to the same verdict', () => {
    fc.assert(
      fc.property(verdict, (v) => {
        const out = serializeVerdict(v);
        expect(out).toBe(JSON.stringify(v));
        expect(VerdictSchema.parse(JSON.parse(out))).toEqual(v);
      }),
    );
  });
});
