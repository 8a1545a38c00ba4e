// Rewriting a person's file from what it holds now (an undo of an agent's edit): read once, the new
// text made from those very bytes, then written beside it and renamed over it, so a reader sees the
// old file or the new one and never half of either. The file keeps its mode; it is written only in
// the folder it was read from (held open, and on Linux every later step goes through that open
// folder, so a folder swapped for a symlink meanwhile cannot move the write), never through a
// symlink someone else owns, and never over a file that changed since it was read (then it is read
// again and the new text made again). Nothing is left behind on any failure.
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { lstat, open, readlink, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { describeNonRegular, readUpTo } from './bounded-read.ts';
import { followOwnedLinks } from './owned-links.ts';

/** What to make of the file's text: the new text, null to remove the file, or a refusal (nothing written). */
export type Rewrite = { text: string } | { remove: true } | { refuse: string };

export type RewriteOutcome = { kind: 'written' | 'removed' | 'unchanged' } | { kind: 'refused'; why: string };

/** A file that keeps changing under the rewrite gives up after this many reads. */
const ATTEMPTS = 4;

export class RewriteError extends Error {}

/**
 * Rewrites `path` with `change(text)`, `text` being the file as read now (at most `maxBytes`, UTF-8).
 * Throws RewriteError (saying what and where) when the file cannot be read or written safely.
 */
export async function rewriteFile(path: string, maxBytes: number, change: (text: string) => Rewrite): Promise<RewriteOutcome> {
  let target: string;
  try {
    target = await followOwnedLinks(path);
  } catch (err) {
    throw new RewriteError(`${path}: ${(err as Error).message}; Patchbay writes only through your own links`);
  }
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const outcome = await once(path, target, maxBytes, change);
    if (outcome !== 'changed') return outcome;
  }
  throw new RewriteError(`${path} kept changing while Patchbay rewrote it (${ATTEMPTS} tries); nothing was written, try again`);
}

async function once(path: string, target: string, maxBytes: number, change: (text: string) => Rewrite): Promise<RewriteOutcome | 'changed'> {
  const folder = await openFolder(path, dirname(target));
  try {
    const name = basename(target);
    const inFolder = (entry: string): string => join(folder.path, entry);
    const read = await readFile(path, inFolder(name), maxBytes);
    const wanted = change(read.text);
    if ('refuse' in wanted) return { kind: 'refused', why: wanted.refuse };
    if ('text' in wanted && wanted.text === read.text) return { kind: 'unchanged' };
    const temp = `.${name}.patchbay.${randomBytes(6).toString('hex')}.tmp`;
    if ('text' in wanted) await writeTemp(path, inFolder(temp), wanted.text, read.stats.mode & 0o7777);
    try {
      // Just before the rename: the very file that was read, unchanged (another writer's version wins).
      if (!sameFile(await lstat(inFolder(name)).catch(() => null), read.stats)) {
        await rm(inFolder(temp), { force: true });
        return 'changed';
      }
      if ('remove' in wanted) {
        await rm(inFolder(name));
        return { kind: 'removed' };
      }
      await rename(inFolder(temp), inFolder(name));
      return { kind: 'written' };
    } catch (err) {
      await rm(inFolder(temp), { force: true });
      throw new RewriteError(`${path}: could not be written: ${(err as Error).message}`);
    }
  } finally {
    await folder.close();
  }
}

/** The file's folder, held open; `path` reaches it through that descriptor where the platform lets it. */
async function openFolder(shown: string, dir: string): Promise<{ path: string; close(): Promise<void> }> {
  let handle: FileHandle;
  try {
    handle = await open(dir, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (err) {
    throw new RewriteError(`${shown}: its folder ${dir} cannot be opened: ${(err as Error).message}`);
  }
  const close = () => handle.close().catch(() => {});
  if (process.platform !== 'linux') return { path: dir, close };
  // /proc/self/fd/N is the folder that was opened, wherever its name points now.
  const viaFd = `/proc/self/fd/${handle.fd}`;
  const ok = await readlink(viaFd).then(
    () => true,
    () => false,
  );
  return { path: ok ? viaFd : dir, close };
}

async function readFile(shown: string, path: string, maxBytes: number): Promise<{ text: string; stats: Stats }> {
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new RewriteError(`${shown} does not exist (any more)`);
    if (code === 'ELOOP') throw new RewriteError(`${shown} is a symlink now; Patchbay does not write through it`);
    throw new RewriteError(`${shown}: cannot be read: ${(err as Error).message}`);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new RewriteError(`${shown} is not rewritten: ${describeNonRegular(stats)}`);
    const uid = process.getuid?.();
    if (uid !== undefined && stats.uid !== uid) throw new RewriteError(`${shown} belongs to uid ${stats.uid}, not you; Patchbay leaves it as it is`);
    // Replacing one name of a file with several would part it from the others.
    if (stats.nlink > 1) throw new RewriteError(`${shown} has ${stats.nlink} hard links; replacing it would part it from the others, so Patchbay leaves it as it is`);
    const bytes = stats.size > maxBytes ? null : await readUpTo(handle, maxBytes, stats.size);
    if (bytes === null) throw new RewriteError(`${shown} is larger than ${maxBytes} bytes; Patchbay does not rewrite it`);
    const text = bytes.toString('utf8');
    // Bytes that are not UTF-8 would not come back as they were.
    if (!Buffer.from(text, 'utf8').equals(bytes)) throw new RewriteError(`${shown} is not UTF-8 text; Patchbay leaves it as it is`);
    return { text, stats };
  } finally {
    await handle.close().catch(() => {});
  }
}

async function writeTemp(shown: string, temp: string, text: string, mode: number): Promise<void> {
  let handle: FileHandle;
  try {
    // 'wx': never an existing name (a planted file or symlink is not written through).
    handle = await open(temp, 'wx', mode);
  } catch (err) {
    throw new RewriteError(`${shown}: cannot create a temp file beside it: ${(err as Error).message}`);
  }
  try {
    await handle.writeFile(text, 'utf8');
    await handle.chmod(mode); // the umask narrowed the mode given to open
    await handle.sync();
  } catch (err) {
    await handle.close().catch(() => {});
    await rm(temp, { force: true });
    throw new RewriteError(`${shown}: could not be written: ${(err as Error).message}`);
  }
  await handle.close();
}

function sameFile(now: Stats | null, read: Stats): boolean {
  return now !== null && !now.isSymbolicLink() && now.ino === read.ino && now.dev === read.dev && now.size === read.size && now.mtimeMs === read.mtimeMs;
}
