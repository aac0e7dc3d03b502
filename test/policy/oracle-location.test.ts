import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { oracleRepoPath } from '../../src/policy/oracle-location.js';
import { PolicyConfigError } from '../../src/policy/path-rules.js';

const root = mkdtempSync(join(tmpdir(), 'og-oracle-location-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const repo = join(root, 'repo');
mkdirSync(join(repo, 'ci', 'oracle'), { recursive: true });
mkdirSync(join(repo, '..oracle'), { recursive: true });
mkdirSync(join(root, 'oracle'), { recursive: true });
symlinkSync(join(repo, 'ci', 'oracle'), join(root, 'link-to-inside'));

describe('oracleRepoPath', () => {
  it('gives the repository path of an oracle inside the repository, symlinks resolved', async () => {
    expect(await oracleRepoPath(repo, join(repo, 'ci', 'oracle'))).toBe('ci/oracle');
    expect(await oracleRepoPath(repo, join(root, 'link-to-inside'))).toBe('ci/oracle');
    expect(await oracleRepoPath(repo, join(repo, '..oracle'))).toBe('..oracle');
  });

  it('gives undefined for an oracle outside the repository', async () => {
    expect(await oracleRepoPath(repo, join(root, 'oracle'))).toBeUndefined();
  });

  it('refuses an oracle that is the repository or holds it', async () => {
    await expect(oracleRepoPath(repo, repo)).rejects.toThrow(PolicyConfigError);
    await expect(oracleRepoPath(repo, root)).rejects.toThrow(/is, or contains, the repository/);
  });
});
