import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Makes a folder the host built readable by the container's user, who is not the host's: folders
 * 0755, files 0644 (0755 where executable). Modes given at creation pass through the process
 * umask, which on some runners is 077; an explicit chmod does not. Symbolic links are left alone.
 */
export async function makeReadableByAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const stat = await lstat(path);
    if (stat.isDirectory()) await makeReadableByAll(path);
    else if (stat.isFile()) await chmod(path, stat.mode & 0o111 ? 0o755 : 0o644);
  }
}
