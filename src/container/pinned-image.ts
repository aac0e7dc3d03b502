import type { FailReason } from '../verdict/schema.js';
import { SUBKIND } from '../results/fail-subkinds.js';
import { engineUnreachable, runDocker, stderrTail, type DockerCli } from './docker-cli.js';
import { familiarName, parseImageRef, type PinnedImageRef } from './image-ref.js';

/**
 * Makes sure the pinned image is present and is the pinned one. It is inspected by its digest
 * reference, pulled by that reference only when missing, and accepted only when the engine lists
 * the pinned `name@sha256:...` among its RepoDigests. The caller then runs it by the content
 * addressed image ID read here, so a tag or digest moved in between cannot change what runs.
 */
export type PinnedImage =
  | { ok: true; ref: PinnedImageRef; imageId: string; pulled: boolean; ms: number }
  | { ok: false; reason: FailReason };

const IMAGE_ID = /^sha256:[0-9a-f]{64}$/;

interface Inspected {
  imageId: string;
  repoDigests: string[];
}

function parseInspect(stdout: string): Inspected | undefined {
  const line = stdout.trim();
  const space = line.indexOf(' ');
  if (space < 0) return undefined;
  try {
    const imageId: unknown = JSON.parse(line.slice(0, space));
    const repoDigests: unknown = JSON.parse(line.slice(space + 1));
    if (typeof imageId !== 'string' || !IMAGE_ID.test(imageId)) return undefined;
    if (repoDigests !== null && !Array.isArray(repoDigests)) return undefined;
    return {
      imageId,
      repoDigests: ((repoDigests ?? []) as unknown[]).filter((d): d is string => typeof d === 'string'),
    };
  } catch {
    return undefined;
  }
}

function failure(subkind: string, message: string): PinnedImage {
  return { ok: false, reason: { kind: 'custom', subkind, message } };
}

/** True when RepoDigests holds the pinned name and digest (Docker Hub names compared in short form). */
export function listsPinnedDigest(repoDigests: readonly string[], pinned: PinnedImageRef): boolean {
  return repoDigests.some((entry) => {
    const parsed = parseImageRef(entry);
    return (
      parsed.ok &&
      parsed.value.digest === pinned.digest &&
      familiarName(parsed.value.name) === familiarName(pinned.name)
    );
  });
}

export async function ensurePinnedImage(
  cli: DockerCli,
  image: string,
  options: { pullTimeoutMs?: number } = {},
): Promise<PinnedImage> {
  const started = performance.now();
  const parsed = parseImageRef(image);
  if (!parsed.ok) return failure(SUBKIND.configInvalid, `image: ${parsed.error}`);
  const pinned = parsed.value;
  const inspect = () =>
    runDocker(cli, ['image', 'inspect', '--format', '{{json .Id}} {{json .RepoDigests}}', pinned.ref], {
      timeoutMs: 60_000,
    });

  let result = await inspect();
  let pulled = false;
  if (result.exitCode !== 0) {
    if (engineUnreachable(result)) {
      return failure(SUBKIND.dockerUnavailable, `no Docker engine to run the oracle: ${stderrTail(result)}`);
    }
    const pull = await runDocker(cli, ['pull', '--quiet', pinned.ref], {
      timeoutMs: options.pullTimeoutMs ?? 600_000,
    });
    if (pull.exitCode !== 0) {
      const why = pull.timedOut
        ? `the pull took longer than ${(options.pullTimeoutMs ?? 600_000) / 1000} s`
        : stderrTail(pull);
      return failure(SUBKIND.imageUnavailable, `could not pull ${pinned.ref}: ${why}`);
    }
    pulled = true;
    result = await inspect();
    if (result.exitCode !== 0) {
      return failure(
        SUBKIND.imageUnavailable,
        `${pinned.ref} is still missing after the pull: ${stderrTail(result)}`,
      );
    }
  }
  const inspected = parseInspect(result.stdout);
  if (inspected === undefined) {
    return failure(SUBKIND.imageUnavailable, `docker image inspect gave no image ID for ${pinned.ref}`);
  }
  if (!listsPinnedDigest(inspected.repoDigests, pinned)) {
    return failure(
      SUBKIND.imageDigestMismatch,
      `the local image ${inspected.imageId} does not carry the pinned digest ${pinned.ref} (it lists ${inspected.repoDigests.slice(0, 5).join(', ') || 'no digest'})`,
    );
  }
  return {
    ok: true,
    ref: pinned,
    imageId: inspected.imageId,
    pulled,
    ms: Math.round(performance.now() - started),
  };
}
