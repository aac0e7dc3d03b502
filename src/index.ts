import * as core from '@actions/core';
import { safeLogLine } from './report/escape-log.js';
import { run } from './main.js';

// Whatever escapes run(), the step fails and says verdict=fail: never a Pass by accident.
try {
  await run();
} catch (error) {
  core.setOutput('verdict', 'fail');
  core.setFailed(
    safeLogLine(`oracle-gate: internal error: ${error instanceof Error ? error.message : String(error)}`),
  );
}
