import { describe, expect, it } from 'vitest';
import { familiarName, parseImageRef } from '../../src/container/image-ref.js';
import { listsPinnedDigest } from '../../src/container/pinned-image.js';

const D = `sha256:${'a'.repeat(64)}`;

describe('parseImageRef', () => {
  it.each([
    [`registry.example/app-oracle@${D}`, 'registry.example/app-oracle'],
    [`127.0.0.1:5000/oracle-gate-test@${D}`, '127.0.0.1:5000/oracle-gate-test'],
    [`ubuntu@${D}`, 'ubuntu'],
    [`ghcr.io/org/team/app__x.y-z@${D}`, 'ghcr.io/org/team/app__x.y-z'],
    [`localhost:5000/app:v1.2@${D}`, 'localhost:5000/app'],
  ])('accepts %s', (text, name) => {
    const parsed = parseImageRef(text);
    expect(parsed).toEqual({ ok: true, value: { name, digest: D, ref: `${name}@${D}` } });
  });

  it.each([
    ['registry.example/app:latest', /not pinned/],
    ['registry.example/app', /not pinned/],
    [`registry.example/app@sha256:${'A'.repeat(64)}`, /digest/],
    [`registry.example/app@sha256:${'a'.repeat(63)}`, /digest/],
    [`registry.example/app@sha512:${'a'.repeat(128)}`, /digest/],
    [`-v/var/run/docker.sock@${D}`, /not a valid image name/],
    [`App/Upper@${D}`, /not a valid image name/],
    [`app name@${D}`, /not a valid image name/],
    [`@${D}`, /not a valid image name/],
    [`app:bad tag@${D}`, /tag/],
  ])('refuses %s', (text, error) => {
    const parsed = parseImageRef(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.error).toMatch(error);
  });
});

describe('the RepoDigests check', () => {
  const pinned = { name: 'docker.io/library/ubuntu', digest: D, ref: `docker.io/library/ubuntu@${D}` };

  it('compares Docker Hub names in their short form', () => {
    expect(familiarName('docker.io/library/ubuntu')).toBe('ubuntu');
    expect(familiarName('docker.io/me/app')).toBe('me/app');
    expect(familiarName('127.0.0.1:5000/app')).toBe('127.0.0.1:5000/app');
    expect(listsPinnedDigest([`ubuntu@${D}`], pinned)).toBe(true);
  });

  it('needs both the name and the digest to match', () => {
    expect(listsPinnedDigest([`ubuntu@sha256:${'b'.repeat(64)}`], pinned)).toBe(false);
    expect(listsPinnedDigest([`debian@${D}`], pinned)).toBe(false);
    expect(listsPinnedDigest([], pinned)).toBe(false);
  });
});
