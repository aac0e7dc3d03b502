import { validateRunConfig, type OracleRunConfig } from '../container/run-config.js';
import type { OracleConfig } from '../oracle-dir/config.js';
import { loadOracleDir } from '../oracle-dir/load.js';
import type { GateRun } from './gate-run.js';
import { resolveCommit } from '../git/resolve-commit.js';
import { StageFailure, type StageOutcome } from './stage.js';

export const CONFIG_INVALID = 'config-invalid';

const PINNED_HASH = /^h1:[A-Za-z0-9+/]{43}=$/;

/** oracle.json (parsed, defaults applied) as the container layer's config. */
export function toRunConfig(config: OracleConfig): OracleRunConfig {
  return {
    image: config.image,
    ...(config.existing_suite !== undefined
      ? { existingSuite: { command: config.existing_suite.command, paths: [...config.existing_suite.paths] } }
      : {}),
    hiddenTests: { command: config.hidden_tests.command, dest: config.hidden_tests.dest },
    env: Object.fromEntries(config.env),
    timeoutSeconds: config.timeout_seconds,
    limits: { ...config.limits },
    sourceDateEpoch: config.source_date_epoch,
    user: config.user,
  };
}

/**
 * Stage `config` (DESIGN.md step 1): the request's inputs and the oracle directory parse. The
 * mode is one the gate knows, the pinned hash has the `h1:` shape, the commits exist in the
 * repository, oracle.json and the optional files are valid, the image is pinned by digest, and
 * the oracle holds hidden tests. Any problem is a `config-invalid` Fail with one line.
 */
export async function configStage(run: GateRun): Promise<StageOutcome> {
  const { request } = run;
  const invalid = (message: string) => new StageFailure(CONFIG_INVALID, message);
  if (request.mode !== 'grade' && request.mode !== 'baseline')
    throw invalid(`mode ${JSON.stringify(request.mode)}: must be grade or baseline`);
  if (!PINNED_HASH.test(request.pinnedOracleHash))
    throw invalid(
      'the pinned oracle hash must be `h1:` and the base64 of a sha256, as `oracle-gate hash` prints it',
    );

  const base = await resolveCommit(request.repoDir, request.baseSha);
  if (!base.ok) throw invalid(`base: ${base.error}`);
  run.base = base.sha;
  if (request.mode === 'grade' || request.headSha !== '') {
    const head = await resolveCommit(request.repoDir, request.headSha);
    if (!head.ok) throw invalid(`head: ${head.error}`);
    run.head = head.sha;
    if (request.mode === 'baseline' && head.sha !== base.sha)
      run.notes.push(`baseline mode runs the base commit without a diff; the head ${head.sha} is not used`);
  }

  const loaded = await loadOracleDir(request.oracleDir);
  if (!loaded.ok) throw invalid(loaded.error);
  const oracle = loaded.value;
  if (oracle.testsDir === null)
    throw invalid(
      'tests/: missing: the oracle directory holds no hidden tests, and hidden tests are required',
    );
  const runConfig = toRunConfig(oracle.config);
  const problems = validateRunConfig(runConfig);
  if (problems.length > 0) throw invalid(`oracle.json: ${problems.join('; ')}`);
  run.oracle = oracle;
  run.runConfig = runConfig;
  return { reasons: [] };
}
