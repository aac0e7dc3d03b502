import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { thrownText } from '../../src/errors/thrown-text.js';

describe('thrownText', () => {
  it('gives an Error its message and anything else its text', () => {
    expect(thrownText(new TypeError('bad input'))).toBe('bad input');
    expect(thrownText('plain')).toBe('plain');
    expect(thrownText(42)).toBe('42');
    expect(thrownText(undefined)).toBe('undefined');
  });

  it('never throws, even for values whose conversion to text throws', () => {
    expect(thrownText({ toString: '' })).toBe('(a value that cannot be shown as text)');
    expect(thrownText(Object.create(null))).toBe('(a value that cannot be shown as text)');
    const hostile = new Error('x');
    Object.defineProperty(hostile, 'message', { get: () => 7 });
    expect(thrownText(hostile)).toBe('(a message that is not text)');
    fc.assert(fc.property(fc.anything(), (value) => typeof thrownText(value) === 'string'));
  });
});
