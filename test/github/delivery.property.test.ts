import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../../src/gate/report.js';
import { readFixtureJson } from '../helpers/fixtures.js';
import { emptyReport } from '../report/helpers/hostile.js';
import { startGitHubApiServer, type CannedResponse } from './helpers/github-api-server.js';
import { runInProcess } from './helpers/run-in-process.js';
import { removeRunnerTemps } from './helpers/runner-temp.js';
import { makeTempRepo, payloadWithShas } from './helpers/temp-repo.js';

const HASH = 'h1:' + 'A'.repeat(43) + '=';
const answer: fc.Arbitrary<CannedResponse> = fc.oneof(
  fc.constantFrom(401, 403, 404, 422, 500, 502, 503).map((status) => ({ status })),
  fc.constant({ status: 429, headers: { 'retry-after': '1' } }),
  fc.constant({ status: 403, headers: { 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } }),
);

/** What the action's retry policy makes of these answers to the create call. */
function creation(answers: readonly CannedResponse[]): 'created' | 'refused' | 'error' {
  for (let attempt = 0; attempt < 4; attempt++) {
    const a = answers[attempt];
    if (!a) return 'created';
    const retried = a.status >= 500 || a.status === 429 || (a.status === 403 && a.headers !== undefined);
    if (!retried) return [401, 403, 404].includes(a.status) ? 'refused' : 'error';
  }
  return 'error';
}

afterAll(removeRunnerTemps);

describe('whatever the API answers', () => {
  it('a Fail never concludes success, and passes the step only when its check run carries it whole and fail-on-verdict is off; a Pass passes the step only when fully delivered or refused a check run', async () => {
    const repo = makeTempRepo();
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.boolean(),
        fc.array(answer, { maxLength: 5 }),
        fc.array(answer, { maxLength: 6 }),
        fc.integer({ min: 0, max: 120 }),
        async (passes, failOnVerdict, createAnswers, updateAnswers, hunkCount) => {
          const report: GateReport = emptyReport({
            ...(passes ? { verdict: { kind: 'pass', chain: ['oracle-gate', 'tests'] }, attested: true } : {}),
            droppedHunks: Array.from({ length: hunkCount }, (_, i) => ({
              path: `f${i}`,
              oldStart: 1,
              oldLines: 1,
              newStart: 1,
              newLines: 1,
              reason: 'outside the allow-list',
            })),
          });
          const server = await startGitHubApiServer({
            failFirst: { 'checks/create': createAnswers, 'checks/update': updateAnswers },
          });
          try {
            const run = await runInProcess({
              apiUrl: server.url,
              eventName: 'pull_request',
              payload: payloadWithShas(
                readFixtureJson('github/pull_request.opened.json'),
                repo.baseSha,
                repo.headSha,
              ),
              inputs: {
                'oracle-path': 'oracle',
                'oracle-hash': HASH,
                'fail-on-verdict': String(failOnVerdict),
              },
              workspace: repo.dir,
              gate: report,
            });
            expect(server.violations()).toEqual([]);
            expect(server.checkRuns.size).toBeLessThanOrEqual(1);
            const checkRun = [...server.checkRuns.values()][0];
            expect(run.outputs.verdict).toBe(passes ? 'pass' : 'fail');
            if (!checkRun) {
              // No check run: the job is the only channel, and its exit status is the verdict.
              expect(run.status).toBe(passes && creation(createAnswers) === 'refused' ? 0 : 1);
              expect(run.summary).toContain('_No check run:');
            } else if (!passes) {
              expect(checkRun.conclusion).not.toBe('success');
              // Quiet only when the check run carries the whole Fail; any reporting problem
              // (annotations refused or lost) fails the step too.
              const quiet =
                !failOnVerdict &&
                checkRun.conclusion === 'failure' &&
                checkRun.annotations.length === hunkCount;
              expect(run.status).toBe(quiet ? 0 : 1);
            } else {
              const delivered =
                checkRun.conclusion === 'success' && checkRun.annotations.length === hunkCount;
              expect(run.status).toBe(delivered ? 0 : 1);
            }
          } finally {
            await server.close();
          }
        },
      ),
      { numRuns: 40, examples: [[false, false, [], [{ status: 422 }], 1]] },
    );
  });
});
