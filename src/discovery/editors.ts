// The discovery orchestrator: which editors are live, which lockfiles are bad, and the
// takeover of editors' lockfiles behind Patchbay's door (DESIGN §3, §4, §10). It scans,
// probes and moves files; what to do with each lockfile is decided by planLockfile.
import { createHash } from 'node:crypto';
import type { InvalidLockfile, RestoreReport } from '../api/types.ts';
import { DisposableStore } from '../lifecycle/disposables.ts';
import { basename } from 'node:path';
import { portFromName, type Dialect, type EditorInstance, type LockEntry, type OtherLockfile } from '../protocol/lockfile.ts';
import { DoorLockfiles, type DiscoveryDir, type DoorSpec } from './door-lockfiles.ts';
import { LockDirWatcher, currentUid, errorReason, scanLockDir, type ScanResult } from './lock-dir.ts';
import { isLocalProbeError, pidAlive, probeEditor, type ProbeResult } from './liveness.ts';
import { portHeldBy, type PortHolder } from './peer-process.ts';
import { planLockfile, type Candidate, type FileState, type Listing, type ProbeOutcome, type Step, type Which } from './plan.ts';
import {
  adoptLockfile,
  adoptedDir,
  describeReturn,
  doorOwner,
  isOtherPatchbay,
  isOwnDoor,
  listAdopted,
  originalPath,
  removeFile,
  restoreAdopted,
  returnAdopted,
} from './takeover.ts';
import { lockDirTrust, type DirTrust } from './trust.ts';

export type { DiscoveryDir, DoorSpec };

export type DiscoveredEditor = EditorInstance;

export interface DiscoveryState {
  editors: DiscoveredEditor[];
  invalid: InvalidLockfile[];
  /** Other protocols' lockfiles in the lock dirs (other tools'): listed, left alone. */
  others: OtherLockfile[];
  /** Lock dirs whose lockfiles cannot be trusted as they are, and why (for status and the UI). */
  warnings: string[];
  /** Door lockfiles that are out of date, and why. */
  doorProblems: string[];
}

export interface EditorDiscoveryOptions {
  dirs: DiscoveryDir[];
  takeover: boolean;
  /** Lock dirs the person trusts although others may write them (setting `trustedLockDirs`). */
  trustedDirs?: readonly string[];
  pollMs: number;
  livenessMs: number;
  maxLockfileBytes: number;
  selfPid: number;
  probeTimeoutMs?: number;
  /** The current user; default the process's (null: no uids here, ownership is not checked). */
  uid?: number | null;
  /** Waits between retries of a door lockfile that could not be written (default 250 ms doubling to 5 s). */
  doorRetryFirstMs?: number;
  doorRetryMaxMs?: number;
  /** Seam: how an editor's port is probed. */
  probe?: typeof probeEditor;
  /** Seam: who listens on `port`: `pid` or a process descended from it, another, nobody (null: cannot tell). */
  portHolder?: (port: number, pid: number) => Promise<PortHolder>;
  /** Seam: how a door lockfile is written. */
  writeDoor?: DoorLockfilesOptions['write'];
  onChange: (state: DiscoveryState) => void;
  log?: (msg: string) => void;
}

type DoorLockfilesOptions = ConstructorParameters<typeof DoorLockfiles>[0];

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
  token: string | null;
  outcome: ProbeOutcome;
  at: number;
  /** The relay lost its link after it had opened: who holds the port is checked again, the token is not resent. */
  recheckOwner?: boolean;
}

/** How the relay lost an editor: its link closed after opening, or could not open (handshake). */
export type LinkLoss = 'lost' | 'handshake';

/** What one port of one dir contributed to the last state: kept as is when a check cannot look. */
interface SlotListing {
  editor: DiscoveredEditor | null;
  invalid: InvalidLockfile[];
  others: OtherLockfile[];
}

const EMPTY: RestoreReport = { restored: [], removed: [] };

/** A whole pass runs at least every this many liveness ticks (see tick). */
export const RESCAN_TICKS = 5;

export class EditorDiscovery {
  private readonly log: (msg: string) => void;
  private readonly probeTimeoutMs: number;
  private readonly uid: number | null;
  private readonly resources = new DisposableStore();
  private readonly doors: DoorLockfiles;
  private takeover: boolean;
  private trustedDirs: readonly string[];
  /** Probe outcomes per lockfile version (original path, mtime, token); failures expire after `livenessMs`. */
  private probes = new Map<string, CachedProbe>();
  /** Probes under way, by original path: they run beside the checks, never inside one. */
  private inflight = new Map<string, Promise<ProbeOutcome>>();
  /** In the current pass: the lockfile versions asked about, and the original paths decided. */
  private used = new Set<string>();
  private decided = new Set<string>();
  /** Per `${dir}\0${port}`: what the last check listed there. */
  private slots = new Map<string, SlotListing>();
  /** Per slot: the last reason it was kept as it was, so the log says it once. */
  private keptWhy = new Map<string, string>();
  private state: DiscoveryState = { editors: [], invalid: [], others: [], warnings: [], doorProblems: [] };
  private emitted: string | null = null;
  /** fs-changing work runs one step at a time: checks, door writes, restores. */
  private queue: Promise<unknown> = Promise.resolve();
  private pendingCheck: Promise<Promise<unknown>[]> | null = null;
  private started = false;
  /** The lock dirs are ours to change: no other live Patchbay holds them. */
  private owned = false;
  private closed = false;
  /** Until the first check is done, a pass waiting on probes publishes nothing: start's first state is whole. */
  private starting = true;
  private closing: Promise<RestoreReport> | null = null;
  /** When the last pass began (Date.now()), and the pids of the lockfiles it read with whether each was alive. */
  private passedAt = 0;
  private readonly pidsSeen = new Map<number, boolean>();

  constructor(private readonly opts: EditorDiscoveryOptions) {
    this.log = opts.log ?? ((msg) => console.warn(`patchbay discovery: ${msg}`));
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 1000;
    this.uid = opts.uid === undefined ? currentUid() : opts.uid;
    this.takeover = opts.takeover;
    this.trustedDirs = opts.trustedDirs ?? [];
    this.doors = this.resources.add(
      new DoorLockfiles({
        dirs: opts.dirs,
        selfPid: opts.selfPid,
        uid: this.uid,
        maxLockfileBytes: opts.maxLockfileBytes,
        retryFirstMs: opts.doorRetryFirstMs ?? 250,
        retryMaxMs: opts.doorRetryMaxMs ?? 5000,
        serial: (step) => this.serial(step),
        onProblemsChange: () => this.publish({ ...this.state, doorProblems: this.doors.problems() }),
        log: this.log,
        ...(opts.writeDoor ? { write: opts.writeDoor } : {}),
      }),
    );
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
      const watcher = new LockDirWatcher(dir, { pollMs: this.opts.pollMs, onChange: () => void this.check(), log: this.log });
      this.resources.add(() => watcher.close());
      await watcher.start();
    }
    if (this.closed) return;
    await this.check();
    this.starting = false;
    if (this.closed) return;
    const timer = setInterval(() => this.tick(), this.opts.livenessMs);
    this.resources.add(() => clearInterval(timer));
  }

  /**
   * Every livenessMs: a whole pass (each lockfile read again, each dir's trust checked) when
   * something may have changed that no watcher reports: a lockfile's process died (or its pid
   * came back), a failed probe is due again, a slot was kept for want of a look; and every
   * RESCAN_TICKS ticks anyway (a dir above a lock dir made writable, `.patchbay/` changed by
   * hand). Otherwise no lock dir is read: the check costs pidAlive per pid (signal 0, and on
   * Linux its /proc state, for zombies), where a pass every tick cost the idle daemon ~2 ms of
   * CPU a second.
   */
  private tick(): void {
    if (this.closed) return;
    const due = Date.now() - this.passedAt >= this.opts.livenessMs * RESCAN_TICKS;
    if (due || this.keptWhy.size > 0 || this.probeDue() || this.pidChanged()) void this.pass();
  }

  /** A failed probe is retried once it is livenessMs old, by a pass. */
  private probeDue(): boolean {
    for (const cached of this.probes.values()) if (cached.outcome.result !== 'ok') return true;
    return false;
  }

  /** Whether a lockfile's process has died, or come back, since the last pass looked. */
  private pidChanged(): boolean {
    for (const [pid, alive] of this.pidsSeen) if (pidAlive(pid) !== alive) return true;
    return false;
  }

  /** The latest state (also handed to `onChange` whenever it changes). */
  current(): DiscoveryState {
    return this.state;
  }

  /**
   * The relay lost an editor's connection. A link that could not open (`handshake`) gets the
   * editor probed afresh; one that closed after opening (the editor quit, or another client
   * took it: VS Code serves one) only has its port's owner checked again, so nothing connects
   * to the editor behind the relay's back.
   */
  markSuspect(port: number, how: LinkLoss = 'handshake'): Promise<void> {
    for (const [path, cached] of this.probes) {
      if (cached.port !== port) continue;
      if (how === 'handshake' || cached.outcome.result !== 'ok') this.probes.delete(path);
      else cached.recheckOwner = true;
    }
    return this.check();
  }

  /** Turns takeover on or off; off moves adopted files back on the next check. */
  setTakeover(on: boolean): Promise<void> {
    this.takeover = on;
    return this.check();
  }

  /** The lock dirs the person trusts although others may write them. */
  setTrustedDirs(dirs: readonly string[]): Promise<void> {
    this.trustedDirs = [...dirs];
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
   * Checks the lock dirs now and resolves once what it found is listed: probes of new lockfiles
   * it started have answered (each within its own deadline) and a pass used their outcomes.
   */
  async check(): Promise<void> {
    const started = await this.pass();
    if (started.length === 0) return;
    await Promise.all(started);
    await this.pass();
  }

  /**
   * Runs one scan-validate-adopt pass now; resolves with the probes it started. A pass never
   * waits on an editor: a lockfile being probed keeps its last listing until its probe answers,
   * which runs another pass. Calls made while one is waiting share it, so a burst of watcher
   * events costs one pass.
   */
  private pass(): Promise<Promise<unknown>[]> {
    if (this.closed || !this.owned) return Promise.resolve([]);
    if (!this.pendingCheck) {
      this.pendingCheck = this.serial(async () => {
        this.pendingCheck = null;
        const started: Promise<unknown>[] = [];
        try {
          await this.runCheck(started);
        } catch (err) {
          this.log(`check failed: ${errorReason(err)}`);
        }
        return started;
      });
    }
    return this.pendingCheck;
  }

  /**
   * Sets what the door's lockfile says in each dir with a token and writes the ones that differ.
   * One that cannot be written is retried and reported in `doorProblems`; resolves with the
   * door lockfiles in place.
   */
  publishDoor(spec: DoorSpec): Promise<string[]> {
    return this.serial(async () => {
      if (!this.closed) await this.doors.publish(spec);
      return this.doors.lockfiles();
    });
  }

  doorLockfiles(): string[] {
    return this.doors.lockfiles();
  }

  /** Moves adopted files of live editors back and deletes dead ones, in every dir. */
  async restoreAll(): Promise<RestoreReport> {
    if (!this.owned) await this.claimDirs();
    return this.serial(() => this.restoreDirs());
  }

  /** One pass over the lock dirs; runs inside the queue. */
  private async restoreDirs(): Promise<RestoreReport> {
    const report: Required<RestoreReport> = { restored: [], removed: [], warnings: [] };
    for (const { dir, dialect } of this.opts.dirs) {
      try {
        const one = await restoreAdopted(dir, dialect, pidAlive, { maxBytes: this.opts.maxLockfileBytes, uid: this.uid });
        report.restored.push(...one.restored);
        report.removed.push(...one.removed);
        report.warnings.push(...one.warnings);
      } catch (err) {
        report.warnings.push(`lock dir ${dir}: restore failed: ${errorReason(err)}`);
      }
    }
    for (const path of report.restored) this.log(`lockfile ${path}: restored`);
    for (const warning of report.warnings) this.log(warning);
    this.probes.clear();
    this.slots.clear();
    return report.warnings.length > 0 ? report : { restored: report.restored, removed: report.removed };
  }

  /**
   * Stops watching and changes nothing in the lock dirs (a graceful restart: the next core goes
   * on with the door's lockfiles and the adopted ones as they are).
   */
  async detach(): Promise<void> {
    if (this.closing) return;
    this.closed = true;
    this.resources.dispose();
    this.closing = Promise.resolve(EMPTY);
    await Promise.all(this.inflight.values());
    await this.queue;
  }

  /** Stops watching, removes the door's lockfiles and restores adopted ones. Safe to call twice. */
  close(): Promise<RestoreReport> {
    if (this.closing) return this.closing;
    this.closed = true;
    this.resources.dispose();
    this.closing = (async () => {
      await Promise.all(this.inflight.values());
      if (!this.owned) return EMPTY;
      await this.serial(() => this.doors.removeAll());
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

  /**
   * Refuses to run beside another live Patchbay of this user's (it holds these dirs' takeover),
   * and clears the door lockfiles a dead one left behind. Another user's "Patchbay" lockfile
   * is no Patchbay of ours: checks list it like any foreign lockfile.
   */
  private async claimDirs(): Promise<void> {
    for (const { dir, dialect } of this.opts.dirs) {
      const { entries } = await scanLockDir(dir, dialect, { maxBytes: this.opts.maxLockfileBytes });
      for (const entry of entries) {
        if (!isOwnDoor(entry, this.uid)) continue;
        const owner = doorOwner(entry.lock);
        // Ours: this Patchbay's keeper wrote it for an earlier core (a restart); publishing rewrites it in place.
        if (owner === this.opts.selfPid) continue;
        if (isOtherPatchbay(entry.lock, this.opts.selfPid, pidAlive)) {
          // Whether the Patchbay it names serves the port (the lockfile's pid may be an editor's).
          const { result: probe, holdsPort } = await this.probeNow({ ...entry, lock: { ...entry.lock, pid: owner } });
          if (isLocalProbeError(probe)) {
            throw new Error(`cannot tell whether pid ${owner} is a running Patchbay (its door lockfile is ${entry.path}): ${probe}`);
          }
          // A live pid with nothing of its own on the port is a reused pid, not a Patchbay.
          if (probe !== 'refused' && holdsPort !== false) {
            throw new Error(`another Patchbay (pid ${owner}) is running: its door lockfile is ${entry.path}; quit it first`);
          }
        }
        try {
          await removeFile(entry.path);
          this.log(`lockfile ${entry.path}: removed a stale Patchbay door (pid ${owner})`);
        } catch (err) {
          this.log(`lockfile ${entry.path}: cannot remove stale Patchbay door: ${errorReason(err)}`);
        }
      }
    }
    this.owned = true;
  }

  private probeNowRaw(entry: LockEntry): Promise<ProbeResult> {
    return (this.opts.probe ?? probeEditor)({
      port: entry.port,
      token: entry.lock.authToken ?? null,
      dialect: entry.dialect,
      timeoutMs: this.probeTimeoutMs,
    });
  }

  /**
   * What is known of a lockfile's editor, or undefined while its first probe runs. A lockfile
   * is probed when it is new or changed; a good answer holds until the file changes or the
   * relay reports the editor (then only the port's owner is checked again, see markSuspect); a
   * failure is retried in the background once it is older than `livenessMs`. Probes run beside
   * the passes (`started` collects them): a hung port never stalls a pass, nor a new editor's
   * listing. A probe this machine could not make is never cached: the next pass tries again.
   */
  private probe(entry: LockEntry, started: Promise<unknown>[]): ProbeOutcome | undefined {
    // One version of one lockfile: the same file keeps its outcome when it is adopted (moved).
    const key = `${originalPath(entry.dir, entry.port)}\0${entry.mtimeMs}\0${entry.lock.authToken ?? ''}`;
    this.used.add(key);
    const cached = this.probes.get(key);
    const same = cached !== undefined;
    const stale = !same || cached.recheckOwner || (cached.outcome.result !== 'ok' && Date.now() - cached.at >= this.opts.livenessMs);
    if (stale && !this.inflight.has(key)) {
      const reuse = same && cached.recheckOwner ? cached.outcome : null;
      const probing = this.probeNow(entry, reuse).then((outcome) => {
        this.inflight.delete(key);
        if (!isLocalProbeError(outcome.result)) {
          this.probes.set(key, { port: entry.port, mtimeMs: entry.mtimeMs, token: entry.lock.authToken ?? null, outcome, at: Date.now() });
        }
        // Another pass lists what it found (the caller of check() waits for that one itself).
        if (!same || outcome.result !== cached.outcome.result || outcome.holdsPort !== cached.outcome.holdsPort) void this.pass();
        return outcome;
      });
      this.inflight.set(key, probing);
      started.push(probing);
    }
    return same ? cached.outcome : undefined;
  }

  /**
   * Who holds the port first: the token goes only to a port its lockfile's pid (or a process
   * descended from it) listens on, or where this machine cannot tell. `reuse`: a good outcome
   * whose token need not be sent again, only its owner checked.
   */
  private async probeNow(entry: LockEntry, reuse: ProbeOutcome | null = null): Promise<ProbeOutcome> {
    const { pid } = entry.lock;
    const holder = await (this.opts.portHolder ?? portHeldBy)(entry.port, pid);
    if (holder === 'other') return { result: 'ok', aliveAfter: true, holdsPort: false };
    if (holder === 'none') return { result: 'refused', aliveAfter: pidAlive(pid), holdsPort: null };
    const holdsPort = holder === 'pid' ? true : null;
    if (reuse) return { ...reuse, holdsPort };
    const result = await this.probeNowRaw(entry);
    return { result, aliveAfter: result === 'ok' || pidAlive(pid), holdsPort };
  }

  private async runCheck(started: Promise<unknown>[]): Promise<void> {
    this.passedAt = Date.now();
    this.pidsSeen.clear();
    const byPort = new Map<number, DiscoveredEditor>();
    const invalid: InvalidLockfile[] = [];
    const others: OtherLockfile[] = [];
    const warnings: string[] = [];
    const probed = new Set<string>();
    // Distinct dirs side by side (each touches only its own slots), their findings merged in
    // order: a pass is a chain of small file reads, each of which may wait behind a big frame.
    const check = ({ dir, dialect }: DiscoveryDir) => (this.closed ? null : this.checkDir(dir, dialect, probed, started));
    const distinct = new Set(this.opts.dirs.map((d) => d.dir)).size === this.opts.dirs.length;
    const founds = distinct ? await Promise.all(this.opts.dirs.map(check)) : await inTurn(this.opts.dirs, check);
    for (const found of founds) {
      if (this.closed || found === null) return;
      invalid.push(...found.invalid);
      others.push(...found.others);
      warnings.push(...found.warnings);
      for (const editor of found.editors) {
        const other = byPort.get(editor.port);
        if (!other || (other.dialect !== 'pi' && editor.dialect === 'pi')) byPort.set(editor.port, editor);
      }
    }
    // Outcomes of files no longer there (or of their older versions) are dropped.
    for (const key of this.probes.keys()) {
      const original = key.slice(0, key.indexOf('\0'));
      if (!probed.has(original) || (this.decided.has(original) && !this.used.has(key))) this.probes.delete(key);
    }
    this.used.clear();
    this.decided.clear();
    if (this.closed || (this.starting && started.length > 0)) return;
    await this.doors.verify();
    const editors = [...byPort.values()].sort((a, b) => a.port - b.port);
    invalid.sort((a, b) => a.path.localeCompare(b.path));
    others.sort((a, b) => a.path.localeCompare(b.path));
    this.publish({ editors, invalid, others, warnings, doorProblems: this.doors.problems() });
  }

  /** Whether the dir's lockfiles may be adopted (who may write it), and why not. */
  private trustOf(dir: string): Promise<DirTrust> {
    return lockDirTrust(dir, this.uid, this.trustedDirs).catch((err: unknown) => ({
      trusted: false,
      problem: `lock dir ${dir}: cannot check who may write it (${errorReason(err)}); its lockfiles are used but not adopted`,
    }));
  }

  /** Why takeover does not act in a dir, or null when it does. */
  private takeoverOff(dir: string, trust: DirTrust, refusedAdoptedDir: string | null, warnings: string[]): string | null {
    let off: string | null = this.takeover ? null : 'takeover is off';
    if (trust.problem !== null) warnings.push(trust.problem);
    if (!trust.trusted) off ??= `lock dir ${dir} is not trusted`;
    if (refusedAdoptedDir !== null) {
      warnings.push(`lock dir ${dir}: ${refusedAdoptedDir}; takeover does not act there until it is removed`);
      off ??= `${adoptedDir(dir)} is refused`;
    }
    return off;
  }

  /** One dir: scan both levels, plan each port, carry the plans out, report what is live. */
  private async checkDir(
    dir: string,
    dialect: Dialect,
    probed: Set<string>,
    started: Promise<unknown>[],
  ): Promise<{ editors: DiscoveredEditor[]; invalid: InvalidLockfile[]; others: OtherLockfile[]; warnings: string[] }> {
    const caps = { maxBytes: this.opts.maxLockfileBytes };
    const [top, adopted, trust] = await Promise.all([scanLockDir(dir, dialect, caps), listAdopted(dir, dialect, caps, this.uid), this.trustOf(dir)]);
    const warnings: string[] = [];
    const takeoverOff = this.takeoverOff(dir, trust, adopted.refused, warnings);
    const prefix = `${dir}\0`;
    const unlisted = top.unlisted ?? adopted.unlisted;
    if (unlisted !== null) {
      // Nothing in the dir is known this time: everything stays as the last check left it.
      this.keep(`${dir}\0*`, unlisted);
      const kept = [...this.slots].filter(([key]) => key.startsWith(prefix));
      for (const [key] of kept) probed.add(originalPath(dir, Number(key.slice(prefix.length))));
      return {
        editors: kept.flatMap(([, listing]) => (listing.editor ? [listing.editor] : [])),
        invalid: kept.flatMap(([, listing]) => listing.invalid),
        others: kept.flatMap(([, listing]) => listing.others),
        warnings,
      };
    }
    this.keptWhy.delete(`${dir}\0*`);

    const invalid: InvalidLockfile[] = [];
    const others: OtherLockfile[] = [];
    const candidates = new Map<number, Candidate>();
    const slot = (port: number): Candidate => {
      let candidate = candidates.get(port);
      if (!candidate) candidates.set(port, (candidate = { port, top: null, adopted: null }));
      return candidate;
    };
    const place = (scan: ScanResult, which: Which) => {
      for (const entry of scan.entries) {
        if (which === 'top' && isOwnDoor(entry, this.uid)) continue; // the door: ours, or another Patchbay's (claimDirs)
        const state: FileState =
          this.uid !== null && entry.uid !== this.uid ? { kind: 'foreign', entry } : { kind: 'lock', entry, alive: this.alive(entry.lock.pid) };
        slot(entry.port)[which] = state;
      }
      for (const bad of scan.unreadable) withPort(bad, () => invalid.push(bad), (port) => (slot(port)[which] = { kind: 'unreadable', ...bad }));
      for (const bad of scan.invalid) withPort(bad, () => invalid.push(bad), (port) => (slot(port)[which] = { kind: 'invalid', ...bad }));
      for (const other of scan.others) withPort(other, () => others.push(other), (port) => (slot(port)[which] = { kind: 'other', other }));
    };
    // Not <port>.lock: listed, nothing to pair it with.
    const withPort = (file: { path: string }, list: () => void, put: (port: number) => void) => {
      const port = portFromName(basename(file.path));
      if (port === null) list();
      else put(port);
    };
    place(top, 'top');
    place(adopted, 'adopted');

    const editors: DiscoveredEditor[] = [];
    const seen = new Set<string>();
    // Ports are independent: each is decided (and its files moved) on its own.
    const sorted = [...candidates.values()].sort((a, b) => a.port - b.port);
    const listings = await Promise.all(
      sorted.map(async (candidate) => {
        const key = `${prefix}${candidate.port}`;
        seen.add(key);
        probed.add(originalPath(dir, candidate.port));
        this.decided.add(originalPath(dir, candidate.port));
        if (this.closed) return null;
        const listing = await this.decide(candidate, key, dir, dialect, takeoverOff, started);
        this.slots.set(key, listing);
        return listing;
      }),
    );
    for (const listing of listings) {
      if (listing?.editor) editors.push(listing.editor);
      invalid.push(...(listing?.invalid ?? []));
      others.push(...(listing?.others ?? []));
    }
    for (const key of this.slots.keys()) if (key.startsWith(prefix) && !seen.has(key)) this.slots.delete(key);
    for (const key of this.keptWhy.keys()) if (key.startsWith(prefix) && !seen.has(key)) this.keptWhy.delete(key);
    return { editors, invalid, others, warnings };
  }

  /**
   * Plans one port (with what probing knows) and carries the plan out. A port whose probe is
   * still under way keeps its last listing and changes nothing until it answers.
   */
  private async decide(
    candidate: Candidate,
    key: string,
    dir: string,
    dialect: Dialect,
    takeoverOff: string | null,
    started: Promise<unknown>[],
  ): Promise<SlotListing> {
    const ctx = { takeoverOff, uid: this.uid, probeTimeoutMs: this.probeTimeoutMs };
    let plan = planLockfile(candidate, {}, ctx);
    if (plan.kind === 'probe') {
      const probes: Partial<Record<Which, ProbeOutcome>> = {};
      let waiting = false;
      for (const which of plan.which) {
        const file = candidate[which];
        if (file?.kind !== 'lock') continue;
        const outcome = this.probe(file.entry, started);
        if (outcome) probes[which] = outcome;
        else waiting = true;
      }
      if (waiting) return this.slots.get(key) ?? { editor: null, invalid: [], others: [] };
      plan = planLockfile(candidate, probes, ctx);
    }
    if (plan.kind === 'probe') throw new Error(`planning ${originalPath(dir, candidate.port)}: probes asked for twice`);
    if (plan.kind === 'keep') {
      this.keep(key, plan.why);
      return this.slots.get(key) ?? { editor: null, invalid: [], others: [] };
    }
    this.keptWhy.delete(key);
    const moved = await this.carryOut(plan.steps, dir);
    return this.listed(plan, moved, dialect);
  }

  /** Whether a lockfile's process runs, remembered for the ticks between passes (tick). */
  private alive(pid: number): boolean {
    const alive = pidAlive(pid);
    this.pidsSeen.set(pid, alive);
    return alive;
  }

  /** A slot that could not be looked at keeps its listing; the log says why, once. */
  private keep(key: string, why: string): void {
    if (this.keptWhy.get(key) === why) return;
    this.keptWhy.set(key, why);
    this.log(`${why}: keeping what was known until it can be checked`);
  }

  /** Runs the plan's moves; returns where each moved file went (null: deleted). */
  private async carryOut(steps: Step[], dir: string): Promise<Map<string, string | null>> {
    const moved = new Map<string, string | null>();
    for (const step of steps) {
      if (this.closed) break;
      switch (step.op) {
        case 'adopt':
          try {
            moved.set(step.from, await adoptLockfile(step.from, dir, this.uid));
            this.log(`lockfile ${step.from}: ${step.why}`);
          } catch (err) {
            this.log(`lockfile ${step.from}: cannot move into ${adoptedDir(dir)} (${step.why}): ${errorReason(err)}`);
          }
          break;
        case 'give-back': {
          const outcome = await returnAdopted(step.from, dir, { isAlive: pidAlive, uid: this.uid, maxBytes: this.opts.maxLockfileBytes });
          this.log(describeReturn(step.from, outcome, step.why));
          if (outcome.kind !== 'stuck') moved.set(step.from, outcome.kind === 'moved' ? outcome.path : null);
          break;
        }
        case 'remove':
          try {
            await removeFile(step.path);
            moved.set(step.path, null);
            this.log(`lockfile ${step.path}: removed (${step.why})`);
          } catch (err) {
            this.log(`lockfile ${step.path}: cannot remove (${step.why}): ${errorReason(err)}`);
          }
          break;
      }
    }
    return moved;
  }

  /** The plan's listing, with paths where the moves put the files. */
  private listed(plan: Listing, moved: Map<string, string | null>, dialect: Dialect): SlotListing {
    const where = (path: string): string | null => (moved.has(path) ? moved.get(path)! : path);
    const invalid = plan.invalid.flatMap((bad) => {
      const path = where(bad.path);
      return path === null ? [] : [{ path, reason: bad.reason }];
    });
    // Another tool's file at the top is never moved; one found in `.patchbay/` may have gone back.
    const others = plan.others.flatMap((other) => {
      const path = where(other.path);
      return path === null ? [] : [{ ...other, path }];
    });
    const source = plan.editor;
    const path = source ? where(source.path) : null;
    if (!source || path === null) return { editor: null, invalid, others };
    const { entry } = source;
    return {
      invalid,
      others,
      editor: {
        id: editorId(entry.lock.ideName, entry.lock.workspaceFolders),
        port: entry.port,
        pid: entry.lock.pid,
        ideName: entry.lock.ideName,
        workspaceFolders: entry.lock.workspaceFolders,
        authToken: entry.lock.authToken ?? null,
        dialect,
        lockfile: path,
      },
    };
  }

  private publish(state: DiscoveryState): void {
    const known = new Set(this.state.invalid.map((i) => `${i.path}\0${i.reason}`));
    for (const bad of state.invalid) {
      if (!known.has(`${bad.path}\0${bad.reason}`)) this.log(`lockfile ${bad.path}: ${bad.reason}`);
    }
    const warned = new Set(this.state.warnings);
    for (const warning of state.warnings) if (!warned.has(warning)) this.log(warning);
    this.state = state;
    const text = JSON.stringify(state);
    if (text === this.emitted) return;
    this.emitted = text;
    try {
      this.opts.onChange(state);
    } catch (err) {
      this.log(`change listener failed: ${errorReason(err)}`);
    }
  }
}

/** `each` of `items` one after the other, their results in order. */
async function inTurn<T, R>(items: readonly T[], each: (item: T) => Promise<R> | R): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) results.push(await each(item));
  return results;
}
