import { describe, expect, it } from 'vitest';
import { restorePathspecs, validateRunConfig, type OracleRunConfig } from '../../src/container/run-config.js';

const VALID: OracleRunConfig = {
  image: `127.0.0.1:5000/app@sha256:${'a'.repeat(64)}`,
  existingSuite: { command: 'pytest tests', paths: ['tests/**'] },
  hiddenTests: { command: 'pytest oracle_tests', dest: 'oracle_tests' },
  env: { APP_MODE: 'test' },
  timeoutSeconds: 900,
  limits: { memory: '2g', cpus: 2, pids: 512 },
  sourceDateEpoch: 315532800,
  user: '1000:1000',
};

const problems = (patch: Partial<OracleRunConfig>) => validateRunConfig({ ...VALID, ...patch });

describe('validateRunConfig', () => {
  it('accepts DESIGN.md example config', () => {
    expect(validateRunConfig(VALID)).toEqual([]);
    expect(problems({ existingSuite: undefined })).toEqual([]);
  });

  it('names the oracle.json field of each problem', () => {
    expect(problems({ image: 'app:latest' })).toEqual([expect.stringMatching(/^image: .*not pinned/)]);
    expect(problems({ hiddenTests: { command: ' ', dest: '../x' } })).toEqual([
      'hidden_tests.command: must be a non-empty string',
      expect.stringMatching(/^hidden_tests.dest: /),
    ]);
    expect(problems({ timeoutSeconds: 0 })).toEqual([expect.stringMatching(/^timeout_seconds/)]);
    expect(problems({ limits: { memory: 'lots', cpus: 0, pids: 0 } })).toHaveLength(3);
    expect(problems({ sourceDateEpoch: -1 })).toEqual([expect.stringMatching(/^source_date_epoch/)]);
  });

  it('refuses env that would redefine the fixed environment, steer git, or smuggle a bare name', () => {
    expect(problems({ env: { TZ: 'Europe/Paris' } })).toEqual(['env.TZ: set by the gate itself']);
    expect(problems({ env: { HOME: '/root' } })).toEqual(['env.HOME: set by the gate itself']);
    expect(problems({ env: { ORACLE_REPORT_DIR: '/x' } })).toEqual([
      'env.ORACLE_REPORT_DIR: set by the gate itself',
    ]);
    expect(problems({ env: { GIT_DIR: '/x' } })).toEqual([expect.stringMatching(/GIT_\* variables/)]);
    expect(problems({ env: { 'A=B': 'x' } })).toEqual([
      expect.stringMatching(/not a valid environment variable name/),
    ]);
    expect(problems({ env: { A: 'x\0y' } })).toEqual([expect.stringMatching(/NUL/)]);
  });

  it('never runs the container as root', () => {
    for (const user of ['0', '0:0', 'root', '1000:0', 'root:root']) {
      expect(problems({ user })).toEqual(['user: the oracle container never runs as root']);
    }
    expect(problems({ user: '1000' })).toEqual([]);
    expect(problems({ user: '--privileged' })).toEqual([expect.stringMatching(/^user: must be/)]);
  });

  it('keeps hidden_tests.dest inside the checkout and out of .git', () => {
    for (const dest of ['', '/abs', 'a/../b', './x', 'a//b', '.git', 'x/.GIT/y', 'a\\b', 'a\nb']) {
      expect(problems({ hiddenTests: { command: 'x', dest } })).toHaveLength(1);
    }
    expect(problems({ hiddenTests: { command: 'x', dest: 'tests/oracle' } })).toEqual([]);
  });
});

describe('restorePathspecs', () => {
  it('turns globs into git glob pathspecs, expanding braces and trailing slashes', () => {
    expect(restorePathspecs(['tests/**', '{conftest,setup}.py', 'vendor/', 'tests/**'])).toEqual({
      pathspecs: [':(glob)tests/**', ':(glob)conftest.py', ':(glob)setup.py', ':(glob)vendor/**'],
    });
  });

  it('refuses negation and paths that leave the checkout', () => {
    expect(restorePathspecs(['!tests/**'])).toEqual({ error: expect.stringMatching(/negation/) });
    expect(restorePathspecs(['../x'])).toEqual({ error: expect.stringMatching(/segments/) });
    expect(restorePathspecs(['/etc/**'])).toEqual({ error: expect.stringMatching(/relative/) });
    expect(restorePathspecs(['a\nb'])).toEqual({ error: expect.stringMatching(/control/) });
  });
});
