import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runOracleContainer } from '../../src/container/run-oracle-container.js';
import type { OracleRunConfig } from '../../src/container/run-config.js';
import { buildSampleRepo, sampleConfig, type SampleRepo } from './sample-repo.js';
import { tempDirs } from './temp-dirs.js';

/**
 * PR code runs during the existing suite, in the same container the hidden tests run in next.
 * Whatever it leaves where it can write must be gone before they start: configuration a runner
 * reads from the folders above the checkout, files in $HOME and /dev/shm, and a report folder
 * planted read-only to pre-empt the hidden suite's report.
 */
const tempDir = tempDirs('og-between-');
let repo: SampleRepo;
let config: OracleRunConfig;
beforeAll(async () => {
  repo = await buildSampleRepo();
  config = await sampleConfig(inject('testImage'));
});
afterAll(() => repo.remove());

const JUNIT = (name: string, failure: string) =>
  `printf '<testsuite><testcase classname="probe" name="${name}">%s</testcase></testsuite>' "${failure}" > "$ORACLE_REPORT_DIR/junit.xml"`;

const PLANT = [
  'printf "def pytest_runtest_makereport(): pass\\n" > /work/conftest.py',
  'printf "[pytest]\\naddopts = -k nothing\\n" > /work/pytest.ini',
  'mkdir -p /work/site && touch /tmp/planted /dev/shm/planted',
  'mkdir -p "$ORACLE_REPORT_DIR/../hidden"',
  `printf '<testsuite><testcase classname="probe" name="forged"/></testsuite>' > "$ORACLE_REPORT_DIR/../hidden/junit.xml"`,
  'chmod 555 "$ORACLE_REPORT_DIR/../hidden"',
  JUNIT('planted', ''),
].join(' && ');

const CHECK = [
  'left=""',
  'for f in /work/conftest.py /work/pytest.ini /work/site /tmp/planted /dev/shm/planted "$ORACLE_REPORT_DIR/junit.xml"; do [ -e "$f" ] && left="$left $f"; done',
  'if [ -z "$left" ]; then ' +
    JUNIT('nothing-left', '') +
    '; else ' +
    JUNIT('nothing-left', '<failure message=\\"left:$left\\"/>') +
    '; fi',
].join('; ');

describe('between the suites', () => {
  it('leaves nothing the existing suite planted: /work, /tmp and /dev/shm are emptied and the hidden report folder is fresh', async () => {
    const result = await runOracleContainer({
      mode: 'grade',
      config: {
        ...config,
        existingSuite: { command: PLANT, paths: [] },
        hiddenTests: { command: CHECK, dest: 'oracle_tests' },
      },
      repoDir: repo.dir,
      baseSha: repo.base,
      diff: await repo.diff('honest'),
      hiddenTestsDir: tempDir(),
    });
    expect(result.outcomes.map((o) => `${o.suite} ${o.id} ${o.status} ${o.message ?? ''}`.trim())).toEqual([
      'existing probe::planted passed',
      'hidden probe::nothing-left passed',
    ]);
    expect(result.reasons).toEqual([]);
  });

  it('proves the check itself: a file planted in the hidden suite before it looks is reported as left', async () => {
    const result = await runOracleContainer({
      mode: 'grade',
      config: {
        ...config,
        existingSuite: { command: JUNIT('idle', ''), paths: [] },
        hiddenTests: { command: `touch /work/conftest.py; ${CHECK}`, dest: 'oracle_tests' },
      },
      repoDir: repo.dir,
      baseSha: repo.base,
      diff: await repo.diff('honest'),
      hiddenTestsDir: tempDir(),
    });
    const hidden = result.outcomes.find((o) => o.suite === 'hidden');
    expect(hidden?.status).toBe('failed');
    expect(hidden?.message).toBe('left: /work/conftest.py');
  });
});
