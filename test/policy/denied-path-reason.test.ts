import { describe, expect, it } from 'vitest';
import { deniedPathReason } from '../../src/policy/denied-path-reason.js';
import { FailReasonSchema } from '../../src/verdict/schema.js';

describe('deniedPathReason', () => {
  it('lists every offending path with its change and rule, on one line', () => {
    const reason = deniedPathReason([
      { path: '.github/workflows/ci.yml', change: 'modified', rule: 'deny glob .github/**' },
      { path: '"tests/new\\nline.py"', change: 'added', rule: 'deny glob tests/**' },
    ]);
    expect(FailReasonSchema.parse(reason)).toEqual(reason);
    expect(reason).toEqual({
      kind: 'custom',
      subkind: 'denied-path',
      message:
        'the patch touches 2 denied paths: .github/workflows/ci.yml (modified; deny glob .github/**), ' +
        '"tests/new\\nline.py" (added; deny glob tests/**)',
    });
    expect(reason.message).not.toContain('\n');
  });

  it('says which oracle.json opt-in would allow a symlink, submodule or .gitattributes change', () => {
    const reason = deniedPathReason([
      { path: 'link', change: 'added', rule: 'symlink' },
      { path: 'other', change: 'added', rule: 'symlink' },
      { path: '.gitattributes', change: 'deleted', rule: '.gitattributes' },
    ]);
    expect(reason.message).toBe(
      'the patch touches 3 denied paths: link (added; symlink), other (added; symlink), ' +
        '.gitattributes (deleted; .gitattributes) (symlinks need "policy": {"allow_symlinks": true} in oracle.json; ' +
        '.gitattributes changes need "policy": {"allow_gitattributes": true} in oracle.json)',
    );
  });

  it('refuses to build a reason from nothing', () => {
    expect(() => deniedPathReason([])).toThrow();
  });
});
