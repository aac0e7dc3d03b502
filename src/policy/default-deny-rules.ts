import { PolicyConfigError, type PathRule } from './path-rules.js';

export interface DefaultDenyInputs {
  /** The oracle directory relative to the repository root, when it lies inside the repository. */
  oracleRepoPath?: string;
  /** `hidden_tests.dest` from oracle.json: where the hidden tests are copied in the checkout. */
  hiddenTestsDest: string;
  /** Every sealed fixture path from fixtures/manifest.json. */
  sealedPaths: readonly string[];
}

/**
 * The denies that are always on (shared/DESIGN.md, The oracle directory): the workflows,
 * the oracle itself, where the hidden tests land, and every sealed fixture. Paths are exact
 * (a directory covers everything under it); path_deny.txt's globs go after these.
 */
export function defaultDenyRules(inputs: DefaultDenyInputs): PathRule[] {
  const rules: PathRule[] = [
    { glob: '.github/**', rule: 'deny glob .github/**' },
    { path: '.github', rule: 'deny glob .github/**' },
  ];
  if (inputs.oracleRepoPath !== undefined) {
    const path = repositoryPath(inputs.oracleRepoPath, 'the oracle directory');
    rules.push({ path, rule: `oracle directory ${path}` });
  }
  const dest = repositoryPath(inputs.hiddenTestsDest, 'hidden_tests.dest');
  rules.push({ path: dest, rule: `hidden tests destination ${dest}` });
  for (const sealed of inputs.sealedPaths)
    rules.push({ path: repositoryPath(sealed, 'a sealed fixture path'), rule: 'sealed fixture' });
  return rules;
}

/** `./a/b/` -> `a/b`; refuses what cannot name a place inside the repository. */
export function repositoryPath(raw: string, what: string): string {
  const parts = raw
    .split('/')
    .filter((part, i, all) => !(part === '.' || (part === '' && (i === 0 || i === all.length - 1))));
  const path = parts.join('/');
  if (raw.startsWith('/') || parts.length === 0 || parts.some((p) => p === '' || p === '..' || p === '.'))
    throw new PolicyConfigError(
      `${what} ${JSON.stringify(raw)} is not a relative path inside the repository`,
    );
  return path;
}
