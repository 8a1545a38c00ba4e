// Reading a file someone else may have put in Patchbay's way (an agent's original, a project's
// pi settings, the history's index): never more than a cap whatever the file claims to hold,
// regular files only (a FIFO must not hang the read, and every fs call queued behind it), and
// never the kernel's pseudo-files, which say they hold nothing and then never end.
import { constants, type Stats } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';

// Non-blocking, so opening a FIFO returns at once (and is then refused as not a regular file);
// regular files ignore the flag. Windows has neither O_NONBLOCK nor such FIFOs.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** Where the kernel shows processes and devices as files: their sizes are made up. */
const KERNEL_DIRS = ['/proc', '/sys'];
/** The first read's size when the file says it is empty (pseudo-files always do). */
const FIRST_CHUNK = 64 * 1024;

export type BoundedRead =
  | { kind: 'bytes'; bytes: Buffer; stats: Stats }
  | { kind: 'missing' }
  | { kind: 'too-large'; stats: Stats }
  /** Not read: not a regular file, a kernel file, or a symlink where none is followed. */
  | { kind: 'refused'; why: string };

export interface BoundedReadOptions {
  /** Refuse a symlink as the last part of the path (lockfiles); default: followed. */
  noFollow?: boolean;
  /**
   * Never more than one of node's fs threads at a time (a listing of many files): the checks on
   * the descriptor run one after the other; default: side by side.
   */
  oneAtATime?: boolean;
}

/** True for a path in /proc or /sys, as written (callers resolve symlinks first when they must). */
export function inKernelDir(path: string): boolean {
  return KERNEL_DIRS.some((dir) => path === dir || path.startsWith(`${dir}/`));
}

/** A regular file opened for reading, checked on its descriptor; the caller closes `handle`. */
export type OpenedRegular = { kind: 'open'; handle: FileHandle; stats: Stats };

/**
 * Opens `path` once, non-blocking (a FIFO swapped in cannot hang the open, nor a thread of
 * node's pool), and checks what was opened, on its descriptor: a regular file outside /proc and
 * /sys, else `refused` (and closed). The file is never looked up by its path again, so what is
 * read is what was checked. `missing`: it does not exist. Other failures are thrown with node's
 * message, naming the path.
 */
export async function openRegular(path: string, options: BoundedReadOptions = {}): Promise<OpenedRegular | { kind: 'missing' } | { kind: 'refused'; why: string }> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS | (options.noFollow ? (constants.O_NOFOLLOW ?? 0) : 0));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { kind: 'missing' };
    if (code === 'ELOOP' && options.noFollow) return { kind: 'refused', why: 'it is a symlink' };
    throw err;
  }
  try {
    // Side by side: a lockfile's read is on the way to listing a new editor.
    const [stats, where] = options.oneAtATime
      ? [await handle.stat(), await openedPath(handle, path)]
      : await Promise.all([handle.stat(), openedPath(handle, path)]);
    if (!stats.isFile()) return await closed(handle, { kind: 'refused', why: describeNonRegular(stats) });
    if (inKernelDir(where)) return await closed(handle, { kind: 'refused', why: `it is a kernel file (${where})` });
    return { kind: 'open', handle, stats };
  } catch (err) {
    return closed(handle, Promise.reject(err as Error));
  }
}

async function closed<T>(handle: FileHandle, result: T | Promise<T>): Promise<T> {
  await handle.close().catch(() => {
    // A failed close of a read-only descriptor loses nothing; the result stands.
  });
  return result;
}

/**
 * At most `maxBytes` of the file at `path`: its bytes, or why not. A file that does not exist
 * is `missing`; one over the cap is `too-large` however small its size says it is. Other
 * failures (permissions, I/O) are thrown with node's message, naming the path.
 */
export async function readBounded(path: string, maxBytes: number, options: BoundedReadOptions = {}): Promise<BoundedRead> {
  const opened = await openRegular(path, options);
  if (opened.kind !== 'open') return opened;
  const { handle, stats } = opened;
  try {
    if (stats.size > maxBytes) return { kind: 'too-large', stats };
    const bytes = await readUpTo(handle, maxBytes, stats.size);
    return bytes === null ? { kind: 'too-large', stats } : { kind: 'bytes', bytes, stats };
  } finally {
    await closed(handle, null);
  }
}

export function describeNonRegular(stats: Stats): string {
  if (stats.isSymbolicLink()) return 'it is a symlink';
  if (stats.isDirectory()) return 'it is a directory';
  if (stats.isFIFO()) return 'it is a FIFO';
  if (stats.isSocket()) return 'it is a socket';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'it is a device';
  return 'it is not a regular file';
}

/** Where the opened file really is: every symlink on the way resolved, without a race on Linux. */
async function openedPath(handle: FileHandle, path: string): Promise<string> {
  if (process.platform === 'linux') {
    try {
      return await readlink(`/proc/self/fd/${handle.fd}`);
    } catch {
      // No /proc mounted: then its files cannot be read either; resolve by name.
    }
  }
  return realpath(path).catch(() => path);
}

/** The bytes from `handle`, or null when there are more than `maxBytes` (reading stops one byte past); `sizeHint` only sizes the first read. */
export async function readUpTo(handle: FileHandle, maxBytes: number, sizeHint: number): Promise<Buffer | null> {
  const limit = maxBytes + 1;
  let buffer = Buffer.allocUnsafe(Math.min(limit, sizeHint > 0 ? sizeHint + 1 : FIRST_CHUNK));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (buffer.length >= limit) return null;
      const grown = Buffer.allocUnsafe(Math.min(limit, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const asked = buffer.length - length;
    const { bytesRead } = await handle.read(buffer, length, asked, length);
    length += bytesRead;
    if (bytesRead === 0) break;
    // Short, with all the bytes fstat counted: the end, without a second read to hear it (one
    // wait less). Short before that (some FUSE file systems) reads on.
    if (bytesRead < asked && sizeHint > 0 && length >= sizeHint) break;
  }
  return length > maxBytes ? null : buffer.subarray(0, length);
}
