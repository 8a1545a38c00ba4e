// Where a path leads, following only symlinks that the user or root owns. A file Patchbay
// writes for the person may sit in a folder others can write (a shared project's `.pi/`):
// another user's symlink there (to `~/.ssh/…`) must not steer the write into the person's files.
import { lstat, readlink, realpath } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';

/** Links followed in one resolution, as the kernel allows (ELOOP past it). */
const MAX_LINKS = 40;

export class UntrustedLinkError extends Error {
  constructor(
    readonly link: string,
    readonly uid: number,
  ) {
    super(`${link} is a symlink owned by uid ${uid}, neither you nor root`);
    this.name = 'UntrustedLinkError';
  }
}

function trustedOwner(uid: number): boolean {
  return uid === 0 || uid === process.getuid?.();
}

/**
 * The real path of `path` (absolute, or taken from the current folder), every symlink on the
 * way resolved; parts that do not exist yet are kept as written. Throws UntrustedLinkError for
 * a symlink owned by anyone but the user or root, and node's errors otherwise.
 */
export async function followOwnedLinks(path: string, trusted: (uid: number) => boolean = trustedOwner): Promise<string> {
  // Without owners to check (Windows), the platform's own resolution.
  if (process.getuid === undefined) return realpath(path).catch(() => path);
  let pending = (isAbsolute(path) ? path : `${process.cwd()}/${path}`).split('/');
  let done = '/';
  let links = 0;
  while (pending.length > 0) {
    const name = pending.shift()!;
    if (name === '' || name === '.') continue;
    if (name === '..') {
      done = join(done, '..');
      continue;
    }
    const next = join(done, name);
    let info;
    try {
      info = await lstat(next);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return join(next, ...pending.filter((p) => p !== ''));
      throw err;
    }
    if (!info.isSymbolicLink()) {
      done = next;
      continue;
    }
    if (!trusted(info.uid)) throw new UntrustedLinkError(next, info.uid);
    if (++links > MAX_LINKS) throw Object.assign(new Error(`${path}: more than ${MAX_LINKS} symlinks`), { code: 'ELOOP' });
    const target = await readlink(next);
    if (isAbsolute(target)) done = '/';
    pending = [...target.split('/'), ...pending];
  }
  return done;
}
