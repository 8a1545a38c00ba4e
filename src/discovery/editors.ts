// The discovery orchestrator: which editors are live, which lockfiles are bad, and the
// takeover of editors' lockfiles behind Patchbay's door (DESIGN §3, §4).
import { createHash } from 'node:crypto';
import { lstat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { InvalidLockfile, RestoreReport } from '../api/types.ts';
import { serializeLockfile, type Dialect, type EditorInstance, type LockEntry, type Lockfile } from '../protocol/lockfile.ts';
import { LockDirWatcher, scanLockDir } from './lock-dir.ts';
import { describeProbe, pidAlive, probeEditor, type ProbeResult } from './liveness.ts';
import {
  DOOR_IDE_NAME,
  adoptLockfile,
  isOtherPatchbay,
  listAdopted,
  originalPath,
  removeFile,
  restoreAdopted,
  returnAdopted,
  writeDoorLockfile,
} from './takeover.ts';

export interface DiscoveryDir {
  dir: string;
  dialect: Dialect;
}

export interface DiscoveredEditor extends EditorInstance {
  /** `${port}`: one live instance per port. */
  key: string;
  /** Where the editor wrote its lockfile, and where a restore puts it back. */
  originalPath: string;
}

export interface DiscoveryState {
  editors: DiscoveredEditor[];
  invalid: InvalidLockfile[];
}

export interface DoorSpec {
  port: number;
  /** One token per agent-facing dialect; a dir whose dialect has none gets no door. */
  tokens: Partial<Record<Dialect, string>>;
  folders: string[];
}

export interface EditorDiscoveryOptions {
  dirs: DiscoveryDir[];
  takeover: boolean;
  pollMs: number;
  livenessMs: number;
  maxLockfileBytes: number;
  selfPid: number;
  probeTimeoutMs?: number;
  onChange: (state: DiscoveryState) => void;
  log?: (msg: string) => void;
}

/** Stable editor identity: survives restarts (new port, pid, token). */
export function editorId(ideName: string, workspaceFolders: readonly string[]): string {
  const digest = createHash('sha256')
    .update(`${ideName}\0${workspaceFolders[0] ?? ''}`)
    .digest('hex');
  return `ed-${digest.slice(0, 8)}`;
}

interface CachedProbe {
  port: number;
  mtimeMs: number;
  token: string;
  result: ProbeResult;
  at: number;
}

interface Door {
  path: string;
  port: number;
  content: string;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class EditorDiscovery {
  private readonly log: (msg: string) => void;
  private readonly probeTimeoutMs: number;
  private takeover: boolean;
  private watchers: LockDirWatcher[] = [];
  private livenessTimer: NodeJS.Timeout | null = null;
  /** Probe results per original lockfile path; failures expire after `livenessMs`. */
  private probes = new Map<string, CachedProbe>();
  /** Failed probes being retried in the background, by original path. */
  private retrying = new Map<string, Promise<void>>();
  private doors = new Map<string, Door>();
  private state: DiscoveryState = { editors: [], invalid: [] };
  private emitted: string | null = null;
  /** fs-changing work runs one step at a time: checks, door writes, restores. */
  private queue: Promise<unknown> = Promise.resolve();
  private pendingCheck: Promise<void> | null = null;
  private started = false;
  /** The lock dirs are ours to change: no other live Patchbay holds them. */
  private owned = false;
  private closed = false;
  private closing: Promise<RestoreReport> | null = null;

  constructor(private readonly opts: EditorDiscoveryOptions) {
    this.log = opts.log ?? ((msg) => console.warn(`patchbay discovery: ${msg}`));
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 1000;
    this.takeover = opts.takeover;
  }

  /**
   * Claims the lock dirs (throws if another live Patchbay holds one), recovers a crash's
   * leftovers, then watches. The first `onChange` has fired when this resolves.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('editor discovery: already started');
    this.started = true;
    await this.claimDirs();
    for (const { dir } of this.opts.dirs) {
      if (this.closed) return;
      const watcher = new LockDirWatcher(dir, {
        pollMs: this.opts.pollMs,
        onChange: () => void this.check(),
        log: this.log,
      });
      try {
        await watcher.start();
        this.watchers.push(watcher);
      } catch (err) {
        watcher.close();
        this.log(`lock dir ${dir}: cannot watch: ${errorText(err)}`);
      }
    }
    if (this.closed) return;
    await this.check();
    if (this.closed) return;
    this.livenessTimer = setInterval(() => void this.check(), this.opts.livenessMs);
  }

  /** The latest state (also handed to `onChange` whenever it changes). */
  current(): DiscoveryState {
    return this.state;
  }

  /** The relay lost an editor's connection: forget its probe and check now. */
  markSuspect(port: number): Promise<void> {
    for (const [path, cached] of this.probes) if (cached.port === port) this.probes.delete(path);
    return this.check();
  }

  /** Turns takeover on or off; off moves adopted files back on the next check. */
  setTakeover(on: boolean): Promise<void> {
    this.takeover = on;
    return this.check();
  }

  /**
   * `patchbay restore` while running: takeover off, and the adopted files restored here, so
   * the report lists them (a check would give them back too, but says nothing).
   */
  async stopTakeover(): Promise<RestoreReport> {
    // Switched inside the queue: a check queued earlier still runs with takeover on, so the
    // files are still adopted when this step restores (and counts) them.
    const report = await this.serial(() => {
      this.takeover = false;
      return this.restoreDirs();
    });
    await this.check();
    return report;
  }

  /**
   * Runs one scan-validate-adopt pass now. Calls made while one is waiting share it, so a
   * burst of watcher events costs one pass.
   */
  check(): Promise<void> {
    if (this.closed || !this.owned) return Promise.resolve();
    if (!this.pendingCheck) {
      this.pendingCheck = this.serial(async () => {
        this.pendingCheck = null;
        try {
          await this.runCheck();
        } catch (err) {
          this.log(`check failed: ${errorText(err)}`);
        }
      });
    }
    return this.pendingCheck;
  }

  /** Writes (or rewrites, when anything in it changed) the door's lockfile in each dir with a token. */
  publishDoor(spec: DoorSpec): Promise<string[]> {
    return this.serial(async () => {
      if (this.closed) return this.doorLockfiles();
      const folders = [...new Set(spec.folders)].filter((folder) => {
        if (isAbsolute(folder)) return true;
        this.log(`door: skipping folder ${JSON.stringify(folder)}: not an absolute path`);
        return false;
      });
      const failures: string[] = [];
      for (const { dir, dialect } of this.opts.dirs) {
        const token = spec.tokens[dialect];
        const previous = this.doors.get(dir);
        try {
          if (!token) {
            if (previous) await this.removeDoor(dir, previous);
            continue;
          }
          const lock: Lockfile = {
            pid: this.opts.selfPid,
            workspaceFolders: folders,
            ideName: DOOR_IDE_NAME,
            transport: 'ws',
            authToken: token,
          };
          const content = serializeLockfile(lock);
          if (previous && previous.port === spec.port && previous.content === content) continue;
          if (previous && previous.port !== spec.port) await this.removeDoor(dir, previous);
          const path = await writeDoorLockfile(dir, spec.port, lock);
          this.doors.set(dir, { path, port: spec.port, content });
        } catch (err) {
          failures.push(`door lockfile in ${dir}: ${errorText(err)}`);
        }
      }
      if (failures.length > 0) throw new Error(failures.join('; '));
      return this.doorLockfiles();
    });
  }

  doorLockfiles(): string[] {
    return [...this.doors.values()].map((door) => door.path);
  }

  /** Moves adopted files of live editors back and deletes dead ones, in every dir. */
  async restoreAll(): Promise<RestoreReport> {
    if (!this.owned) await this.claimDirs();
    return this.serial(() => this.restoreDirs());
  }

  /** One pass over the lock dirs; runs inside the queue. */
  private async restoreDirs(): Promise<RestoreReport> {
    const report: RestoreReport = { restored: [], removed: [] };
    for (const { dir, dialect } of this.opts.dirs) {
      try {
        const one = await restoreAdopted(dir, dialect, (lock) => pidAlive(lock.pid), {
          maxBytes: this.opts.maxLockfileBytes,
        });
        report.restored.push(...one.restored);
        report.removed.push(...one.removed);
      } catch (err) {
        this.log(`lock dir ${dir}: restore failed: ${errorText(err)}`);
      }
    }
    for (const path of report.restored) this.log(`lockfile ${path}: restored`);
    this.probes.clear();
    return report;
  }

  /** Stops watching, removes the door's lockfiles and restores adopted ones. Safe to call twice. */
  close(): Promise<RestoreReport> {
    if (this.closing) return this.closing;
    this.closed = true;
    for (const watcher of this.watchers) watcher.close();
    this.watchers = [];
    if (this.livenessTimer) clearInterval(this.livenessTimer);
    this.livenessTimer = null;
    this.closing = (async () => {
      await Promise.all(this.retrying.values());
      if (!this.owned) return { restored: [], removed: [] };
      await this.serial(async () => {
        for (const [dir, door] of this.doors) await this.removeDoor(dir, door);
      });
      return this.restoreAll();
    })();
    return this.closing;
  }

  private serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.queue.then(step);
    this.queue = run.catch(() => {
      // The caller of `serial` receives the error; the queue only needs to keep going.
    });
    return run;
  }

  private async removeDoor(dir: string, door: Door): Promise<void> {
    try {
      await removeFile(door.path);
    } catch (err) {
      this.log(`door lockfile ${door.path}: cannot remove: ${errorText(err)}`);
    }
    this.doors.delete(dir);
  }

  /**
   * Refuses to run beside another live Patchbay (it holds these dirs' takeover), and clears
   * the door lockfiles a dead one left behind.
   */
  private async claimDirs(): Promise<void> {
    for (const { dir, dialect } of this.opts.dirs) {
      const { entries } = await scanLockDir(dir, dialect, { maxBytes: this.opts.maxLockfileBytes });
      for (const entry of entries) {
        if (entry.lock.ideName !== DOOR_IDE_NAME) continue;
        if (this.doors.get(dir)?.path === entry.path && entry.lock.pid === this.opts.selfPid) continue;
        if (isOtherPatchbay(entry.lock, this.opts.selfPid, pidAlive)) {
          const probe = await probeEditor({
            port: entry.port,
            token: entry.lock.authToken,
            dialect,
            timeoutMs: this.probeTimeoutMs,
          });
          // A live pid with nothing on the port is a reused pid, not a Patchbay.
          if (probe !== 'refused') {
            throw new Error(
              `another Patchbay (pid ${entry.lock.pid}) is running: its door lockfile is ${entry.path}; quit it first`,
            );
          }
        }
        try {
          await removeFile(entry.path);
          this.log(`lockfile ${entry.path}: removed a stale Patchbay door (pid ${entry.lock.pid})`);
        } catch (err) {
          this.log(`lockfile ${entry.path}: cannot remove stale Patchbay door: ${errorText(err)}`);
        }
      }
    }
    this.owned = true;
  }

  /**
   * A lockfile is probed when it is new or changed. A good answer holds until the file
   * changes or the relay reports the editor as suspect; a failure is retried in the
   * background once it is older than `livenessMs`, so a hung port never stalls a check.
   */
  private async probe(entry: LockEntry, original: string): Promise<ProbeResult> {
    const cached = this.probes.get(original);
    const same = cached && cached.mtimeMs === entry.mtimeMs && cached.token === entry.lock.authToken;
    if (!same) return this.probeNow(entry, original);
    if (cached.result !== 'ok' && Date.now() - cached.at >= this.opts.livenessMs && !this.retrying.has(original)) {
      const retry = this.probeNow(entry, original).then((result) => {
        this.retrying.delete(original);
        if (result !== cached.result) void this.check();
      });
      this.retrying.set(original, retry);
    }
    return cached.result;
  }

  private async probeNow(entry: LockEntry, original: string): Promise<ProbeResult> {
    const result = await probeEditor({
      port: entry.port,
      token: entry.lock.authToken,
      dialect: entry.dialect,
      timeoutMs: this.probeTimeoutMs,
    });
    this.probes.set(original, { port: entry.port, mtimeMs: entry.mtimeMs, token: entry.lock.authToken, result, at: Date.now() });
    return result;
  }

  private async runCheck(): Promise<void> {
    const byPort = new Map<number, DiscoveredEditor>();
    const invalid: InvalidLockfile[] = [];
    const probed = new Set<string>();
    for (const { dir, dialect } of this.opts.dirs) {
      if (this.closed) return;
      const found = await this.checkDir(dir, dialect, invalid, probed);
      for (const editor of found) {
        const other = byPort.get(editor.port);
        if (!other || (other.dialect !== 'pi' && editor.dialect === 'pi')) byPort.set(editor.port, editor);
      }
    }
    for (const path of this.probes.keys()) if (!probed.has(path)) this.probes.delete(path);
    if (this.closed) return;
    await this.keepDoorsInPlace();
    const editors = [...byPort.values()].sort((a, b) => a.port - b.port);
    invalid.sort((a, b) => a.path.localeCompare(b.path));
    this.publish({ editors, invalid });
  }

  /** One dir: scan both levels, validate, adopt or return files, report what is live. */
  private async checkDir(
    dir: string,
    dialect: Dialect,
    invalid: InvalidLockfile[],
    probed: Set<string>,
  ): Promise<DiscoveredEditor[]> {
    const caps = { maxBytes: this.opts.maxLockfileBytes };
    const [top, adopted] = await Promise.all([scanLockDir(dir, dialect, caps), listAdopted(dir, dialect, caps)]);
    invalid.push(...top.invalid);
    const topNames = new Set([...top.entries.map((e) => e.path), ...top.invalid.map((i) => i.path)]);
    const topValidPorts = new Set(top.entries.map((e) => e.port));

    // Adopted files that no longer parse are not Patchbay's to hold.
    for (const bad of adopted.invalid) {
      if (!bad.path.endsWith('.lock')) {
        invalid.push(bad);
        continue;
      }
      await this.giveBack(bad.path, dir, `adopted lockfile is invalid (${bad.reason})`);
    }

    const candidates: { entry: LockEntry; adopted: boolean }[] = [];
    for (const entry of top.entries) {
      if (entry.lock.ideName !== DOOR_IDE_NAME) candidates.push({ entry, adopted: false });
    }
    for (const entry of adopted.entries) {
      const original = originalPath(dir, entry.port);
      if (topValidPorts.has(entry.port)) {
        // The editor wrote a newer lockfile for this port: it supersedes the adopted copy.
        await this.remove(entry.path, 'superseded by a newer lockfile');
        continue;
      }
      if (topNames.has(original)) continue; // a newer file that does not parse yet: wait for it
      candidates.push({ entry, adopted: true });
    }

    const alive: typeof candidates = [];
    for (const candidate of candidates) {
      const { entry, adopted: isAdopted } = candidate;
      if (pidAlive(entry.lock.pid)) alive.push(candidate);
      else if (isAdopted) await this.remove(entry.path, `editor pid ${entry.lock.pid} is gone`);
      else invalid.push({ path: entry.path, reason: `pid ${entry.lock.pid} is not running` });
    }
    const probes = await Promise.all(
      alive.map(({ entry }) => {
        const original = originalPath(dir, entry.port);
        probed.add(original);
        return this.probe(entry, original);
      }),
    );

    const editors: DiscoveredEditor[] = [];
    for (const [index, { entry, adopted: isAdopted }] of alive.entries()) {
      if (this.closed) break;
      const result = probes[index] ?? 'timeout';
      const original = originalPath(dir, entry.port);
      if (result !== 'ok' && !pidAlive(entry.lock.pid)) {
        // It died while we probed: a killed editor closes its port a moment before its pid goes.
        if (isAdopted) await this.remove(entry.path, `editor pid ${entry.lock.pid} is gone`);
        else invalid.push({ path: entry.path, reason: `pid ${entry.lock.pid} is not running` });
        continue;
      }
      if (result !== 'ok') {
        const reason = describeProbe(result, entry.port, this.probeTimeoutMs);
        // Agents count any lockfile whose pid lives and whose port accepts TCP; leaving such a
        // one in place would make two matches and stop their autoconnect. So under takeover it
        // is held aside too, though it is no editor; one on a closed port is harmless where it is.
        const agentsWouldSeeIt = result !== 'refused';
        if (this.takeover && agentsWouldSeeIt) {
          const held = isAdopted ? entry.path : await this.hold(entry, reason);
          invalid.push({ path: held, reason });
        } else {
          if (isAdopted) await this.giveBack(entry.path, dir, reason);
          invalid.push({ path: original, reason });
        }
        continue;
      }
      let path = entry.path;
      if (this.takeover && !isAdopted) {
        try {
          path = await adoptLockfile(entry);
          this.log(`lockfile ${entry.path}: adopted (${entry.lock.ideName}, pid ${entry.lock.pid})`);
        } catch (err) {
          this.log(`lockfile ${entry.path}: cannot adopt: ${errorText(err)}`);
        }
      } else if (!this.takeover && isAdopted) {
        const back = await this.giveBack(entry.path, dir, 'takeover is off');
        if (back === null) continue; // superseded by a newer file: the next check lists that one
        path = back;
      }
      editors.push({
        key: String(entry.port),
        id: editorId(entry.lock.ideName, entry.lock.workspaceFolders),
        port: entry.port,
        pid: entry.lock.pid,
        ideName: entry.lock.ideName,
        workspaceFolders: entry.lock.workspaceFolders,
        authToken: entry.lock.authToken,
        dialect,
        lockfile: path,
        originalPath: original,
      });
    }
    return editors;
  }

  /** Moves a lockfile that is no editor aside; returns where it is now. */
  private async hold(entry: LockEntry, why: string): Promise<string> {
    try {
      const path = await adoptLockfile(entry);
      this.log(`lockfile ${entry.path}: moved aside so agents see only the door (${why})`);
      return path;
    } catch (err) {
      this.log(`lockfile ${entry.path}: cannot move aside: ${errorText(err)}`);
      return entry.path;
    }
  }

  /** Moves an adopted file back; returns its new path, or null if it was dropped or stuck. */
  private async giveBack(path: string, dir: string, why: string): Promise<string | null> {
    try {
      const outcome = await returnAdopted(path, dir);
      this.log(
        outcome.moved
          ? `lockfile ${path}: moved back to ${outcome.path} (${why})`
          : `lockfile ${path}: dropped, the editor wrote a newer one (${why})`,
      );
      return outcome.moved ? outcome.path : null;
    } catch (err) {
      this.log(`lockfile ${path}: cannot move back (${why}): ${errorText(err)}`);
      return null;
    }
  }

  private async remove(path: string, why: string): Promise<void> {
    try {
      await removeFile(path);
      this.log(`lockfile ${path}: removed (${why})`);
    } catch (err) {
      this.log(`lockfile ${path}: cannot remove (${why}): ${errorText(err)}`);
    }
  }

  /** Someone deleted the door's lockfile (a cleanup script, an agent): put it back. */
  private async keepDoorsInPlace(): Promise<void> {
    for (const [dir, door] of this.doors) {
      try {
        await lstat(door.path);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') continue;
        try {
          const lock = JSON.parse(door.content) as Lockfile;
          await writeDoorLockfile(dir, door.port, lock);
          this.log(`door lockfile ${door.path}: was deleted; written again`);
        } catch (writeErr) {
          this.log(`door lockfile ${door.path}: cannot write again: ${errorText(writeErr)}`);
        }
      }
    }
  }

  private publish(state: DiscoveryState): void {
    const known = new Set(this.state.invalid.map((i) => `${i.path}\0${i.reason}`));
    for (const bad of state.invalid) {
      if (!known.has(`${bad.path}\0${bad.reason}`)) this.log(`lockfile ${bad.path}: ${bad.reason}`);
    }
    this.state = state;
    const text = JSON.stringify(state);
    if (text === this.emitted) return;
    this.emitted = text;
    try {
      this.opts.onChange(state);
    } catch (err) {
      this.log(`change listener failed: ${errorText(err)}`);
    }
  }
}
