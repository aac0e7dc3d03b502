import fc from 'fast-check';
import { minimatch } from 'minimatch';
import { describe, expect, it } from 'vitest';
import { GLOB_OPTIONS, PathRuleSet } from '../../src/policy/path-rules.js';

const segment = fc.constantFrom(
  'a',
  'b',
  'ab',
  '.x',
  '.',
  '..',
  '',
  'a.py',
  'test_x.py',
  'conftest.py',
  '__snapshots__',
  'd01',
  'f.txt',
  'ü',
  '😀',
  '\udcff',
  'a b',
  '*',
);
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('/'));
const glob = fc.constantFrom(
  '**',
  '*',
  'a',
  'a/**',
  '**/a',
  'a/**/b',
  '**/*.py',
  '**/test_*.py',
  '{a,b}/**',
  'a/*/b',
  '?',
  '*/',
  '.x/**',
  '[ab]*',
  '+(a|b)',
  'a/**/**/b',
  '**/.*',
  'd0*/**',
  '**/__snapshots__/**',
  'a/',
  '*/*',
  '**/?',
  '!(a)',
  'a/**/*.py',
  '**/b/**',
  '*.{py,txt}',
  '**/😀',
  'ü/**',
  '\\*',
  'a b/**',
);

describe('PathRuleSet', () => {
  it('matches exactly as minimatch(path, glob, { dot: true, ... }) on the path itself (allow rules)', () => {
    fc.assert(
      fc.property(path, glob, (p, g) => {
        const normalized = g.endsWith('/') ? g + '**' : g;
        const ours = new PathRuleSet([{ glob: g, rule: g }], false).firstMatch(p) !== undefined;
        expect(ours).toBe(minimatch(p, normalized, GLOB_OPTIONS));
      }),
      { numRuns: 5000 },
    );
  });

  it('for deny rules, also matches a directory above the path, and a non-BMP character read as one', () => {
    fc.assert(
      fc.property(path, glob, (p, g) => {
        const normalized = g.endsWith('/') ? g + '**' : g;
        const readings = [p, p.replace(/[\ud800-\udbff][\udc00-\udfff]/g, '\ufffd')];
        const any = readings.some((reading) => {
          const parts = reading.split('/');
          return parts.some((_, i) => minimatch(parts.slice(0, i + 1).join('/'), normalized, GLOB_OPTIONS));
        });
        expect(new PathRuleSet([{ glob: g, rule: g }], true).firstMatch(p) !== undefined).toBe(any);
      }),
      { numRuns: 5000 },
    );
  });

  it('reports the first rule in order, literal paths and globs alike', () => {
    const set = new PathRuleSet(
      [
        { glob: 'x/**', rule: 'first' },
        { path: 'a/b', rule: 'second' },
        { glob: '**/b', rule: 'third' },
      ],
      true,
    );
    expect(set.firstMatch('a/b')?.rule).toBe('second');
    expect(set.firstMatch('a/b/c')?.rule).toBe('second');
    expect(set.firstMatch('c/b')?.rule).toBe('third');
    expect(set.firstMatch('x/b')?.rule).toBe('first');
    expect(set.firstMatch('y')).toBeUndefined();
  });
});
