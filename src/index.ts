import * as core from '@actions/core';
import { safeLogLine } from './report/escape-log.js';
import { thrownText } from './errors/thrown-text.js';

// Whatever escapes run(), the step fails and says verdict=fail: never a Pass by accident. main is
// loaded inside the try because its dependencies read the event payload as they load.
try {
  const { run } = await import('./main.js');
  await run();
} catch (error) {
  core.setOutput('verdict', 'fail');
  core.setFailed(safeLogLine(`oracle-gate: internal error: ${thrownText(error)}`));
}
