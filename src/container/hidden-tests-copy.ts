import { copyFile, chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A private snapshot of the oracle's hidden tests for the container's read-only mount: regular
 * files and folders only (a symbolic link, device, socket or FIFO is refused, as the oracle hash
 * refuses them), readable by the container's user whatever modes and umask the host checkout has,
 * and unchanged by anything that touches the oracle folder while the run goes on.
 */
export class HiddenTestsError extends Error {}

const MAX_ENTRIES = 100_000;

export async function copyHiddenTests(source: string, destination: string): Promise<number> {
  let entries = 0;
  const walk = async (from: string, to: string, shown: string): Promise<void> => {
    await mkdir(to, { mode: 0o755 });
    await chmod(to, 0o755);
    for (const name of (await readdir(from)).sort()) {
      entries += 1;
      if (entries > MAX_ENTRIES)
        throw new HiddenTestsError(`the hidden tests hold more than ${MAX_ENTRIES} entries`);
      const path = join(from, name);
      const target = join(to, name);
      const shownPath = shown === '' ? name : `${shown}/${name}`;
      const stat = await lstat(path);
      if (stat.isDirectory()) await walk(path, target, shownPath);
      else if (stat.isFile()) {
        await copyFile(path, target);
        await chmod(target, stat.mode & 0o111 ? 0o755 : 0o644);
      } else {
        throw new HiddenTestsError(
          `the hidden tests hold ${JSON.stringify(shownPath)}, which is not a regular file or folder`,
        );
      }
    }
  };
  await walk(source, destination, '');
  return entries;
}
