import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sortedUniqueIds, testsHash } from '../../src/results/tests-hash.js';

/** What DESIGN.md says tests_hash equals: `LC_ALL=C sort -u ids.txt | sha256sum`. */
function coreutilsHash(ids: readonly string[]): string {
  const sorted = execFileSync('sort', ['-u'], {
    input: ids.map((id) => `${id}\n`).join(''),
    env: { PATH: process.env.PATH, LC_ALL: 'C' },
  });
  return execFileSync('sha256sum', [], { input: sorted }).toString().split(' ')[0] as string;
}

// Test IDs as reports give them: any well-formed Unicode without a line feed, often sharing
// prefixes, with duplicates.
const id = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => s.isWellFormed() && !s.includes('\n')),
  fc
    .tuple(fc.constantFrom('tests.test_a', 'tests.test_b', 'tésts.ü', ''), fc.string({ maxLength: 8 }))
    .map(([c, n]) => `${c}::${n}`)
    .filter((s) => !s.includes('\n')),
);

describe('tests_hash', () => {
  it('equals LC_ALL=C sort -u | sha256sum on the same IDs', () => {
    fc.assert(
      fc.property(fc.array(id, { minLength: 1, maxLength: 40 }), (ids) => {
        expect(testsHash(ids)).toBe(coreutilsHash(ids));
      }),
      { numRuns: 150 },
    );
  });

  it('matches a hash worked out once for a fixed list', () => {
    // printf 'a::x\nb::y\n' | sha256sum
    expect(testsHash(['b::y', 'a::x', 'b::y'])).toBe(
      'cce3f2884cac3a1b42d4fd91dd1083b1b61798d0050eeca7d84560c8933f5cfc',
    );
  });

  it('ignores order and duplicates', () => {
    const listAndShuffle = fc
      .array(id, { minLength: 1, maxLength: 30 })
      .chain((ids) =>
        fc.tuple(
          fc.constant(ids),
          fc.shuffledSubarray(ids, { minLength: ids.length, maxLength: ids.length }),
        ),
      );
    fc.assert(
      fc.property(listAndShuffle, ([ids, shuffled]) => {
        expect(testsHash([...shuffled, ...ids.slice(0, 3)])).toBe(testsHash(ids));
      }),
    );
  });

  it('sorts by UTF-8 bytes, not by UTF-16 code units', () => {
    // U+FF61 is below U+1F600 in both, but in UTF-16 the emoji's surrogate (D83D) sorts first.
    expect(sortedUniqueIds(['\u{1F600}', '\uFF61'])).toEqual(['\uFF61', '\u{1F600}']);
  });

  it('is absent when no test ran', () => {
    expect(testsHash([])).toBeUndefined();
  });

  it('refuses an ID with a newline or a lone surrogate, which would let two lists hash alike', () => {
    expect(() => testsHash(['a\nb'])).toThrow(/newline/);
    expect(() => testsHash(['a\uD800'])).toThrow(/well-formed/);
  });
});
