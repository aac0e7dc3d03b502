import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_JUNIT_LIMITS } from '../../src/results/junit-report.js';
import { readSuiteReports } from '../../src/results/read-reports.js';
import { tempDirs } from '../container/temp-dirs.js';

const tempDir = tempDirs('og-reports-');

const REPORT = (name: string) => `<testsuite><testcase classname="c" name="${name}"/></testsuite>`;

function folder(): { root: string; dir: string } {
  const root = tempDir();
  const dir = join(root, 'hidden');
  mkdirSync(dir);
  return { root, dir };
}

describe('readSuiteReports', () => {
  it('parses and merges every *.xml file, in name order, and ignores other files', async () => {
    const { dir } = folder();
    writeFileSync(join(dir, 'b.xml'), REPORT('b'));
    writeFileSync(join(dir, 'a.xml'), REPORT('a'));
    writeFileSync(join(dir, 'notes.txt'), 'not a report');
    const read = await readSuiteReports(dir);
    expect(read.kind).toBe('parsed');
    if (read.kind === 'parsed') {
      expect(read.files).toEqual(['a.xml', 'b.xml']);
      expect(read.cases.map((c) => c.id)).toEqual(['c::a', 'c::b']);
    }
  });

  it('calls a folder without reports, or an empty report, missing', async () => {
    const { root, dir } = folder();
    expect(await readSuiteReports(dir)).toEqual({
      kind: 'missing',
      error: 'no *.xml file in $ORACLE_REPORT_DIR',
    });
    writeFileSync(join(dir, 'junit.xml'), '');
    expect((await readSuiteReports(dir)).kind).toBe('missing');
    expect((await readSuiteReports(join(root, 'existing'))).kind).toBe('missing');
  });

  it('never follows a report that is a symbolic link to a host file', async () => {
    const { root, dir } = folder();
    const secret = join(root, 'secret.xml');
    writeFileSync(secret, REPORT('stolen'));
    symlinkSync(secret, join(dir, 'junit.xml'));
    expect(await readSuiteReports(dir)).toEqual({
      kind: 'invalid',
      error: '$ORACLE_REPORT_DIR/junit.xml is a symbolic link',
    });
  });

  it('refuses a report folder swapped for a link', async () => {
    const { root } = folder();
    const elsewhere = join(root, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'junit.xml'), REPORT('x'));
    symlinkSync(elsewhere, join(root, 'existing'));
    expect(await readSuiteReports(join(root, 'existing'))).toEqual({
      kind: 'invalid',
      error: 'its report folder was replaced',
    });
  });

  it('does not block on a FIFO, nor read a directory, named like a report', async () => {
    const { dir } = folder();
    execFileSync('mkfifo', [join(dir, 'junit.xml')]);
    expect(await readSuiteReports(dir)).toEqual({
      kind: 'invalid',
      error: '$ORACLE_REPORT_DIR/junit.xml is not a regular file',
    });
    const other = folder();
    mkdirSync(join(other.dir, 'dir.xml'));
    expect((await readSuiteReports(other.dir)).kind).toBe('invalid');
  });

  it('refuses reports past the size cap, counted over all files', async () => {
    const { dir } = folder();
    writeFileSync(join(dir, 'a.xml'), REPORT('a'));
    writeFileSync(join(dir, 'b.xml'), REPORT('b'));
    const limits = { ...DEFAULT_JUNIT_LIMITS, maxBytes: REPORT('a').length + 10 };
    const read = await readSuiteReports(dir, limits);
    expect(read.kind).toBe('invalid');
    if (read.kind === 'invalid') expect(read.error).toMatch(/b.xml is larger than/);
  });

  it('refuses a report that does not parse, naming the file', async () => {
    const { dir } = folder();
    writeFileSync(join(dir, 'junit.xml'), '<!DOCTYPE x><testsuite/>');
    const read = await readSuiteReports(dir);
    expect(read.kind).toBe('invalid');
    if (read.kind === 'invalid') expect(read.error).toMatch(/^junit.xml: .*DOCTYPE/);
  });
});
