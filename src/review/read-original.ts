// The on-disk contents a diff is reviewed against, read once when the diff arrives. The path
// is the agent's to choose: the read is bounded whatever the file claims to hold, and only
// regular files outside the kernel's /proc and /sys are read (DESIGN §10).
import { readBounded } from '../fs/bounded-read.ts';

export interface Original {
  /** The file's bytes, decoded only when someone reads them; null for a new file, one over the cap, one not read. */
  contents: Buffer | null;
  isNew: boolean;
  tooLarge: boolean;
  /** Why it was not read (see DiffSummary.unreadable). */
  unreadable?: string;
}

export async function readOriginal(path: string, maxBytes: number): Promise<Original> {
  try {
    const read = await readBounded(path, maxBytes);
    if (read.kind === 'missing') return { contents: null, isNew: true, tooLarge: false };
    if (read.kind === 'too-large') return { contents: null, isNew: false, tooLarge: true };
    // Not a regular file, or a kernel file: reviewed without the old side, saying so.
    if (read.kind === 'refused') return { contents: null, isNew: false, tooLarge: false, unreadable: read.why };
    return { contents: read.bytes, isNew: false, tooLarge: false };
  } catch (err) {
    // Unreadable (permissions…): review without the old side rather than fail the edit.
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'EACCES' || code === 'EPERM' ? 'Patchbay may not read it' : (err as Error).message;
    return { contents: null, isNew: false, tooLarge: false, unreadable: why };
  }
}
