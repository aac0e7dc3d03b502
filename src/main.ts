import * as core from '@actions/core';

/** The action's entry. Until the gate is wired in, it fails closed: no input can make it pass. */
export async function run(): Promise<void> {
  core.setOutput('verdict', 'fail');
  core.setFailed('oracle-gate: the gate is not wired into the action yet; refusing to pass');
}
