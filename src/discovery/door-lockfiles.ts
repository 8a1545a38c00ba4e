// The door's lockfiles in each agent-facing dir (DESIGN §3): written, checked against what they
// must say (token, port, pid, folders, owner, mode) on every discovery pass and rewritten
// when they differ, and retried with backoff when they cannot be written. While a door
// lockfile is out of date, `problems()` says so with the reason: agents there do not see
// Patchbay as it is, so their edits may go unreviewed.
//
// Claude Code run in an IDE's terminal (VS Code and its forks, JetBrains) trusts only
// lockfiles whose pid is one of its ancestors. So in a Claude dir the door's lockfile names an
// editor's pid (Patchbay's own is `patchbayPid`), and every other editor pid gets a door of its
// own (an extra listener), whose lockfile names it and its folders (`ClaudeDoors`). Outside
// such terminals Claude Code counts every lockfile containing its folder and connects only to
// one: a folder an extra door carries is left out of the main one.
import { isAbsolute } from 'node:path';
import { containingDepth } from '../broker/folders.ts';
import { readLockfile, serializeLockfile, type Dialect, type Lockfile } from '../protocol/lockfile.ts';
import { errorReason } from './lock-dir.ts';
import { DOOR_IDE_NAME, originalPath, removeFile, writeDoorLockfile } from './takeover.ts';

export interface DiscoveryDir {
  dir: string;
  dialect: Dialect;
}

/** A door of its own for one editor pid's terminals, in the Claude dirs. */
export interface ExtraDoor {
  port: number;
  token: string;
  /** The editor's pid its lockfile names. */
  pid: number;
  folders: string[];
}

/** What the door lockfiles in Claude dirs name, for Claude Code in editors' terminals. */
export interface ClaudeDoors {
  /** The editor pid the main door's lockfile names; null: Patchbay's own. */
  pid: number | null;
  extra: ExtraDoor[];
}

export interface DoorSpec {
  port: number;
  /** One token per agent-facing dialect; a dir whose dialect has none gets no door. */
  tokens: Partial<Record<Dialect, string>>;
  folders: string[];
  claude?: ClaudeDoors;
}

export interface DoorLockfilesOptions {
  dirs: DiscoveryDir[];
  selfPid: number;
  /** The current user: a door lockfile owned by anyone else is rewritten. Null: not checked. */
  uid: number | null;
  maxLockfileBytes: number;
  /** Waits after a failed write: the first, doubling up to the last. */
  retryFirstMs: number;
  retryMaxMs: number;
  /** Runs a step in the discovery queue, so door writes never interleave with takeover moves. */
  serial: <T>(step: () => Promise<T>) => Promise<T>;
  onProblemsChange: () => void;
  log: (msg: string) => void;
  /** Seam for tests: how a door lockfile is written. */
  write?: typeof writeDoorLockfile;
}

interface Wanted {
  dir: string;
  dialect: Dialect;
  port: number;
  lock: Lockfile;
}

function sameLock(a: Lockfile, b: Lockfile): boolean {
  return serializeLockfile(a) === serializeLockfile(b);
}

/** The main door's folders in a Claude dir: those no extra door carries (or holds inside one of its own). */
export function mainClaudeFolders(folders: readonly string[], extra: readonly ExtraDoor[]): string[] {
  const carried = extra.flatMap((door) => door.folders);
  return folders.filter((folder) => containingDepth(carried, folder) < 0);
}

export class DoorLockfiles {
  /** Door lockfile path → what it must say. */
  private wanted = new Map<string, Wanted>();
  /** Door lockfile path → what was last written there (or found as it must be). */
  private readonly written = new Map<string, Lockfile>();
  /** Door lockfile path → why it is out of date. */
  private readonly stale = new Map<string, string>();
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private disposed = false;
  private readonly write: typeof writeDoorLockfile;

  constructor(private readonly opts: DoorLockfilesOptions) {
    this.write = opts.write ?? writeDoorLockfile;
  }

  /** Sets what each dir's door lockfiles say and brings the files in line. Runs in the queue. */
  async publish(spec: DoorSpec): Promise<void> {
    const folders = [...new Set(spec.folders)].filter((folder) => {
      if (isAbsolute(folder)) return true;
      this.opts.log(`door: skipping folder ${JSON.stringify(folder)}: not an absolute path`);
      return false;
    });
    const wanted = new Map<string, Wanted>();
    const want = (dir: string, dialect: Dialect, port: number, lock: Omit<Lockfile, 'ideName' | 'transport'>): void => {
      wanted.set(originalPath(dir, port), { dir, dialect, port, lock: { ...lock, ideName: DOOR_IDE_NAME, transport: 'ws' } });
    };
    for (const { dir, dialect } of this.opts.dirs) {
      const token = spec.tokens[dialect];
      if (!token) continue;
      const claude = dialect === 'claude' ? spec.claude : undefined;
      if (!claude) {
        want(dir, dialect, spec.port, { pid: this.opts.selfPid, workspaceFolders: folders, authToken: token });
        continue;
      }
      const owner = { patchbayPid: this.opts.selfPid };
      want(dir, dialect, spec.port, { pid: claude.pid ?? this.opts.selfPid, workspaceFolders: mainClaudeFolders(folders, claude.extra), authToken: token, ...(claude.pid === null ? {} : owner) });
      for (const door of claude.extra) want(dir, dialect, door.port, { pid: door.pid, workspaceFolders: [...new Set(door.folders)], authToken: door.token, ...owner });
    }
    this.wanted = wanted;
    await this.verify();
  }

  /** Checks every door lockfile against what it must say; rewrites, removes or retries. Runs in the queue. */
  async verify(): Promise<void> {
    if (this.disposed) return;
    for (const path of [...this.written.keys()]) if (!this.wanted.has(path)) await this.remove(path);
    for (const path of [...this.stale.keys()]) if (!this.wanted.has(path)) this.unstale(path, false);
    // Each door file on its own, side by side.
    const inLine = await Promise.all([...this.wanted].map(([path, want]) => this.bringInLine(path, want)));
    this.schedule(inLine.includes(false));
  }

  /** The door lockfiles written, in the order of the dirs (each dir's main door first). */
  lockfiles(): string[] {
    return [...this.wanted.keys()].filter((path) => this.written.has(path));
  }

  /** Why door lockfiles are out of date, one line each: for status, the UI and the log. */
  problems(): string[] {
    return [...this.stale.values()];
  }

  /** Deletes every door lockfile (on quit). Runs in the queue. */
  async removeAll(): Promise<void> {
    this.wanted = new Map();
    for (const path of [...this.written.keys()]) await this.remove(path);
    this.setStale(new Map());
  }

  /** Stops retrying. Safe to call twice. */
  dispose(): void {
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Returns false when it could not be checked or written (then a retry is due). */
  private async bringInLine(path: string, want: Wanted): Promise<boolean> {
    const { dir } = want;
    const found = await readLockfile(path, want.dialect, this.opts.maxLockfileBytes);
    if (!found.ok && found.failure === 'unreadable') return false; // cannot tell now; look again soon
    const differs = found.ok
      ? this.difference(found.entry.lock, found.entry.uid, found.entry.mode, want.lock)
      : found.failure === 'missing'
        ? 'missing'
        : `unusable: ${found.reason}`;
    if (differs === null) {
      this.written.set(path, want.lock);
      this.unstale(path, true);
      return true;
    }
    const ours = this.written.get(path);
    // Unlike an update of what the door advertises, a change nobody asked for is worth a line.
    const tampered = ours !== undefined && !(found.ok && sameLock(found.entry.lock, ours));
    try {
      await this.write(dir, want.port, want.lock);
    } catch (err) {
      const reason = `door lockfile ${path} is out of date (${differs}) and cannot be written: ${errorReason(err)}; agents that look in ${dir} do not see the door as it is. Retrying`;
      if (this.stale.get(path) !== reason) this.opts.log(reason);
      this.setStale(new Map(this.stale).set(path, reason));
      return false;
    }
    if (tampered) {
      const what = differs === 'missing' ? 'deleted by someone else' : `changed by someone else (${differs})`;
      this.opts.log(`door lockfile ${path}: ${what}; written again`);
    }
    this.written.set(path, want.lock);
    this.unstale(path, true);
    return true;
  }

  /** What is wrong with a door lockfile as found, or null when it says what it must. */
  private difference(found: Lockfile, uid: number, mode: number, want: Lockfile): string | null {
    if (this.opts.uid !== null && uid !== this.opts.uid) return `owned by uid ${uid}, not by you (uid ${this.opts.uid})`;
    if ((mode & 0o777) !== 0o600) return `mode ${(mode & 0o777).toString(8).padStart(4, '0')}, not 0600`;
    if (found.authToken !== want.authToken) return 'a token that is not the door’s';
    if (found.pid !== want.pid) return `pid ${found.pid}, not ${want.pid === this.opts.selfPid ? 'Patchbay’s' : `the editor’s (${want.pid})`}`;
    if (!sameLock(found, want)) return 'not the door’s current folders';
    return null;
  }

  private async remove(path: string): Promise<void> {
    try {
      // Another tool may have written its own lockfile there since (another protocol's): it stays.
      const there = await readLockfile(path, 'pi', this.opts.maxLockfileBytes);
      if (!there.ok && there.failure === 'other') this.opts.log(`door lockfile ${path}: replaced by another tool's lockfile (${there.other.description}); left alone`);
      else await removeFile(path);
    } catch (err) {
      this.opts.log(`door lockfile ${path}: cannot remove: ${errorReason(err)}`);
    }
    this.written.delete(path);
  }

  /** The door lockfile is as it must be (`inLine`), or no longer wanted. */
  private unstale(path: string, inLine: boolean): void {
    if (!this.stale.has(path)) return;
    if (inLine) this.opts.log(`door lockfile ${path}: written, up to date again`);
    const next = new Map(this.stale);
    next.delete(path);
    this.setStale(next);
  }

  private setStale(next: Map<string, string>): void {
    const before = JSON.stringify([...this.stale]);
    this.stale.clear();
    for (const [dir, why] of next) this.stale.set(dir, why);
    if (JSON.stringify([...this.stale]) !== before) this.opts.onProblemsChange();
  }

  /** After a failure, tries again after a wait that doubles up to `retryMaxMs`; after a success, rests. */
  private schedule(retry: boolean): void {
    if (!retry) {
      this.failures = 0;
      return;
    }
    if (this.retryTimer || this.disposed) return;
    const wait = Math.min(this.opts.retryFirstMs * 2 ** this.failures, this.opts.retryMaxMs);
    this.failures++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.opts.serial(() => this.verify()).catch((err: unknown) => this.opts.log(`door: retry failed: ${errorReason(err)}`));
    }, wait);
  }
}
