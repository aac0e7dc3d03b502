import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatJsonPath, strictParseJson, StrictJsonError } from '../../src/json/strict-parse.js';

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));

describe('strictParseJson', () => {
  it('agrees with JSON.parse on every JSON text without duplicate keys', () => {
    fc.assert(
      fc.property(fc.json(), (text) => {
        expect(plain(strictParseJson(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });

  it('agrees with JSON.parse on pretty-printed text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value, null, 2);
        expect(plain(strictParseJson(text))).toEqual(JSON.parse(text));
      }),
    );
  });

  it('refuses whatever JSON.parse refuses', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        let native = true;
        try {
          JSON.parse(text);
        } catch {
          native = false;
        }
        if (!native) expect(() => strictParseJson(text)).toThrow(StrictJsonError);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses a duplicate key at any depth and names where', () => {
    expect(() => strictParseJson('{"a":1,"a":2}')).toThrow(/duplicate key "a"/);
    try {
      strictParseJson('{"x":[{"k":1,"k":1}]}');
      expect.unreachable();
    } catch (e) {
      expect((e as StrictJsonError).path).toEqual(['x', 0]);
    }
  });

  it('refuses lone surrogates but takes pairs', () => {
    expect(() => strictParseJson('"\\ud800"')).toThrow(/lone UTF-16 surrogate/);
    expect(() => strictParseJson('"\\udc00x"')).toThrow(/lone UTF-16 surrogate/);
    expect(strictParseJson('"\\ud83d\\ude00"')).toBe('😀');
  });

  it('treats __proto__ as a plain key', () => {
    const value = strictParseJson('{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('caps nesting instead of overflowing the stack', () => {
    expect(() => strictParseJson('['.repeat(100_000))).toThrow(/nesting deeper/);
  });
});

describe('formatJsonPath', () => {
  it('names fields the way a reader writes them', () => {
    expect(formatJsonPath(['oracle_program', 2, 'reason'])).toBe('oracle_program[2].reason');
    expect(formatJsonPath([])).toBe('(top level)');
    expect(formatJsonPath(['a b'])).toBe('["a b"]');
  });
});
