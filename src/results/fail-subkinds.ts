/**
 * The `custom` subkinds this layer fails with (oracle/1 FailReason). Stage 5 (`container`) and
 * stage 6 (`tests`) of DESIGN.md; the gate's other stages have their own.
 */
export const SUBKIND = {
  configInvalid: 'config-invalid',
  dockerUnavailable: 'docker-unavailable',
  imageUnavailable: 'image-unavailable',
  imageDigestMismatch: 'image-digest-mismatch',
  mirrorFailed: 'mirror-failed',
  containerFailed: 'container-failed',
  outOfMemory: 'out-of-memory',
  timeout: 'timeout',
  patchDoesNotApply: 'patch-does-not-apply',
  harnessError: 'harness-error',
  existingSuiteFailed: 'existing-suite-failed',
  hiddenTestsFailed: 'hidden-tests-failed',
  reportMissing: 'report-missing',
  reportInvalid: 'report-invalid',
  reportForged: 'report-forged',
  quarantined: 'quarantined',
} as const;

export type Subkind = (typeof SUBKIND)[keyof typeof SUBKIND];
