// One lock dir on disk: list its lockfiles, and notice when anything in it changes.
import { watch, type FSWatcher } from 'node:fs';
import { chmod, lstat, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { InvalidLockfile } from '../api/types.ts';
import { readLockfile, type Dialect, type LockEntry } from '../protocol/lockfile.ts';

/** Where Patchbay keeps the lockfiles it adopted, inside each lock dir. */
export const ADOPTED_DIR = '.patchbay';

export interface ScanResult {
  entries: LockEntry[];
  invalid: InvalidLockfile[];
}

export interface ScanOptions {
  maxBytes: number;
}

/**
 * Reads every `*.lock` directly in `folder`. Dotfiles (our temp files, `.patchbay/`) are not
 * lockfiles; a file that vanishes mid-scan is simply gone. `ownerDir` is the agent-facing dir
 * the entries belong to (differs from `folder` for `.patchbay/`).
 */
export async function scanFolder(folder: string, ownerDir: string, dialect: Dialect, opts: ScanOptions): Promise<ScanResult> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [], invalid: [] };
    return { entries: [], invalid: [{ path: folder, reason: `cannot list: ${(err as Error).message}` }] };
  }
  const lockNames = names.filter((name) => name.endsWith('.lock') && !name.startsWith('.')).sort();
  const results = await Promise.all(lockNames.map((name) => readLockfile(join(folder, name), dialect, opts.maxBytes, ownerDir)));
  const scan: ScanResult = { entries: [], invalid: [] };
  for (const result of results) {
    if (result.ok) scan.entries.push(result.entry);
    else if (!result.missing) scan.invalid.push({ path: result.path, reason: result.reason });
  }
  return scan;
}

/** The lockfiles directly in an agent-facing lock dir. */
export function scanLockDir(dir: string, dialect: Dialect, opts: ScanOptions): Promise<ScanResult> {
  return scanFolder(dir, dir, dialect, opts);
}

/**
 * Creates a dir (and missing parents) with mode 0700. Pre-existing dirs keep their mode: they
 * are the person's. Returns whether `dir` itself was created.
 */
export async function ensurePrivateDir(dir: string): Promise<boolean> {
  const first = await mkdir(dir, { recursive: true, mode: 0o700 });
  if (first === undefined) return false;
  // mkdir's mode passes through the umask; make the dir we created exactly 0700.
  await chmod(dir, 0o700);
  return true;
}

export interface LockDirWatcherOptions {
  /** Polling interval: the fallback when fs.watch fails, and a safety net when it misses events. */
  pollMs: number;
  debounceMs?: number;
  onChange: () => void;
  log?: (msg: string) => void;
}

/**
 * Watches one lock dir. fs.watch is the fast path; a poll compares a cheap listing signature
 * (names, sizes, mtimes, inodes, one level into `.patchbay/`) so missed events still surface.
 */
export class LockDirWatcher {
  private watcher: FSWatcher | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
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
    this.log = opts.log ?? (() => {});
  }

  /** Creates the dir (0700) if missing and starts watching. */
  async start(): Promise<void> {
    await ensurePrivateDir(this.dir);
    if (this.closed) return;
    this.signature = await this.listingSignature();
    this.openWatcher();
    this.pollTimer = setInterval(() => void this.poll(), this.opts.pollMs);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    this.watcher = null;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.debounceTimer) clearTimeout(this.debounceTimer);
    this.pollTimer = this.debounceTimer = null;
  }

  /** Whether fs.watch is active (false = polling only). */
  get watching(): boolean {
    return this.watcher !== null;
  }

  private openWatcher(): void {
    if (this.closed || this.watcher) return;
    try {
      const watcher = watch(this.dir, { persistent: true }, () => this.changed());
      watcher.on('error', (err) => {
        this.log(`lock dir ${this.dir}: fs.watch failed (${err.message}); polling every ${this.opts.pollMs} ms`);
        watcher.close();
        if (this.watcher === watcher) this.watcher = null;
        this.changed();
      });
      this.watcher = watcher;
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
    }, this.debounceMs);
  }

  private async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const signature = await this.listingSignature();
      if (this.closed) return;
      // The dir may have been removed and recreated under a dead watcher.
      if (!this.watcher) this.openWatcher();
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
    return (await describe(this.dir, 0)).join('\n');
  }
}
