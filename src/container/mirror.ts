import { gitOk } from '../git/run-git.js';

/**
 * The repository the container sees: a fresh bare repository holding exactly one parentless
 * commit whose tree is the base commit's tree, and nothing else: no other ref, no history, no PR
 * head, no other branch, no tag, no reflog, no config from the source. PR code inside the
 * container therefore has nothing to mine (a later commit's fix, another branch's tests).
 *
 * Built with plumbing only (rev-parse, rev-list, pack-objects, index-pack, hash-object,
 * update-ref), through the hardened runGit, so nothing is checked out on the host and no upload-pack
 * or transport runs against the source. The commit object is written by hand with a fixed author
 * and date, so the same base tree always gives the same mirror commit.
 */
export interface Mirror {
  /** The mirror's only commit, which the harness checks out. */
  commit: string;
  /** The base commit's tree (and the mirror commit's). */
  tree: string;
  objectFormat: 'sha1' | 'sha256';
}

const HEX_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const MIRROR_EPOCH = '315532800 +0000';

export async function buildMirror(repoDir: string, baseSha: string, mirrorDir: string): Promise<Mirror> {
  if (!HEX_SHA.test(baseSha))
    throw new Error(`the base must be a full commit SHA, got ${JSON.stringify(baseSha.slice(0, 80))}`);
  const format = (await gitOk(repoDir, ['rev-parse', '--show-object-format'])).toString().trim();
  if (format !== 'sha1' && format !== 'sha256') throw new Error(`unknown object format ${format}`);
  const tree = (await gitOk(repoDir, ['rev-parse', '--verify', '--end-of-options', `${baseSha}^{tree}`]))
    .toString()
    .trim();

  await gitOk(repoDir, ['init', '--quiet', '--bare', `--object-format=${format}`, '--template=', mirrorDir]);
  // Every object the tree reaches (gitlinks are not followed: submodule commits stay out).
  const objects = await gitOk(repoDir, ['rev-list', '--objects', '--end-of-options', tree]);
  const pack = await gitOk(repoDir, ['pack-objects', '--stdout', '--quiet'], { input: objects });
  await gitOk(mirrorDir, ['index-pack', '--stdin'], { input: pack });

  const commitText =
    `tree ${tree}\n` +
    `author oracle-gate <oracle-gate@localhost> ${MIRROR_EPOCH}\n` +
    `committer oracle-gate <oracle-gate@localhost> ${MIRROR_EPOCH}\n` +
    `\n` +
    `oracle-gate: the tree of base commit ${baseSha}\n`;
  const commit = (
    await gitOk(mirrorDir, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: commitText })
  )
    .toString()
    .trim();
  await gitOk(mirrorDir, ['update-ref', 'refs/heads/base', commit]);
  await gitOk(mirrorDir, ['symbolic-ref', 'HEAD', 'refs/heads/base']);
  return { commit, tree, objectFormat: format };
}
