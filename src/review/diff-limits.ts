// What an agent may ask Patchbay to hold for review (DESIGN §10): a file named by an absolute
// path outside the kernel's /proc and /sys, names of a sane length, and no more waiting bytes
// than the budget all sessions share. Pure checks: each returns why a diff is refused, or null;
// the openDiff tool answers a refusal as DIFF_REJECTED with that reason, never as an error.
import { isAbsolute, normalize } from 'node:path';
import { preview } from '../api/json.ts';
import { inKernelDir } from '../fs/bounded-read.ts';

/** Linux's PATH_MAX: no real file has a longer name. */
export const MAX_PATH_BYTES = 4096;
/** Real tab names are short (`pi-write:<call id>`, `✻ [Claude Code] a.ts (998b60) ⧉`). */
export const MAX_TAB_NAME_BYTES = 1024;

const MiB = 1024 * 1024;

function tooLong(text: string, max: number): boolean {
  // Cheap first: a string of at most max/3 UTF-16 units cannot be over max bytes.
  return text.length * 3 > max && Buffer.byteLength(text) > max;
}

/** Why `path` (the openDiff field `field`) cannot name the file under review, or null. */
export function diffPathProblem(field: string, path: string, { optional = false } = {}): string | null {
  if (path === '' && optional) return null;
  if (tooLong(path, MAX_PATH_BYTES)) return `"${field}" is longer than ${MAX_PATH_BYTES} bytes`;
  if (path.includes('\0')) return `"${field}" contains a NUL character`;
  if (!isAbsolute(path)) return `"${field}" must be an absolute path (got ${preview(path.slice(0, 100))})`;
  if (inKernelDir(normalize(path))) return `"${field}" names a kernel file (${preview(path.slice(0, 100))}); files in /proc and /sys are not reviewed`;
  return null;
}

export function tabNameProblem(tabName: string): string | null {
  return tooLong(tabName, MAX_TAB_NAME_BYTES) ? `"tab_name" is longer than ${MAX_TAB_NAME_BYTES} bytes` : null;
}

/** Why a diff of `incoming` bytes cannot wait beside `held` bytes under `budget`, or null. */
export function budgetProblem(held: number, incoming: number, budget: number): string | null {
  if (held + incoming <= budget) return null;
  const mib = (n: number): string => `${(n / MiB).toFixed(1)} MiB`;
  return `${mib(held)} of edits already wait for review and this one is ${mib(incoming)}, over the ${mib(budget)} Patchbay holds at once; decide some and try again`;
}

/** A cut of `text` to at most `max` bytes, for echoing a refused name back. */
export function cutToBytes(text: string, max: number): string {
  if (!tooLong(text, max)) return text;
  return Buffer.from(text.slice(0, max), 'utf8').subarray(0, max).toString('utf8').replace(/\uFFFD$/, '');
}
