// Patchbay's home ($PATCHBAY_HOME) is trusted only when it is the user's own: whoever owns it,
// or can write in it, could name a program for Patchbay to run (config.json), a server for the
// CLI to talk to (control.json), keys for browsers (browser.json) or a fake "already running"
// (patchbay.sock). So the home, and each thing Patchbay keeps in it, must belong to the current
// user and be writable by nobody else; a refusal says what to do about it.
import { lstat, mkdir, readdir, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join } from 'node:path';
import { HubError } from '../api/types.ts';
import { HOME_FILES } from './home-files.ts';
import { unlessMissing } from './unless-missing.ts';
import { otherWriters } from './writers.ts';

/** What Patchbay keeps in its home; folders are checked one level down too. */
const ENTRIES = Object.values(HOME_FILES);

/** Another user could take Patchbay over through it: the message says why and how to fix it. */
export class UnsafeHomeError extends HubError {
  constructor(message: string) {
    super(message, 'conflict');
    this.name = 'UnsafeHomeError';
  }
}

function uid(): number | null {
  return process.getuid?.() ?? null;
}


function mode(stats: Stats): string {
  return (stats.mode & 0o777).toString(8);
}

/**
 * Why `stats` (of `path`) cannot be trusted, or null. `what` names it in the message;
 * `fix` says what to do about someone else's. Sockets are checked for their owner only: their
 * mode follows the umask, and nobody else can reach them in a private home.
 */
function problem(path: string, stats: Stats, me: number, what: string, fix: string): string | null {
  if (stats.uid !== me) return `${what} belongs to uid ${stats.uid}, not to you (uid ${me}): ${fix}`;
  const who = stats.isSocket() ? null : otherWriters(stats.mode);
  if (who !== null) return `${what} can be written by ${who} (mode ${mode(stats)}), so they could change what Patchbay does. Run: chmod go-w ${path}`;
  return null;
}

/** The stats that matter for `path`: a symlink's target, once the link itself is found to be ours. */
async function ownStats(path: string, me: number, what: string, fix: string): Promise<Stats | null> {
  const link = await unlessMissing(lstat(path));
  if (link === null || !link.isSymbolicLink()) return link;
  if (link.uid !== me) throw new UnsafeHomeError(`${path} is a symlink that belongs to uid ${link.uid}, not to you (uid ${me}): ${fix}`);
  return unlessMissing(stat(path));
}

/**
 * The home itself: created (0700) when missing (unless `create` is false: then a missing home
 * passes, there being nothing in it to trust), else it must be a folder of the current user
 * that nobody else may write. What every `patchbay` command checks before reading from it.
 */
export async function checkHomeDir(home: string, { create = true }: { create?: boolean } = {}): Promise<void> {
  const me = uid();
  if (create) await mkdir(home, { recursive: true, mode: 0o700 });
  if (me === null) return;
  if (!create && (await unlessMissing(lstat(home))) === null) return;
  const fix = `use a folder of your own (PATCHBAY_HOME=<folder>, made 0700 when missing), or remove ${home} if you did not make it`;
  const stats = await ownStats(home, me, `Patchbay's home ${home}`, fix);
  if (stats === null) throw new UnsafeHomeError(`Patchbay's home ${home} vanished while it was checked`);
  if (!stats.isDirectory()) throw new UnsafeHomeError(`Patchbay's home ${home} is not a folder`);
  const why = problem(home, stats, me, `Patchbay's home ${home}`, fix);
  if (why !== null) throw new UnsafeHomeError(why);
}

/**
 * The home and everything Patchbay keeps in it (config.json, control.json, browser.json,
 * patchbay.sock, history/, sign-in/ and what those folders hold). What a hub checks before it
 * starts; throws UnsafeHomeError naming the first thing it cannot trust.
 */
export async function checkHome(home: string): Promise<void> {
  await checkHomeDir(home);
  const me = uid();
  if (me === null) return;
  const check = async (path: string): Promise<Stats | null> => {
    const fix = `someone else put it there. Remove it (rm -r ${path}) if you did not, or use another PATCHBAY_HOME`;
    const stats = await ownStats(path, me, path, fix);
    const why = stats === null ? null : problem(path, stats, me, path, fix);
    if (why !== null) throw new UnsafeHomeError(why);
    return stats;
  };
  for (const name of ENTRIES) {
    const path = join(home, name);
    const stats = await check(path);
    if (stats?.isDirectory()) for (const inner of await readdir(path)) await check(join(path, inner));
  }
}
