import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OutputCapture } from '../../src/container/output-capture.js';

describe('OutputCapture', () => {
  it('keeps everything while it fits, however the stream is chunked', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 20 }), { maxLength: 20 }), (chunks) => {
        const capture = new OutputCapture(64, 64);
        for (const c of chunks) capture.push(Buffer.from(c));
        const all = chunks.join('');
        if (Buffer.byteLength(all) <= 128) {
          expect(capture.text()).toBe(all);
          expect(capture.droppedBytes).toBe(0);
        }
      }),
    );
  });

  it('keeps the head and the tail of a flood and says how much it left out', () => {
    const capture = new OutputCapture(4, 4);
    for (const c of ['ab', 'cdef', 'ghij', 'kl', 'mnop']) capture.push(Buffer.from(c));
    expect(capture.droppedBytes).toBe(16 - 8);
    expect(capture.text()).toBe('abcd\n[... 8 bytes left out ...]\nmnop');
  });
});
