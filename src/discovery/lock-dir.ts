// One lock dir on disk: list its lockfiles, and notice when anything in it changes.
import { watch, type FSWatcher } from 'node:fs';
import { chmod, lstat, mkdir, readdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { InvalidLockfile } from '../api/types.ts';
import { unlessMissing } from '../fs/unless-missing.ts';
import { readLockfile, type Dialect, type LockEntry, type OtherLockfile } from '../protocol/lockfile.ts';

/** Where Patchbay keeps the lockfiles it adopted, inside each lock dir. */
export const ADOPTED_DIR = '.patchbay';

export interface ScanResult {
  entries: LockEntry[];
  invalid: InvalidLockfile[];
  /** Other protocols' lockfiles (another tool's, sharing the dir): never Patchbay's to touch. */
  others: OtherLockfile[];
  /**
   * Files that could not be read for a reason of this machine's (out of descriptors, an I/O
   * error): nothing is known about them, so whoever acts on the scan keeps what it knew.
   */
  unreadable: InvalidLockfile[];
  /** The folder itself could not be listed for such a reason: nothing in it is known. */
  unlisted: string | null;
}

export interface ScanOptions {
  maxBytes: number;
}

/** The first part of a system error's message, without Node's `, syscall 'path'` tail. */
export function errorReason(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (typeof e?.code === 'string' && typeof e.message === 'string' && e.message.startsWith(`${e.code}: `)) {
    return `${e.message.split(', ')[0]}${e.syscall ? ` (${e.syscall})` : ''}`;
  }
  return e instanceof Error ? e.message : String(err);
}

/**
 * Reads every `*.lock` directly in `folder`. Dotfiles (our temp files, `.patchbay/`) are not
 * lockfiles; a file that vanishes mid-scan is simply gone. `ownerDir` is the agent-facing dir
 * the entries belong to (differs from `folder` for `.patchbay/`). A folder that is missing or
 * not a folder holds nothing.
 */
export async function scanFolder(folder: string, ownerDir: string, dialect: Dialect, opts: ScanOptions): Promise<ScanResult> {
  const scan: ScanResult = { entries: [], invalid: [], others: [], unreadable: [], unlisted: null };
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') scan.unlisted = `cannot list ${folder}: ${errorReason(err)}`;
    return scan;
  }
  const lockNames = names.filter((name) => name.endsWith('.lock') && !name.startsWith('.')).sort();
  const results = await Promise.all(lockNames.map((name) => readLockfile(join(folder, name), dialect, opts.maxBytes, ownerDir)));
  for (const result of results) {
    if (result.ok) scan.entries.push(result.entry);
    else if (result.failure === 'other') scan.others.push(result.other);
    else if (result.failure === 'invalid') scan.invalid.push({ path: result.path, reason: result.reason });
    else if (result.failure === 'unreadable') scan.unreadable.push({ path: result.path, reason: result.reason });
  }
  return scan;
}

/** The lockfiles directly in an agent-facing lock dir. */
export function scanLockDir(dir: string, dialect: Dialect, opts: ScanOptions): Promise<ScanResult> {
  return scanFolder(dir, dir, dialect, opts);
}

/**
 * Creates a lock dir (and missing parents) with mode 0700. A pre-existing dir keeps its mode:
 * it is the person's. Returns whether `dir` itself was created.
 */
export async function ensureLockDir(dir: string): Promise<boolean> {
  const first = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return false;
  // mkdir's mode passes through the umask; make the dir we created exactly 0700.
  await chmod(dir, 0o700);
  return true;
}

/** The current user, or null where there are no uids (Windows): then ownership is not checked. */
export function currentUid(): number | null {
  return process.getuid?.() ?? null;
}

/**
 * Why a dir of Patchbay's own (`.patchbay/`) cannot be used as it is, or null when it can (or
 * does not exist yet). It must be a real dir, not a symlink (whose target anyone may have
 * chosen), owned by the current user.
 */
export async function ownDirProblem(dir: string, uid: number | null): Promise<string | null> {
  const stats = await unlessMissing(lstat(dir));
  if (stats === null) return null;
  if (stats.isSymbolicLink()) return `${dir} is a symlink; Patchbay keeps adopted lockfiles only in a dir of its own`;
  if (!stats.isDirectory()) return `${dir} is not a directory`;
  if (uid !== null && stats.uid !== uid) return `${dir} is owned by uid ${stats.uid}, not by you (uid ${uid})`;
  return null;
}

/**
 * Makes sure a dir of Patchbay's own exists as a real, private (0700) dir of the current user:
 * created if missing, its mode narrowed if someone widened it; refused (throws, naming why) if
 * it is a symlink, not a dir, or someone else's.
 */
export async function ensureOwnDir(dir: string, uid: number | null): Promise<void> {
  const problem = await ownDirProblem(dir, uid);
  if (problem !== null) throw new Error(problem);
  if (await ensureLockDir(dir)) return;
  // mkdir did not create it: it existed (or appeared meanwhile); check what it is now.
  const again = await ownDirProblem(dir, uid);
  if (again !== null) throw new Error(again);
  const stats = await lstat(dir);
  if ((stats.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}

export interface LockDirWatcherOptions {
  /** Polling interval while fs.watch is not watching (it failed, or the dir is missing). */
  pollMs: number;
  /**
   * Polling interval while it is: only a safety net then, for what it does not report (the
   * insides of `.patchbay/`). Default: WATCHED_POLL_FACTOR × pollMs.
   */
  watchedPollMs?: number;
  debounceMs?: number;
  onChange: () => void;
  log?: (msg: string) => void;
}

/** How much slower the safety poll runs while fs.watch watches: an idle daemon should cost next to nothing. */
export const WATCHED_POLL_FACTOR = 10;

/**
 * Watches one lock dir. fs.watch is the fast path; a poll compares a cheap listing signature
 * (names, sizes, mtimes, inodes, one level into `.patchbay/`) so missed events still surface:
 * every pollMs while fs.watch is not watching, seldom while it is.
 */
export class LockDirWatcher {
  private watcher: FSWatcher | null = null;
  /** The inode fs.watch follows: a dir replaced under it (or by a file) needs a new watcher. */
  private watchedIno: number | null = null;
  /**
   * fs.watch said the dir itself went (removed or renamed): its watcher hears nothing more, even
   * when a new dir appears at once under the same inode number (filesystems reuse them).
   */
  private watchedGone = false;
  private pollTimer: NodeJS.Timeout | null = null;
  private readonly watchedPollMs: number;
  private debounceTimer: NodeJS.Timeout | null = null;
  private signature = '';
  private polling = false;
  private closed = false;
  private readonly debounceMs: number;
  private readonly log: (msg: string) => void;

  constructor(
    readonly dir: string,
    private readonly opts: LockDirWatcherOptions,
  ) {
    this.debounceMs = opts.debounceMs ?? 20;
    this.watchedPollMs = opts.watchedPollMs ?? opts.pollMs * WATCHED_POLL_FACTOR;
    this.log = opts.log ?? (() => {});
  }

  /**
   * Creates the dir (0700) if missing and starts watching. A dir that cannot be made now (its
   * parent is unwritable, a file sits in its place) is logged and polled for until it can be.
   */
  async start(): Promise<void> {
    try {
      await ensureLockDir(this.dir);
    } catch (err) {
      this.log(`lock dir ${this.dir}: cannot create it (${errorReason(err)}); polling every ${this.opts.pollMs} ms until it exists`);
    }
    if (this.closed) return;
    this.signature = await this.listingSignature();
    await this.openWatcher();
    this.schedulePoll();
  }

  /** The next poll, as soon as the watcher's state asks for (replacing one already scheduled). */
  private schedulePoll(): void {
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = null;
    if (this.closed) return;
    this.pollTimer = setTimeout(() => {
      this.pollTimer = null;
      void this.poll().finally(() => {
        if (!this.pollTimer) this.schedulePoll();
      });
    }, this.watcher ? this.watchedPollMs : this.opts.pollMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.closeWatcher();
    if (this.pollTimer) clearTimeout(this.pollTimer);
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.pollTimer = this.debounceTimer = null;
  }

  /** Whether fs.watch is active (false = polling only). */
  get watching(): boolean {
    return this.watcher !== null;
  }

  private closeWatcher(): void {
    this.watcher?.close();
    this.watcher = null;
    this.watchedIno = null;
    this.watchedGone = false;
  }

  /** The dir's inode, or null when it is missing or not a dir (nothing to watch). */
  private async dirIno(): Promise<number | null> {
    try {
      const stats = await stat(this.dir);
      return stats.isDirectory() ? stats.ino : null;
    } catch {
      return null;
    }
  }

  /** Watches the dir as it is now; a watcher on a dir that was replaced is swapped for a new one. */
  private async openWatcher(): Promise<void> {
    const ino = await this.dirIno();
    if (this.closed || (this.watcher && ino === this.watchedIno && !this.watchedGone)) return;
    this.closeWatcher();
    if (ino === null) return;
    try {
      const self = basename(this.dir);
      const watcher = watch(this.dir, { persistent: true }, (event, name) => {
        // Events about the dir itself carry its own name (an entry by that name is one more check).
        if (event === 'rename' && name === self && this.watcher === watcher) this.watchedGone = true;
        this.changed();
      });
      watcher.on('error', (err) => {
        this.log(`lock dir ${this.dir}: fs.watch failed (${err.message}); polling every ${this.opts.pollMs} ms`);
        watcher.close();
        if (this.watcher === watcher) {
          this.closeWatcher();
          this.schedulePoll();
        }
        this.changed();
      });
      this.watcher = watcher;
      this.watchedIno = ino;
    } catch (err) {
      this.log(`lock dir ${this.dir}: fs.watch unavailable (${(err as Error).message}); polling every ${this.opts.pollMs} ms`);
    }
  }

  private changed(): void {
    if (this.closed) return;
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = null;
      if (this.closed) return;
      try {
        this.opts.onChange();
      } catch (err) {
        this.log(`lock dir ${this.dir}: change handler failed: ${(err as Error).message}`);
      }
      // The change may have been the dir itself, removed or replaced: the watcher follows it
      // now, not at the next (seldom) poll.
      void this.followDir();
    }, this.debounceMs);
  }

  /** Watches the dir as it is now, and polls at the pace that asks for. */
  private async followDir(): Promise<void> {
    const watching = this.watcher;
    await this.openWatcher();
    if (this.watcher !== watching) this.schedulePoll();
  }

  private async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const signature = await this.listingSignature();
      if (this.closed) return;
      // The dir may have been removed and recreated under a dead watcher (the next poll is
      // scheduled once this one is done, at the pace the watcher's state asks for).
      await this.openWatcher();
      if (this.closed) return;
      if (signature !== this.signature) {
        this.signature = signature;
        this.changed();
      }
    } finally {
      this.polling = false;
    }
  }

  private async listingSignature(): Promise<string> {
    const describe = async (folder: string, depth: number): Promise<string[]> => {
      let names: string[];
      try {
        names = (await readdir(folder)).sort();
      } catch (err) {
        return [`${folder}!${(err as NodeJS.ErrnoException).code ?? 'error'}`];
      }
      const parts: string[] = [];
      for (const name of names) {
        const path = join(folder, name);
        try {
          const stats = await lstat(path);
          parts.push(`${path}:${stats.ino}:${stats.size}:${stats.mtimeMs}`);
          if (depth === 0 && name === ADOPTED_DIR && stats.isDirectory()) parts.push(...(await describe(path, 1)));
        } catch {
          parts.push(`${path}:gone`); // vanished between readdir and lstat: part of the change
        }
      }
      return parts;
    };
    // The dir's own owner and mode too: whether its lockfiles can be trusted depends on them.
    const self = await stat(this.dir).then(
      (stats) => `${stats.ino}:${stats.uid}:${stats.mode}`,
      (err: NodeJS.ErrnoException) => err.code ?? 'error',
    );
    return [`${this.dir}!${self}`, ...(await describe(this.dir, 0))].join('\n');
  }
}
