/* eslint-disable no-control-regex -- matching control characters is this file's purpose */
/**
 * Characters no report shows as themselves: C0 and C1 controls (terminal escapes, NUL), DEL, and
 * the bidirectional formatting characters that can make a line display in an order other than its
 * bytes ("Trojan source"). Line breaks (LF, CR, NEL, U+2028, U+2029) are not in here: each
 * renderer turns them into its own safe form first. Tab is not in here either.
 */
export const REPLACED_CHARACTERS =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
