import type { GateReport } from '../gate/report.js';
import { capUtf8, utf8Length } from './cap-text.js';
import { CHECK_TITLE_MAX_BYTES } from './github-limits.js';
import { plainOneLine } from './plain-text.js';

export type Conclusion = 'success' | 'failure';

/**
 * Only an attested Pass counts: a Pass whose chain holds no attested stage is reported, never
 * counted as evidence, so its check run concludes `failure` and it does not pass the step.
 * `neutral` is never used: branch protection would let it through.
 */
export function countsAsPass(report: GateReport): boolean {
  return report.verdict.kind === 'pass' && report.attested;
}

export function conclusionOf(report: GateReport): Conclusion {
  return countsAsPass(report) ? 'success' : 'failure';
}

export function verdictLabel(report: GateReport): 'Pass' | 'Pass (unattested)' | 'Fail' {
  if (report.verdict.kind === 'fail') return 'Fail';
  return report.attested ? 'Pass' : 'Pass (unattested)';
}

/** The check run's title: the verdict and its first reason (or the chain), one line, capped. */
export function verdictTitle(report: GateReport): string {
  const verdict = report.verdict;
  let title: string;
  if (verdict.kind === 'fail') {
    const [first, ...rest] = verdict.reasons;
    const more = rest.length > 0 ? ` (+${rest.length} more)` : '';
    title = `Fail: ${first!.subkind}: ${first!.message}`;
    // The count of further reasons must survive the cut, so it is budgeted first.
    return capUtf8(plainOneLine(title), CHECK_TITLE_MAX_BYTES - utf8Length(more)) + more;
  }
  const chain = verdict.chain.join(' > ');
  title = report.attested ? `Pass: ${chain}` : `Pass (unattested, not evidence): ${chain}`;
  return capUtf8(plainOneLine(title), CHECK_TITLE_MAX_BYTES);
}
