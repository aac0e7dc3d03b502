/**
 * GitHub's size limits for what the reporters send, and the ones we choose where GitHub has none.
 * Every limit is enforced in UTF-8 bytes: a byte count is never smaller than a count of UTF-16
 * units or of code points, so a text within the byte limit is within GitHub's limit however GitHub
 * counts its "characters".
 */

/** Check run `output.summary` and `output.text`: maxLength 65535 in GitHub's OpenAPI description. */
export const CHECK_SUMMARY_MAX_BYTES = 65_535;
/** Check run `output.title`: no documented limit; we hold it to the annotation title's 255. */
export const CHECK_TITLE_MAX_BYTES = 255;
/** Annotation `message` and `raw_details`: "The maximum size is 64 KB"; 64,000 leaves margin. */
export const ANNOTATION_MESSAGE_MAX_BYTES = 64_000;
/** Annotation `title`: "The maximum size is 255 characters". */
export const ANNOTATION_TITLE_MAX_BYTES = 255;
/** Annotation `path`: no documented limit; a path this long is hostile and is cut. */
export const ANNOTATION_PATH_MAX_BYTES = 1_024;
/** Annotations per create/update request (`maxItems: 50`). */
export const ANNOTATIONS_PER_REQUEST = 50;
/** `$GITHUB_STEP_SUMMARY`: the runner refuses to upload more than 1024k per step. */
export const STEP_SUMMARY_MAX_BYTES = 1_024 * 1_024;
/** Workflow-command annotations: GitHub keeps at most 10 errors and 10 warnings per step. */
export const WORKFLOW_ANNOTATIONS_PER_LEVEL = 10;
/** Our own bound on one job-log line or workflow-command message (the runner sets none). */
export const LOG_LINE_MAX_BYTES = 4_096;
/** Our own bound on the `dropped-hunks` output (a job's outputs share 1 MB). */
export const DROPPED_HUNKS_OUTPUT_MAX_BYTES = 256 * 1_024;
