import { parseRunnerCommand } from './runner-commands.js';

/** The only HTML the renderers write themselves. */
const OWN_TAGS = ['<br>', '<code>', '</code>'];
/** Characters the renderers never write themselves: seen raw, they came from untrusted text. */
const NEVER_RAW = /[`[\]\\$~!@{}^"%]/u;

/**
 * What would let untrusted text do something in rendered Markdown: a tag we did not write, an
 * entity we did not write, a raw Markdown character, a CR, a table row with more cells than its
 * header, or a line the runner would read as a command. Returns the violations found.
 */
export function markdownViolations(markdown: string): string[] {
  const violations: string[] = [];
  if (/[\r\u0085\u2028\u2029]/u.test(markdown)) violations.push('a line break other than LF');
  const lines = markdown.split('\n');
  let headerPipes: number | undefined;
  lines.forEach((line, i) => {
    const at = `line ${i + 1}`;
    for (let p = line.indexOf('<'); p >= 0; p = line.indexOf('<', p + 1)) {
      if (!OWN_TAGS.some((tag) => line.startsWith(tag, p))) violations.push(`${at}: a tag we did not write`);
    }
    for (let p = line.indexOf('&'); p >= 0; p = line.indexOf('&', p + 1)) {
      if (!/^&#\d{2,3};/.test(line.slice(p))) violations.push(`${at}: an entity we did not write`);
    }
    const raw = NEVER_RAW.exec(line);
    if (raw) violations.push(`${at}: a raw ${JSON.stringify(raw[0])}`);
    if (parseRunnerCommand(line)) violations.push(`${at}: a workflow command`);
    if (line.startsWith('|')) {
      const pipes = [...line].filter((c) => c === '|').length;
      if (headerPipes === undefined) headerPipes = pipes;
      else if (pipes !== headerPipes)
        violations.push(`${at}: ${pipes - 1} cells where the header has ${headerPipes - 1}`);
    } else {
      headerPipes = undefined;
    }
  });
  return violations;
}
