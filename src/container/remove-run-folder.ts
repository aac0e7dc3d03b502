import { rm } from 'node:fs/promises';
import { CONTAINER_LABEL, mountArg, SANDBOX_FLAGS } from './create-args.js';
import { runDocker, stderrTail, type DockerCli } from './docker-cli.js';
import { CONTAINER_PATHS } from './harness-protocol.js';

/**
 * Removes a run's temporary folder, including what the container's user wrote into the report
 * folder. The harness opens that up (`chmod -R a+rwX`) as its last step, but a run stopped before
 * it (the wall-clock limit, the report folder's limits, out of memory) leaves the suites' own
 * modes: folders 0755, or 000, or sticky, owned by the container's uid. A host that is not root
 * and not that uid (GitHub's runner is uid 1001, the oracle user 1000 by default) cannot delete
 * anything in them. The host does not chmod a tree PR code shaped (Node's chmod follows links);
 * the owner does it instead, in a throwaway container of the same pinned image that sees only the
 * report folder, and the host's remove runs again.
 */

export interface ReportFolderOwner {
  cli: DockerCli;
  /** The image ID that ran (its `chmod`). */
  imageId: string;
  /** oracle.json's `user`: the owner of everything the suites wrote. */
  user: string;
  /** The report folder on the host. */
  reports: string;
  /** A name for the throwaway container. */
  name: string;
}

export interface RunFolderRemoval {
  removed: boolean;
  /** The owner's container was needed (and run). */
  openedByOwner: boolean;
  /** Why the folder is still there, when it is. */
  error?: string;
}

/**
 * `docker run` of the owner's chmod: the same hardening as the run itself, nothing mounted but the
 * report folder. `a=rwX` rather than `+`: it also clears the sticky bit, under which only a file's
 * owner may delete it.
 */
export function ownerChmodArgs(owner: Omit<ReportFolderOwner, 'cli'>): string[] {
  return [
    'run',
    '--rm',
    '--name',
    owner.name,
    '--label',
    `${CONTAINER_LABEL}=${owner.name}`,
    ...SANDBOX_FLAGS,
    '--pids-limit',
    '16',
    '--memory',
    '256m',
    '--memory-swap',
    '256m',
    '--user',
    owner.user,
    '--mount',
    mountArg(owner.reports, CONTAINER_PATHS.reports, false),
    '--entrypoint',
    'chmod',
    owner.imageId,
    // GNU chmod -R follows no link it meets; the folder itself is the host's (EPERM, ignored).
    '-R',
    'a=rwX',
    CONTAINER_PATHS.reports,
  ];
}

async function removeTree(root: string): Promise<string | undefined> {
  try {
    await rm(root, { recursive: true, force: true, maxRetries: 2 });
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? (error as Error).message;
  }
}

/** Removes `root`; never throws. `owner` is given once a container has run with the report mount. */
export async function removeRunFolder(root: string, owner?: ReportFolderOwner): Promise<RunFolderRemoval> {
  const first = await removeTree(root);
  if (first === undefined) return { removed: true, openedByOwner: false };
  if (owner === undefined) return { removed: false, openedByOwner: false, error: first };
  const opened = await runDocker(owner.cli, ownerChmodArgs(owner), { timeoutMs: 120_000 });
  if (opened.timedOut) await runDocker(owner.cli, ['rm', '--force', owner.name], { timeoutMs: 60_000 });
  const second = await removeTree(root);
  if (second === undefined) return { removed: true, openedByOwner: true };
  // chmod exits 1 for the host-owned folder itself even when it opened up all the rest.
  const chmodNote = opened.exitCode === 0 || opened.exitCode === 1 ? '' : `; chmod: ${stderrTail(opened)}`;
  return { removed: false, openedByOwner: true, error: `${second}${chmodNote}` };
}
