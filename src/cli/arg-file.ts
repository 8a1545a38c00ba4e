// A file named on the command line (a prompt, an image, edited contents), read as every file
// Patchbay reads (src/fs/bounded-read.ts): opened once, non-blocking and not through a symlink,
// checked on what was opened (a regular file, at most `maxBytes`). The folder it is in may be
// shared: another user who swapped it for a FIFO could hang the command, or for a symlink to
// your files could have them sent to a model or written into a file they can read.
import { resolve } from 'node:path';
import { readBounded } from '../fs/bounded-read.ts';

/** The bytes of `file` (as given, resolved against `cwd`); `what` names the option in errors. */
export async function readArgFile(cwd: string, file: string, maxBytes: number, what: string): Promise<Buffer> {
  const path = resolve(cwd, file);
  const read = await readBounded(path, maxBytes, { noFollow: true }).catch((err: Error) => {
    throw new Error(`${what} ${file}: ${err.message}`);
  });
  if (read.kind === 'missing') throw new Error(`${what} ${file}: no such file`);
  if (read.kind === 'refused') throw new Error(`${what} ${file} is not read: ${read.why} (only a regular file is read, and not through a symlink: give the file itself)`);
  if (read.kind === 'too-large') throw new Error(`${what} ${file} is larger than ${maxBytes} bytes`);
  return read.bytes;
}
