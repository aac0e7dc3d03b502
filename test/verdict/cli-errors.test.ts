import { describe, expect, it } from 'vitest';
import { readFixtureJson } from '../helpers/fixtures.js';
import { runCli } from '../helpers/cli.js';

interface ErrorVector {
  description: string;
  stdin: string;
  stderr_contains: string;
}
const errors = readFixtureJson<{ vectors: ErrorVector[] }>('verdict/error-vectors.json');

describe('oracle-gate verdict refuses bad input', () => {
  it.each(errors.vectors)(
    '$description: exit 2, no verdict, one line naming the field',
    ({ stdin, stderr_contains }) => {
      const run = runCli(['verdict'], { stdin });
      expect(run.status).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toContain(stderr_contains);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    },
  );

  it('an unexpected argument is bad usage', () => {
    const run = runCli(['verdict', 'extra'], { stdin: '{}' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
  });
});

describe('oracle-gate --help', () => {
  it('lists the commands and exits 0', () => {
    const run = runCli(['--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('verdict');
  });

  it('verdict --help explains input and exit status', () => {
    const run = runCli(['verdict', '--help']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Exit status: 0 Pass, 1 Fail, 2/);
  });

  it('no command is bad usage', () => {
    const run = runCli([]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('usage: oracle-gate');
  });

  it('an unknown command is bad usage', () => {
    const run = runCli(['frobnicate']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('unknown command');
  });
});
