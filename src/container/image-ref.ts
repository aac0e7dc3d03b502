/**
 * An image reference pinned by digest: `name@sha256:<64 hex>`, optionally `name:tag@sha256:...`
 * (the tag is ignored; the digest decides). Anything else is refused: a tag alone can be moved.
 */
export interface PinnedImageRef {
  /** The repository, e.g. `127.0.0.1:5000/app-oracle`. */
  name: string;
  /** `sha256:<64 hex>`. */
  digest: string;
  /** `name@sha256:...`, the form docker pulls and lists in RepoDigests. */
  ref: string;
}

// Docker's reference grammar, simplified: an optional registry host[:port], then lowercase path
// components. It cannot start with '-', so it can never be read as an option.
const DOMAIN = String.raw`(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]{1,5})?/)`;
const COMPONENT = String.raw`[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*`;
const NAME = new RegExp(`^${DOMAIN}?${COMPONENT}(?:/${COMPONENT})*$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function parseImageRef(
  text: string,
): { ok: true; value: PinnedImageRef } | { ok: false; error: string } {
  if (typeof text !== 'string') return { ok: false, error: 'must be a string' };
  const at = text.indexOf('@');
  if (at < 0)
    return {
      ok: false,
      error: `${JSON.stringify(text.slice(0, 200))} is not pinned: use name@sha256:<64 hex>`,
    };
  const digest = text.slice(at + 1);
  if (!DIGEST.test(digest)) return { ok: false, error: `the digest must be sha256:<64 lowercase hex>` };
  let name = text.slice(0, at);
  const lastSlash = name.lastIndexOf('/');
  const colon = name.indexOf(':', lastSlash + 1);
  if (colon >= 0) {
    if (!TAG.test(name.slice(colon + 1))) return { ok: false, error: 'the tag is not a valid tag' };
    name = name.slice(0, colon);
  }
  if (name.length > 255 || !NAME.test(name)) {
    return { ok: false, error: `${JSON.stringify(name.slice(0, 200))} is not a valid image name` };
  }
  return { ok: true, value: { name, digest, ref: `${name}@${digest}` } };
}

/** Docker lists Docker Hub images by their short name; compare names in that form. */
export function familiarName(name: string): string {
  let n = name;
  for (const prefix of ['docker.io/', 'index.docker.io/', 'registry-1.docker.io/']) {
    if (n.startsWith(prefix)) n = n.slice(prefix.length);
  }
  if (n.startsWith('library/') && n.split('/').length === 2) n = n.slice('library/'.length);
  return n;
}
