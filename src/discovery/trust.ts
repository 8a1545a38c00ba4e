// Whether a lock dir's lockfiles can be taken at their owner's word (DESIGN §10). Anyone who
// can write the dir, or a dir above it, can plant lockfiles, swap `.patchbay/` for a symlink
// or move Patchbay's files: such a dir is reported, and takeover does not act in it unless
// the person trusts it (setting `trustedLockDirs`). The checks follow OpenSSH's StrictModes.
import { realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { unlessMissing } from '../fs/unless-missing.ts';
import { otherWriters } from '../fs/writers.ts';

export interface DirTrust {
  /** Lockfiles here may be adopted (moved into `.patchbay/`). */
  trusted: boolean;
  /** Why not, for the person (status, UI, log); null when there is nothing to say. */
  problem: string | null;
}

const TRUSTED: DirTrust = { trusted: true, problem: null };

function octal(mode: number): string {
  return (mode & 0o7777).toString(8).padStart(4, '0');
}


/**
 * Checks `dir` and every dir above it: each must belong to the current user or root; the lock
 * dir must be writable by nobody else; a dir above it may be writable by others only with the
 * sticky bit (like /tmp: others cannot rename what is ours in it). `personTrusts` lists dirs
 * the person trusts anyway. Where there are no uids (`uid` null), every dir is trusted.
 */
export async function lockDirTrust(dir: string, uid: number | null, personTrusts: readonly string[]): Promise<DirTrust> {
  if (uid === null) return TRUSTED;
  const real = await unlessMissing(realpath(dir));
  if (real === null) return TRUSTED; // nothing in it yet; it is created private
  const trustedByPerson = new Set(personTrusts.map((d) => resolve(d)));
  if (trustedByPerson.has(resolve(dir)) || trustedByPerson.has(real)) return TRUSTED;

  const advice =
    `its lockfiles are used but not adopted (agents there see more than the door). Make it private ` +
    `(chmod 700 ${real}), or trust it: patchbay settings set trustedLockDirs '${JSON.stringify([resolve(dir)])}'`;
  const untrusted = (what: string): DirTrust => ({ trusted: false, problem: `lock dir ${dir}: ${what}; ${advice}` });

  const chain = [real];
  for (let parent = dirname(real); parent !== chain.at(-1); parent = dirname(parent)) chain.push(parent);
  // Stat'ed side by side, judged from the lock dir up: the first problem is the one reported.
  const all = await Promise.allSettled(chain.map((dir) => stat(dir)));
  for (const [i, current] of chain.entries()) {
    const result = all[i]!;
    if (result.status === 'rejected') throw result.reason;
    const stats = result.value;
    const where = i === 0 ? 'it' : `${current}, a dir above it,`;
    if (stats.uid !== uid && stats.uid !== 0) return untrusted(`${where} is owned by uid ${stats.uid}, not by you (uid ${uid})`);
    const writers = otherWriters(stats.mode);
    if (writers !== null && (i === 0 || (stats.mode & 0o1000) === 0)) {
      return untrusted(`${where} is writable by ${writers} (mode ${octal(stats.mode)})`);
    }
  }
  return TRUSTED;
}
