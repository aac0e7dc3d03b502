import type { DeniedTouch } from '../gate/report.js';
import type { FailReason } from '../verdict/schema.js';

export const DENIED_PATH_SUBKIND = 'denied-path';

const OPT_IN_HINTS: Record<string, string> = {
  symlink: 'symlinks need "policy": {"allow_symlinks": true} in oracle.json',
  submodule: 'submodule changes need "policy": {"allow_submodules": true} in oracle.json',
  '.gitattributes': '.gitattributes changes need "policy": {"allow_gitattributes": true} in oracle.json',
};

/**
 * The gate's Fail reason for denied touches: every offending path, what the patch did to it and
 * the rule that denied it, on one line (paths are display strings, so no raw newline gets in).
 */
export function deniedPathReason(denied: readonly DeniedTouch[]): FailReason {
  if (denied.length === 0) throw new Error('deniedPathReason needs at least one denied touch');
  const list = denied.map((d) => `${d.path} (${d.change}; ${d.rule})`).join(', ');
  const hints = [...new Set(denied.map((d) => OPT_IN_HINTS[d.rule]).filter((h) => h !== undefined))];
  const noun = denied.length === 1 ? 'a denied path' : `${denied.length} denied paths`;
  return {
    kind: 'custom',
    subkind: DENIED_PATH_SUBKIND,
    message: `the patch touches ${noun}: ${list}${hints.length ? ` (${hints.join('; ')})` : ''}`,
  };
}
