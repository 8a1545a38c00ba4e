// The on-disk contents a diff is reviewed against, read once when the diff arrives.
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

// Non-blocking, so a FIFO path cannot hang the open (and every later fs call) forever;
// regular files ignore the flag. Windows has no O_NONBLOCK and no such FIFOs.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export interface Original {
  contents: string | null;
  isNew: boolean;
  tooLarge: boolean;
}

export async function readOriginal(path: string, maxBytes: number): Promise<Original> {
  let handle;
  try {
    handle = await open(path, READ_FLAGS);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { contents: null, isNew: true, tooLarge: false };
    // Unreadable (permissions, a directory…): review without the old side rather than fail the edit.
    return { contents: null, isNew: false, tooLarge: false };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { contents: null, isNew: false, tooLarge: false };
    if (stat.size > maxBytes) return { contents: null, isNew: false, tooLarge: true };
    return { contents: await handle.readFile('utf8'), isNew: false, tooLarge: false };
  } catch {
    return { contents: null, isNew: false, tooLarge: false };
  } finally {
    await handle.close();
  }
}
