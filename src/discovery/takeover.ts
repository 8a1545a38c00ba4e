// Takeover (DESIGN §3): editors' lockfiles are moved aside into `<dir>/.patchbay/` so agents
// see only the door, and moved back when Patchbay stops. Every move is one rename, and a live
// editor's lockfile is never deleted: what sits in its way on the way back is moved aside.
import { randomBytes } from 'node:crypto';
import { link, lstat, open, rename, rmdir, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { RestoreReport } from '../api/types.ts';
import { readLockfile, serializeLockfile, type Dialect, type LockEntry, type Lockfile } from '../protocol/lockfile.ts';
import { ADOPTED_DIR, currentUid, ensureLockDir, ensureOwnDir, errorReason, ownDirProblem, scanFolder, type ScanResult } from './lock-dir.ts';

/** The ideName of Patchbay's own door lockfile. */
export const DOOR_IDE_NAME = 'Patchbay';

export function adoptedDir(dir: string): string {
  return join(dir, ADOPTED_DIR);
}

/** `<dir>/<port>.lock`: where an editor put its lockfile, and where a restore puts it back. */
export function originalPath(dir: string, port: number): string {
  return join(dir, `${port}.lock`);
}

/** `<dir>/.patchbay/<port>.lock`: where an adopted lockfile is kept. */
export function heldPath(dir: string, port: number): string {
  return join(adoptedDir(dir), `${port}.lock`);
}

/**
 * Moves `from` into `<dir>/.patchbay/` atomically (replacing an older adopted file for the same
 * port: one port, one live instance); returns the new path. `.patchbay/` must be a private dir
 * of the current user's: a symlink or someone else's dir there is refused.
 */
export async function adoptLockfile(from: string, dir: string, uid: number | null = currentUid()): Promise<string> {
  await ensureOwnDir(adoptedDir(dir), uid);
  const dest = join(adoptedDir(dir), basename(from));
  await rename(from, dest);
  return dest;
}

const noCap = { maxBytes: 64 * 1024 };

/** The lockfiles Patchbay holds adopted for one lock dir; none from a `.patchbay` it cannot trust. */
export async function listAdopted(dir: string, dialect: Dialect, opts = noCap, uid: number | null = currentUid()): Promise<ScanResult & { refused: string | null }> {
  const refused = await ownDirProblem(adoptedDir(dir), uid);
  if (refused !== null) return { entries: [], invalid: [], others: [], unreadable: [], unlisted: null, refused };
  return { ...(await scanFolder(adoptedDir(dir), dir, dialect, opts)), refused };
}

/**
 * Moves a file to `dest` unless something already exists there. link() fails with EEXIST
 * atomically, so a lockfile an editor wrote meanwhile is never overwritten. Returns false
 * when `dest` was taken.
 */
export async function moveNoClobber(src: string, dest: string): Promise<boolean> {
  try {
    await link(src, dest);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // File systems without hard links: check, then rename (a narrow race, but no follow).
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EMLINK') throw err;
    if (await exists(dest)) return false;
    await rename(src, dest);
    return true;
  }
  await removeFile(src);
  return true;
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

export type ReturnOutcome =
  /** Back at `path` (`displaced`: where what sat there was moved). */
  | { kind: 'moved'; path: string; displaced: string | null }
  /** The editor wrote a newer lockfile at the original path: the adopted copy was deleted. */
  | { kind: 'superseded'; path: string }
  /** Could not go back; still at `path` (never deleted). */
  | { kind: 'stuck'; path: string; reason: string };

export interface ReturnOptions {
  /** Whether a pid lives: a newer lockfile only supersedes the adopted one if its editor does. */
  isAlive: (pid: number) => boolean;
  uid?: number | null;
  maxBytes?: number;
}

/** Tries to put a moved-aside foreign file back on each of these attempts (a writer may race us). */
const RETURN_ATTEMPTS = 3;

/**
 * Moves one adopted file back to `<dir>/`. If a newer lockfile of the current user's, whose
 * pid lives, sits there, the editor has spoken again: the adopted copy is deleted. Another
 * protocol's lockfile there is another tool's, left exactly as it is: the adopted copy stays.
 * Anything else in the way (garbage, someone else's file, a stale one) is moved aside to
 * `<port>.lock.displaced-<time>` (agents read only `*.lock`), so the editor's file goes back.
 * A file that cannot go back stays adopted: it is never deleted while its editor may live.
 */
export async function returnAdopted(path: string, dir: string, opts: ReturnOptions): Promise<ReturnOutcome> {
  const dest = join(dir, basename(path));
  const uid = opts.uid === undefined ? currentUid() : opts.uid;
  let displaced: string | null = null;
  try {
    for (let attempt = 0; attempt < RETURN_ATTEMPTS; attempt++) {
      if (await moveNoClobber(path, dest)) return { kind: 'moved', path: dest, displaced };
      const occupant = await readLockfile(dest, 'pi', opts.maxBytes ?? noCap.maxBytes, dir);
      if (occupant.ok && (uid === null || occupant.entry.uid === uid) && opts.isAlive(occupant.entry.lock.pid)) {
        await removeFile(path);
        return { kind: 'superseded', path };
      }
      if (!occupant.ok && occupant.failure === 'missing') continue; // gone meanwhile: try again
      if (!occupant.ok && occupant.failure === 'other') {
        return { kind: 'stuck', path, reason: `${dest} is another tool's lockfile (${occupant.other.description}), which Patchbay leaves alone` };
      }
      if (!occupant.ok && occupant.failure === 'unreadable') {
        return { kind: 'stuck', path, reason: `cannot read what is at ${dest}: ${occupant.reason}` };
      }
      const aside = `${dest}.displaced-${Date.now()}-${randomBytes(3).toString('hex')}`;
      if (await moveNoClobber(dest, aside)) displaced = aside;
    }
    return { kind: 'stuck', path, reason: `${dest} keeps being taken` };
  } catch (err) {
    return { kind: 'stuck', path, reason: errorReason(err) };
  }
}

/** What a restore did, with what the person should hear about (files moved aside, files stuck). */
export interface RestoreOutcome extends RestoreReport {
  warnings: string[];
}

/** One returned file in the words of the log and the restore report. */
export function describeReturn(from: string, outcome: ReturnOutcome, why: string): string {
  switch (outcome.kind) {
    case 'moved':
      return outcome.displaced === null
        ? `lockfile ${from}: moved back to ${outcome.path} (${why})`
        : `lockfile ${from}: moved back to ${outcome.path} (${why}); what was there is now ${outcome.displaced}`;
    case 'superseded':
      return `lockfile ${from}: dropped, the editor wrote a newer one (${why})`;
    case 'stuck':
      return `lockfile ${from}: cannot move back (${why}): ${outcome.reason}; it stays where it is`;
  }
}

/**
 * Puts adopted lockfiles back: live editors' files return to `<dir>/<port>.lock` (see
 * returnAdopted), dead editors' files are deleted. Unreadable adopted files go back too:
 * deciding about them is not Patchbay's job. Files that could not be read for a reason of
 * this machine's are left alone, and so is a `.patchbay` that is not Patchbay's own dir.
 */
export async function restoreAdopted(
  dir: string,
  dialect: Dialect,
  isAlive: (pid: number) => boolean,
  opts: { maxBytes: number; uid?: number | null } = noCap,
): Promise<RestoreOutcome> {
  const report: RestoreOutcome = { restored: [], removed: [], warnings: [] };
  const uid = opts.uid === undefined ? currentUid() : opts.uid;
  const { entries, invalid, unreadable, unlisted, refused } = await listAdopted(dir, dialect, opts, uid);
  if (refused !== null) report.warnings.push(`not restoring from ${adoptedDir(dir)}: ${refused}`);
  if (unlisted !== null) report.warnings.push(`not restoring: ${unlisted}`);
  for (const bad of unreadable) report.warnings.push(`lockfile ${bad.path}: left adopted: ${bad.reason}`);
  const back = async (path: string, why: string) => {
    const outcome = await returnAdopted(path, dir, { isAlive, uid, maxBytes: opts.maxBytes });
    if (outcome.kind === 'moved') report.restored.push(outcome.path);
    if (outcome.kind === 'superseded') report.removed.push(outcome.path);
    if (outcome.kind === 'stuck' || (outcome.kind === 'moved' && outcome.displaced !== null)) {
      report.warnings.push(describeReturn(path, outcome, why));
    }
  };
  for (const entry of entries) {
    if (isAlive(entry.lock.pid)) await back(entry.path, 'restore');
    else {
      await removeFile(entry.path);
      report.removed.push(entry.path);
    }
  }
  for (const bad of invalid) {
    if (basename(bad.path).endsWith('.lock')) await back(bad.path, `restore; ${bad.reason}`);
  }
  // Nothing of Patchbay's stays in an agent's lock dir: an emptied `.patchbay/` goes too.
  if (refused === null) await rmdir(adoptedDir(dir)).catch(() => {});
  return report;
}

/**
 * Writes the door's lockfile: 0600, via a fresh temp file renamed over `<dir>/<port>.lock` so
 * a symlink planted there is replaced, never followed. A missing lock dir is created 0700.
 */
export async function writeDoorLockfile(dir: string, port: number, lock: Lockfile): Promise<string> {
  await ensureLockDir(dir);
  const dest = originalPath(dir, port);
  // Renamed over whatever is there, except another tool's lockfile (a narrow race remains: one
  // written between this read and the rename is replaced).
  const there = await readLockfile(dest, 'pi', noCap.maxBytes, dir);
  if (!there.ok && there.failure === 'other') throw new Error(`${dest} is another tool's lockfile (${there.other.description}), which Patchbay leaves alone`);
  const temp = join(dir, `.${port}.lock.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    try {
      await handle.writeFile(serializeLockfile(lock));
      await handle.chmod(0o600); // the umask may have taken bits off; never more
    } finally {
      await handle.close();
    }
    await rename(temp, dest);
  } catch (err) {
    await removeFile(temp);
    throw err;
  }
  return dest;
}

/** Deletes a file; one that is already gone is fine. */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** A door lockfile (ideName Patchbay) of the current user's: another user's is no Patchbay of ours. */
export function isOwnDoor(entry: LockEntry, uid: number | null): boolean {
  return entry.lock.ideName === DOOR_IDE_NAME && (uid === null || entry.uid === uid);
}

/** The Patchbay that serves a door lockfile: `patchbayPid` when its `pid` names an editor, else `pid`. */
export function doorOwner(lock: Lockfile): number {
  return lock.patchbayPid ?? lock.pid;
}

/** Another Patchbay's door: its lockfile, served by a live pid that is not ours. */
export function isOtherPatchbay(lock: Lockfile, selfPid: number, isAlive: (pid: number) => boolean): boolean {
  return lock.ideName === DOOR_IDE_NAME && doorOwner(lock) !== selfPid && isAlive(doorOwner(lock));
}

/** Deletes door lockfiles left by a Patchbay of this user's that died (a crash leaves one or more per lock dir). */
export async function removeDeadDoors(dir: string, dialect: Dialect, isAlive: (pid: number) => boolean, opts = noCap): Promise<string[]> {
  const { entries } = await scanFolder(dir, dir, dialect, opts);
  const removed: string[] = [];
  const uid = currentUid();
  for (const entry of entries) {
    if (!isOwnDoor(entry, uid) || isAlive(doorOwner(entry.lock))) continue;
    await removeFile(entry.path);
    removed.push(entry.path);
  }
  return removed;
}
