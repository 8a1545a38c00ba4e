// The door's lockfile in each agent-facing dir (DESIGN §3): written, checked against what it
// must say (token, port, pid, folders, owner, mode) on every discovery pass and rewritten
// when it differs, and retried with backoff when it cannot be written. While a dir's door
// lockfile is out of date, `problems()` says so with the reason: agents there do not see
// Patchbay as it is, so their edits may go unreviewed.
import { isAbsolute } from 'node:path';
import { readLockfile, serializeLockfile, type Dialect, type Lockfile } from '../protocol/lockfile.ts';
import { errorReason } from './lock-dir.ts';
import { DOOR_IDE_NAME, originalPath, removeFile, writeDoorLockfile } from './takeover.ts';

export interface DiscoveryDir {
  dir: string;
  dialect: Dialect;
}

export interface DoorSpec {
  port: number;
  /** One token per agent-facing dialect; a dir whose dialect has none gets no door. */
  tokens: Partial<Record<Dialect, string>>;
  folders: string[];
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
  dialect: Dialect;
  port: number;
  lock: Lockfile;
}

function sameLock(a: Lockfile, b: Lockfile): boolean {
  return serializeLockfile(a) === serializeLockfile(b);
}

export class DoorLockfiles {
  /** dir → what its door lockfile must say. */
  private readonly wanted = new Map<string, Wanted>();
  /** dir → the door lockfile last written there, with what it said. */
  private readonly written = new Map<string, { path: string; lock: Lockfile }>();
  /** dir → why its door lockfile is out of date. */
  private readonly stale = new Map<string, string>();
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  private disposed = false;
  private readonly write: typeof writeDoorLockfile;

  constructor(private readonly opts: DoorLockfilesOptions) {
    this.write = opts.write ?? writeDoorLockfile;
  }

  /** Sets what each dir's door lockfile says and brings the files in line. Runs in the queue. */
  async publish(spec: DoorSpec): Promise<void> {
    const folders = [...new Set(spec.folders)].filter((folder) => {
      if (isAbsolute(folder)) return true;
      this.opts.log(`door: skipping folder ${JSON.stringify(folder)}: not an absolute path`);
      return false;
    });
    for (const { dir, dialect } of this.opts.dirs) {
      const token = spec.tokens[dialect];
      if (!token) this.wanted.delete(dir);
      else {
        const lock: Lockfile = { pid: this.opts.selfPid, workspaceFolders: folders, ideName: DOOR_IDE_NAME, transport: 'ws', authToken: token };
        this.wanted.set(dir, { dialect, port: spec.port, lock });
      }
    }
    await this.verify();
  }

  /** Checks every door lockfile against what it must say; rewrites, removes or retries. Runs in the queue. */
  async verify(): Promise<void> {
    if (this.disposed) return;
    let retry = false;
    for (const { dir } of this.opts.dirs) {
      const want = this.wanted.get(dir);
      const had = this.written.get(dir);
      if (had && (!want || originalPath(dir, want.port) !== had.path)) await this.remove(dir, had.path);
      if (!want) this.unstale(dir, null);
      else if (!(await this.bringInLine(dir, want))) retry = true;
    }
    this.schedule(retry);
  }

  /** The door lockfiles written, in the order of the dirs. */
  lockfiles(): string[] {
    return this.opts.dirs.flatMap(({ dir }) => {
      const written = this.written.get(dir);
      return written ? [written.path] : [];
    });
  }

  /** Why door lockfiles are out of date, one line per dir: for status, the UI and the log. */
  problems(): string[] {
    return [...this.stale.values()];
  }

  /** Deletes every door lockfile (on quit). Runs in the queue. */
  async removeAll(): Promise<void> {
    this.wanted.clear();
    for (const [dir, { path }] of [...this.written]) await this.remove(dir, path);
    this.setStale(new Map());
  }

  /** Stops retrying. Safe to call twice. */
  dispose(): void {
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  /** Returns false when it could not be checked or written (then a retry is due). */
  private async bringInLine(dir: string, want: Wanted): Promise<boolean> {
    const path = originalPath(dir, want.port);
    const found = await readLockfile(path, want.dialect, this.opts.maxLockfileBytes);
    if (!found.ok && found.failure === 'unreadable') return false; // cannot tell now; look again soon
    const differs = found.ok
      ? this.difference(found.entry.lock, found.entry.uid, found.entry.mode, want.lock)
      : found.failure === 'missing'
        ? 'missing'
        : `unusable: ${found.reason}`;
    if (differs === null) {
      this.written.set(dir, { path, lock: want.lock });
      this.unstale(dir, path);
      return true;
    }
    const ours = this.written.get(dir);
    // Unlike an update of what the door advertises, a change nobody asked for is worth a line.
    const tampered = ours?.path === path && !(found.ok && sameLock(found.entry.lock, ours.lock));
    try {
      await this.write(dir, want.port, want.lock);
    } catch (err) {
      const reason = `door lockfile ${path} is out of date (${differs}) and cannot be written: ${errorReason(err)}; agents that look in ${dir} do not see the door as it is. Retrying`;
      if (this.stale.get(dir) !== reason) this.opts.log(reason);
      this.setStale(new Map(this.stale).set(dir, reason));
      return false;
    }
    if (tampered) {
      const what = differs === 'missing' ? 'deleted by someone else' : `changed by someone else (${differs})`;
      this.opts.log(`door lockfile ${path}: ${what}; written again`);
    }
    this.written.set(dir, { path, lock: want.lock });
    this.unstale(dir, path);
    return true;
  }

  /** What is wrong with a door lockfile as found, or null when it says what it must. */
  private difference(found: Lockfile, uid: number, mode: number, want: Lockfile): string | null {
    if (this.opts.uid !== null && uid !== this.opts.uid) return `owned by uid ${uid}, not by you (uid ${this.opts.uid})`;
    if ((mode & 0o777) !== 0o600) return `mode ${(mode & 0o777).toString(8).padStart(4, '0')}, not 0600`;
    if (found.authToken !== want.authToken) return 'a token that is not the door’s';
    if (found.pid !== want.pid) return `pid ${found.pid}, not Patchbay’s`;
    if (!sameLock(found, want)) return 'not the door’s current folders';
    return null;
  }

  private async remove(dir: string, path: string): Promise<void> {
    try {
      await removeFile(path);
    } catch (err) {
      this.opts.log(`door lockfile ${path}: cannot remove: ${errorReason(err)}`);
    }
    this.written.delete(dir);
  }

  /** The dir's door lockfile is as it must be (`path`), or no longer wanted (null). */
  private unstale(dir: string, path: string | null): void {
    if (!this.stale.has(dir)) return;
    if (path !== null) this.opts.log(`door lockfile ${path}: written, up to date again`);
    const next = new Map(this.stale);
    next.delete(dir);
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
