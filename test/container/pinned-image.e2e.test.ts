import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { dockerCli } from '../../src/container/docker-cli.js';
import { ensurePinnedImage } from '../../src/container/pinned-image.js';

const docker = (...args: string[]) =>
  execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

describe('ensurePinnedImage against the engine and the local registry', () => {
  it('finds the pinned test image and returns its content-addressed ID', async () => {
    const image = inject('testImage');
    const result = await ensurePinnedImage(dockerCli(), image);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.pulled).toBe(false);
      expect(result.imageId).toBe(docker('image', 'inspect', '--format', '{{.Id}}', image));
    }
  });

  it('pulls by digest only when the image is missing, then verifies it', async () => {
    // A second repository for the same image: pushed, then forgotten locally, so only a pull brings it back.
    const repo = `127.0.0.1:5000/oracle-gate-pull-${randomBytes(4).toString('hex')}`;
    docker('tag', inject('testImage'), `${repo}:t`);
    docker('push', '--quiet', `${repo}:t`);
    const digest = docker(
      'image',
      'inspect',
      '--format',
      '{{range .RepoDigests}}{{println .}}{{end}}',
      `${repo}:t`,
    )
      .split('\n')
      .find((d) => d.startsWith(`${repo}@`));
    expect(digest).toMatch(/@sha256:[0-9a-f]{64}$/);
    docker('rmi', `${repo}:t`);
    expect(() => docker('image', 'inspect', digest ?? '')).toThrow();
    try {
      const result = await ensurePinnedImage(dockerCli(), digest ?? '');
      expect(result.ok).toBe(true);
      if (result.ok) expect(result.pulled).toBe(true);
    } finally {
      execFileSync('docker', ['rmi', digest ?? ''], { stdio: 'ignore' });
    }
  });

  it('fails with image-unavailable when the pinned digest exists nowhere', async () => {
    const missing = `127.0.0.1:5000/oracle-gate-test@sha256:${randomBytes(32).toString('hex')}`;
    const result = await ensurePinnedImage(dockerCli(), missing);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason.subkind).toBe('image-unavailable');
      expect(result.reason.message).toContain(missing);
    }
  });

  it('refuses a tag before asking the engine anything', async () => {
    const result = await ensurePinnedImage(
      dockerCli('/nonexistent/docker'),
      '127.0.0.1:5000/oracle-gate-test:py',
    );
    expect(result).toEqual({
      ok: false,
      reason: {
        kind: 'custom',
        subkind: 'config-invalid',
        message: expect.stringMatching(/^image: .*not pinned/),
      },
    });
  });

  it('says so when there is no engine to ask', async () => {
    const cli = dockerCli('docker', {
      PATH: process.env.PATH,
      DOCKER_HOST: 'unix:///nonexistent/docker.sock',
    });
    const result = await ensurePinnedImage(cli, inject('testImage'));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.subkind).toBe('docker-unavailable');
  });
});
