// Files in $PATCHBAY_HOME that hold secrets: written 0600 through a fresh temp file renamed
// into place (a reader never sees half of one, a planted symlink is replaced, not followed),
// and read only when they are still private (ours, a regular file, no group or other bits).
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** `sync`: on disk before it is renamed into place (a record that must outlive a power cut). */
export async function writePrivateFile(path: string, text: string | Buffer, { sync = false }: { sync?: boolean } = {}): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx' refuses an existing path, so a planted file or symlink is never written through.
  const handle = await open(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(0o600); // the umask may have taken bits off; never more
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

export type PrivateRead = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'unsafe'; why: string };

/** The file's text, unless it is missing, or could have been read or planted by someone else. */
export async function readPrivateFile(path: string, maxBytes: number): Promise<PrivateRead> {
  let handle;
  try {
    // Non-blocking: a FIFO put in the file's place must not hang the reader (it is refused below).
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP') return { kind: 'unsafe', why: 'it is a symlink' };
    throw err;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'unsafe', why: 'it is not a regular file' };
    const uid = process.getuid?.();
    if (uid !== undefined && info.uid !== uid) return { kind: 'unsafe', why: `it belongs to uid ${info.uid}, not ${uid}` };
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
      return { kind: 'unsafe', why: `its mode is ${(info.mode & 0o777).toString(8)}, not 600` };
    }
    if (info.size > maxBytes) return { kind: 'unsafe', why: `it is larger than ${maxBytes} bytes` };
    return { kind: 'text', text: await handle.readFile('utf8') };
  } finally {
    await handle.close();
  }
}
