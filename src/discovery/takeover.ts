// Takeover (DESIGN §3): editors' lockfiles are moved aside into `<dir>/.patchbay/` so agents
// see only the door, and moved back when Patchbay stops. Every move is one rename.
import { randomBytes } from 'node:crypto';
import { link, lstat, open, rename, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { RestoreReport } from '../api/types.ts';
import { serializeLockfile, type Dialect, type LockEntry, type Lockfile } from '../protocol/lockfile.ts';
import { ADOPTED_DIR, ensurePrivateDir, scanFolder, type ScanResult } from './lock-dir.ts';

/** The ideName of Patchbay's own door lockfile. */
export const DOOR_IDE_NAME = 'Patchbay';

export function adoptedDir(dir: string): string {
  return join(dir, ADOPTED_DIR);
}

/** `<dir>/<port>.lock`: where an editor put its lockfile, and where a restore puts it back. */
export function originalPath(dir: string, port: number): string {
  return join(dir, `${port}.lock`);
}

/** Moves `<dir>/<port>.lock` into `<dir>/.patchbay/` atomically; returns the new path. */
export async function adoptLockfile(entry: LockEntry): Promise<string> {
  const target = adoptedDir(entry.dir);
  await ensurePrivateDir(target);
  const dest = join(target, basename(entry.path));
  // Overwrites an older adopted file for the same port: one port, one live instance.
  await rename(entry.path, dest);
  return dest;
}

const noCap = { maxBytes: 64 * 1024 };

/** The lockfiles Patchbay holds adopted for one lock dir. */
export function listAdopted(dir: string, dialect: Dialect, opts = noCap): Promise<ScanResult> {
  return scanFolder(adoptedDir(dir), dir, dialect, opts);
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

/**
 * Moves one adopted file back to `<dir>/`, or deletes it when the editor has written a newer
 * lockfile there. Returns where the file went (`moved`) or the deleted path.
 */
export async function returnAdopted(path: string, dir: string): Promise<{ moved: boolean; path: string }> {
  const dest = join(dir, basename(path));
  if (await moveNoClobber(path, dest)) return { moved: true, path: dest };
  await removeFile(path);
  return { moved: false, path };
}

/**
 * Puts adopted lockfiles back: live editors' files return to `<dir>/<port>.lock` (unless the
 * editor wrote a newer one there; then the adopted copy is dropped), dead editors' files are
 * deleted. Unreadable adopted files go back too: deciding about them is not Patchbay's job.
 */
export async function restoreAdopted(
  dir: string,
  dialect: Dialect,
  isAlive: (lock: Lockfile) => boolean,
  opts = noCap,
): Promise<RestoreReport> {
  const report: RestoreReport = { restored: [], removed: [] };
  const { entries, invalid } = await listAdopted(dir, dialect, opts);
  const back = async (path: string) => {
    const outcome = await returnAdopted(path, dir);
    report[outcome.moved ? 'restored' : 'removed'].push(outcome.path);
  };
  for (const entry of entries) {
    if (isAlive(entry.lock)) await back(entry.path);
    else {
      await removeFile(entry.path);
      report.removed.push(entry.path);
    }
  }
  for (const bad of invalid) {
    if (bad.path !== adoptedDir(dir) && basename(bad.path).endsWith('.lock')) await back(bad.path);
  }
  return report;
}

/**
 * Writes the door's lockfile: 0600, in a 0700 dir, via a fresh temp file renamed over
 * `<dir>/<port>.lock` so a symlink planted there is replaced, never followed.
 */
export async function writeDoorLockfile(dir: string, port: number, lock: Lockfile): Promise<string> {
  await ensurePrivateDir(dir);
  const dest = originalPath(dir, port);
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

/** Another Patchbay's door: its lockfile, with a live pid that is not ours. */
export function isOtherPatchbay(lock: Lockfile, selfPid: number, isAlive: (pid: number) => boolean): boolean {
  return lock.ideName === DOOR_IDE_NAME && lock.pid !== selfPid && isAlive(lock.pid);
}

/** Deletes door lockfiles left by a Patchbay that died (a crash leaves one per lock dir). */
export async function removeDeadDoors(dir: string, dialect: Dialect, isAlive: (pid: number) => boolean, opts = noCap): Promise<string[]> {
  const { entries } = await scanFolder(dir, dir, dialect, opts);
  const removed: string[] = [];
  for (const entry of entries) {
    if (entry.lock.ideName !== DOOR_IDE_NAME || isAlive(entry.lock.pid)) continue;
    await removeFile(entry.path);
    removed.push(entry.path);
  }
  return removed;
}
