import { createHash } from 'node:crypto';

/** The IDs de-duplicated and sorted by their UTF-8 bytes, as `LC_ALL=C sort -u` orders lines. */
export function sortedUniqueIds(ids: Iterable<string>): string[] {
  const unique = [...new Set(ids)];
  const encoded = unique.map((id) => ({ id, bytes: Buffer.from(id, 'utf8') }));
  encoded.sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  return encoded.map((e) => e.id);
}

/**
 * `tests_hash`: sha256 hex of the IDs that ran, de-duplicated, sorted by UTF-8 bytes, each followed
 * by "\n"; the same bytes as `LC_ALL=C sort -u ids.txt | sha256sum`. Undefined when no test ran.
 * An ID holding a newline or a lone surrogate would make two lists hash alike, so it is refused
 * (the JUnit parser already rejects such reports; this guards every other caller).
 */
export function testsHash(ids: Iterable<string>): string | undefined {
  const sorted = sortedUniqueIds(ids);
  if (sorted.length === 0) return undefined;
  const hash = createHash('sha256');
  for (const id of sorted) {
    if (id.includes('\n')) throw new Error('a test ID must not contain a newline');
    if (!id.isWellFormed()) throw new Error('a test ID must be well-formed Unicode');
    hash.update(id, 'utf8');
    hash.update('\n');
  }
  return hash.digest('hex');
}
