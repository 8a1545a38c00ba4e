// Lockfiles as the peers write and read them (DESIGN §1), without Patchbay's own validation code.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, sep } from 'node:path';

export interface Lockfile {
  pid: number;
  workspaceFolders: string[];
  ideName: string;
  transport: 'ws';
  authToken: string;
  /** The VS Code extension adds it (false on Linux); agents and Patchbay ignore it. */
  runningInWindows?: boolean;
}

export interface FoundLockfile {
  path: string;
  /** From the file name, as every agent does; a `port` field inside is ignored. */
  port: number;
  lock: Lockfile;
}

export interface LockfileListing {
  found: FoundLockfile[];
  invalid: { path: string; reason: string }[];
}

/** Writes `<dir>/<port>.lock` with mode 0600 (the dir 0700 when it is created); Emacs's has no token. */
export async function writeLockfile(dir: string, port: number, lock: Omit<Lockfile, 'authToken'> & { authToken?: string }): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, `${port}.lock`);
  await writeFile(path, JSON.stringify(lock), { mode: 0o600 });
  return path;
}

function parseLockfile(text: string): Lockfile | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return `not JSON: ${(err as Error).message}`;
  }
  const v = value as Partial<Lockfile> | null;
  if (typeof v !== 'object' || v === null) return 'not an object';
  if (typeof v.pid !== 'number') return '"pid" must be a number';
  if (!Array.isArray(v.workspaceFolders) || !v.workspaceFolders.every((f) => typeof f === 'string')) {
    return '"workspaceFolders" must be an array of strings';
  }
  if (typeof v.authToken !== 'string') return '"authToken" must be a string';
  return { pid: v.pid, workspaceFolders: v.workspaceFolders, ideName: String(v.ideName ?? ''), transport: 'ws', authToken: v.authToken };
}

/** Every `*.lock` directly in `dir` (a missing dir is empty), split into readable and not. */
export async function listLockfiles(dir: string): Promise<LockfileListing> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { found: [], invalid: [] };
    throw err;
  }
  const listing: LockfileListing = { found: [], invalid: [] };
  for (const name of names.filter((n) => n.endsWith('.lock')).sort()) {
    const path = join(dir, name);
    const port = Number(name.slice(0, -'.lock'.length));
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      listing.invalid.push({ path, reason: 'file name is not <port>.lock' });
      continue;
    }
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      listing.invalid.push({ path, reason: (err as Error).message });
      continue;
    }
    const lock = parseLockfile(text);
    if (typeof lock === 'string') listing.invalid.push({ path, reason: lock });
    else listing.found.push({ path, port, lock });
  }
  return listing;
}

/** Signal 0 probes a pid; EPERM means it exists but belongs to someone else. */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Plain string prefix match on path segments, no realpath (as pi-ide and Claude Code do). */
export function folderContains(folders: string[], cwd: string): boolean {
  return folders.some((f) => cwd === f || cwd.startsWith(f.endsWith(sep) ? f : f + sep));
}

/** Whether something accepts TCP on 127.0.0.1:port. */
export function portAccepts(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
