// The composition root: wires discovery, the door, the relay, the inbox, the store and
// pi's settings into the one HubApi every face uses. Nothing else builds long-lived objects.
import { rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { HOME_FILES } from './fs/home-files.ts';
import { crashTrace } from './review/crash-trace.ts';
import type {
  CoreView,
  DecisionRecord,
  DiffDetail,
  DiffSummary,
  HubApi,
  HubEvent,
  HubMethod,
  HostedPiView,
  IdleAgent,
  LostSession,
  Notice,
  ParamsOf,
  PatchbaySettings,
  ResultOf,
  Snapshot,
} from './api/types.ts';
import { HubError, isHubMethod } from './api/types.ts';
import { parseParams } from './api/command-schemas.ts';
import { containingDepth } from './broker/folders.ts';
import { EditorDiscovery, type DiscoveryState } from './discovery/editors.ts';
import { findPeerPid, processInfo, type ProcessInfo } from './discovery/peer-process.ts';
import { likelyReason, PiScanner, startedBefore } from './discovery/pi-scan.ts';
import { choosePiCommand, type HubOptions } from './options.ts';
import { LocalHost, type CoreHost } from './core/host.ts';
import type { Restored } from './core/keeper-host.ts';
import { HeldDiffs } from './review/held-diffs.ts';
import { Notices } from './notices/notices.ts';
import { SessionIds, type KnownSession } from './relay/stable-ids.ts';
import { readDoorMemory, writeDoorMemory, type DoorMemory } from './transport/door-memory.ts';
import { coreCrashNotice } from './notices/core-crash.ts';
import { takeOverConnections, takeOverHeld } from './relay/take-over.ts';
import { DisposableStore, type Disposable } from './lifecycle/disposables.ts';
import { fullCollection, MemoryRelease } from './lifecycle/release-memory.ts';
import { Relay } from './relay/relay.ts';
import type { RelayInbox } from './relay/review-bridge.ts';
import { receivedFrames } from './relay/rpc-link.ts';
import { DiffHistory } from './review/history.ts';
import { interruptedRecord, PendingLog } from './review/pending-log.ts';
import { Inbox, type Decision } from './review/inbox.ts';
import { acceptDecision } from './review/decision-facts.ts';
import { alreadyDecided } from './review/decision-words.ts';
import { diffTextsSize } from './review/held-text.ts';
import { readOriginal } from './review/read-original.ts';
import { hostChildHost } from './remote/child-host.ts';
import { isKeptTunnel } from './remote/kept.ts';
import { RemoteManager } from './remote/manager.ts';
import { changeModel, numberedChanges } from './review/changes.ts';
import { textOf } from './review/held-text.ts';
import { ReviewAfter, type Heard } from './review/review-after.ts';
import { DecideLater } from './review/decide-later.ts';
import { reviewModePatch, reviewModeView } from './review/review-mode.ts';
import type { SettledDiff } from './review/inbox.ts';
import { PiHost } from './rpc/host.ts';
import { HostedStore } from './rpc/hosted-store.ts';
import { piSessionDir } from './rpc/session-list.ts';
import { refuseExtensions } from './rpc/start-args.ts';
import { readAutoconnect, setAutoconnect } from './settings/pi-settings.ts';
import { PatchbayStore, type StoreBackend } from './settings/store.ts';
import { suggestionModelPatch } from './suggestions/models.ts';
import { Door, type DoorOptions } from './transport/door.ts';
import { TerminalDoors } from './transport/terminal-doors.ts';
import { newToken } from './transport/tokens.ts';
import { addWorktree } from './worktree/add.ts';
import { otherWorktrees, WorktreeIndex } from './worktree/worktrees.ts';

export interface Hub extends HubApi {
  readonly options: HubOptions;
  readonly doorPort: number;
  /** Rejects pending diffs (agents hear DIFF_REJECTED first), then closes everything and restores lockfiles. */
  close(reason?: string): Promise<void>;
  /**
   * The old core's part of a graceful restart: stops every connection at a message boundary once
   * what was asked is answered, keeps what the next core needs, and touches nothing of the lock
   * dirs, the pending diffs or the hosted pis (they go on under the next core). Returns each
   * connection's unread bytes (base64) and the connections that could not stop cleanly.
   */
  handOver(): Promise<{ heads: { conn: string; head: string }[]; broken: string[] }>;
  /** Timers, links and sessions its parts still hold: 0 once closed (a leak check for tests). */
  openResources(): number;
}

const SNAPSHOT_THROTTLE_MS = 25;
const PROCESS_SCAN_MS = 5000;
/** How often the editors' repositories are checked for worktrees added or removed (a stat each). */
const WORKTREE_CHECK_MS = 3000;
/** `remotes.reload` waits this long at most for a remote it was asked about to connect or fail. */
const REMOTE_SETTLE_MS = 20_000;
/** A handover waits this long at most for what agents asked to be answered (getDiagnostics' default deadline is 1.5 s). */
const HANDOVER_WAIT_MS = 2000;

/** Seams for tests and embedders; production uses the defaults. */
export interface HubDeps {
  log?: (message: string) => void;
  /** Finds an agent's process from its TCP peer port (default: /proc or lsof). */
  lookupPeer?: (remotePort: number, doorPort: number) => Promise<ProcessInfo | null>;
  /** Folder, command and start time of a pid (an agent that names itself, as Claude's `ide_connected` does; a pi that never connected). */
  processInfo?: (pid: number) => Promise<ProcessInfo | null>;
  /** How config.json is opened (the desktop app uses electron-store; default conf). */
  storeBackend?: StoreBackend;
  /** Who holds the sockets and children (default: this process; under the daemon: the keeper). */
  host?: CoreHost;
  /** What the keeper kept from the core before this one (connections, held diffs, pis). */
  restored?: Restored;
}

/** The most a held request's file may hold (the largest frame an agent may send). */
const MAX_HELD_BYTES = 256 * 1024 * 1024;

/** A fresh start: requests a dead run held are traced already (or belong to nothing any more). */
async function clearHeld(home: string, log: (message: string) => void): Promise<void> {
  await rm(join(home, HOME_FILES.held), { recursive: true, force: true }).catch((err: Error) => log(`${join(home, HOME_FILES.held)}: ${err.message}`));
}

function lostSession(known: KnownSession): LostSession {
  const hint =
    known.kind === 'pi'
      ? 'type /ide in that pi to connect it again (pi-ide does not reconnect by itself); until then its edits are written without review'
      : 'Claude Code retries by itself for about 15 s after its link drops; if it did not come back, type /ide in it';
  return { sessionId: known.id, pid: known.pid, kind: known.kind, cwd: known.cwd, clientName: known.clientName, since: known.seenAt, hint };
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

/** A folder as settings key it: without a trailing separator (a root stays as it is). */
function folderKey(folder: string | undefined): string | undefined {
  return folder?.replace(/(.)[\\/]+$/, '$1');
}

async function lookupPeerProcess(remotePort: number, doorPort: number): Promise<ProcessInfo | null> {
  const pid = await findPeerPid(doorPort, remotePort);
  return pid === null ? null : processInfo(pid);
}

export async function createHub(options: HubOptions, deps: HubDeps = {}): Promise<Hub> {
  const log = deps.log ?? (() => {});
  const history = await DiffHistory.open(options.home, { entries: options.historyEntries, bytes: options.historyBytes, diffChars: options.historyDiffChars }, log);
  const { log: pending, leftovers: left, aliveAt } = await PendingLog.open(options.home, log);
  const notices = await Notices.open(options.home, log);
  // A core that follows another under the same keeper gets the pending diffs back from it: none was cut off.
  const fresh = !deps.restored || deps.restored.reason === 'start';
  const leftovers = fresh ? left : [];
  // Diffs the last run never decided: it died without rejecting them (kill -9 of the daemon, power loss).
  if (leftovers.length > 0) {
    const diedAt = aliveAt ?? Date.now();
    history.addInterrupted(leftovers.map((p) => interruptedRecord(p, diedAt)), leftovers);
    const { notice } = await crashTrace(leftovers, diedAt, MAX_HELD_BYTES);
    log(notice?.message ?? `the last run stopped with ${leftovers.length} diffs pending from hosted pis that died with it; nothing was written`);
    if (notice) notices.add(notice);
  }
  if (fresh) await clearHeld(options.home, log);
  pending.clear();
  const hosted = await HostedStore.open(options.home, log);
  const ids = await SessionIds.open(options.home, log);
  const door = await readDoorMemory(options.home, log);
  const hub = new PatchbayHub(options, history, pending, hosted, notices, ids, door, {
    log,
    lookupPeer: deps.lookupPeer ?? lookupPeerProcess,
    processInfo: deps.processInfo ?? processInfo,
    host: deps.host ?? new LocalHost(),
    restored: deps.restored ?? null,
    ...(deps.storeBackend ? { storeBackend: deps.storeBackend } : {}),
  });
  try {
    await hub.start();
  } catch (err) {
    await hub.close();
    throw err;
  }
  return hub;
}

class PatchbayHub implements Hub {
  private readonly store: PatchbayStore;
  private readonly inbox: RelayInbox;
  private readonly relay: Relay;
  /** Keep and undo of edits already written. */
  private readonly after: ReviewAfter;
  /** Decisions a person made that the agent hears a few seconds later (Undo meanwhile). */
  private readonly later: DecideLater;
  private readonly discovery: EditorDiscovery;
  private readonly pi: PiHost;
  /** Remotes whose agents reach the door over SSH tunnels. */
  private readonly remotes: RemoteManager;
  /** The git worktrees of the repositories editors have open. */
  private readonly worktrees: WorktreeIndex;
  private readonly tokens: { pi: string; claude: string };
  /** Agents connected when Patchbay last stopped that run on without having come back. */
  private lost: LostSession[] = [];
  private door: Door | null = null;
  /** When the door was first advertised: a pi started earlier cannot have autoconnected to it. */
  private advertisedAt: number | null = null;
  private readonly processInfo: (pid: number) => Promise<ProcessInfo | null>;
  /** Doors for Claude Code in the terminals of editors the main door's lockfile does not name. */
  private readonly terminalDoors: TerminalDoors;
  private state: DiscoveryState = { editors: [], invalid: [], others: [], warnings: [], doorProblems: [] };
  private paused = false;
  private idle: IdleAgent[] = [];
  /** Remembers which processes are not pi between scans (scanIdle). */
  private readonly piScanner = new PiScanner();
  private readonly warnings: string[] = [];
  /** Review folders that are not folders on this machine (a typo, an unmounted disk). */
  private folderWarnings: string[] = [];
  private readonly listeners = new Set<(event: HubEvent) => void>();
  /** Its own timers; the parts (relay, discovery, pi host, door) close themselves. */
  private readonly timers = new DisposableStore();
  /** Gives decided big diffs' frames back once the relay is idle (V8 alone may wait many seconds). */
  private readonly memory = this.timers.add(new MemoryRelease(fullCollection(), { frames: receivedFrames, busy: () => this.relay.requestsInFlight() }));
  private snapshotPending: Disposable | null = null;
  private closing: Promise<void> | null = null;

  private readonly log: (message: string) => void;
  private readonly host: CoreHost;
  private readonly restored: Restored | null;
  private readonly held: HeldDiffs;
  private readonly core: CoreView;
  /** A graceful restart is under way: commands wait for the next core. */
  private restarting = false;

  constructor(
    readonly options: HubOptions,
    private readonly history: DiffHistory,
    private readonly pending: PendingLog,
    private readonly hostedStore: HostedStore,
    private readonly notices: Notices,
    private readonly ids: SessionIds,
    /** The door's port and tokens from the last run (door-memory.ts), or null. */
    private doorMemory: DoorMemory | null,
    deps: Required<Omit<HubDeps, 'storeBackend' | 'restored'>> & Pick<HubDeps, 'storeBackend'> & { restored: Restored | null },
  ) {
    const { log, lookupPeer } = deps;
    this.log = log;
    this.host = deps.host;
    this.restored = deps.restored;
    this.held = new HeldDiffs(options.home, deps.host, log, (id, file) => pending.update(id, { held: file }));
    this.tokens = doorMemory?.tokens ?? { pi: newToken(), claude: newToken() };
    const restored = deps.restored;
    this.core = { reason: restored?.reason ?? 'start', startedAt: Date.now(), restarts: restored?.restarts ?? 0, daemonSince: restored?.since ?? null };
    if (restored?.reason === 'crash' && restored.crash) {
      const notice = coreCrashNotice(restored.crash, this.core.startedAt, { connections: restored.conns.length, held: restored.held.length });
      notices.add(notice);
      log(notice.message);
    }
    this.processInfo = deps.processInfo;
    this.store = PatchbayStore.open(options.home, deps.storeBackend);
    this.warnings.push(...this.store.warnings, ...hostedStore.warnings);
    const settings = this.store.settings();
    const now = (): number => Date.now();
    this.inbox = new Inbox(
      {
        boundEditor: (sessionId) => this.relay.boundEditorId(sessionId),
        editorDialect: (editorId) => this.relay.editors.get(editorId)?.instance.dialect ?? null,
        route: () => this.store.settings().reviewRoute,
        now,
        settled: (decided) => {
          this.held.release(decided.id);
          pending.remove(decided.id);
          history.add(decided);
          this.memory.noteGarbage(diffTextsSize(decided));
        },
        arrived: (diff, agent) => {
          const pid = this.relay.sessionViews().find((v) => v.id === diff.sessionId)?.pid;
          const hosted = pid !== null && pid !== undefined && this.pi.pids().has(pid);
          pending.add({ id: diff.id, sessionId: diff.sessionId, agent, path: diff.path, tabName: diff.tabName, createdAt: diff.createdAt, editorId: diff.editorId, held: this.held.fileOf(diff.id), hosted });
          // What the file was at arrival: a trace after a crash tells "not written" by it.
          void stat(diff.path).then(
            (s) => pending.update(diff.id, { original: { size: s.size, mtimeMs: s.mtimeMs } }),
            (err: NodeJS.ErrnoException) => err.code === 'ENOENT' && pending.update(diff.id, { original: null }),
          );
        },
        turnOf: (sessionId) => this.pi.turnFor(sessionId) ?? this.relay.turnOf(sessionId),
      },
      history.lastId(),
    );
    this.relay = new Relay({
      version: options.version,
      lastSessionNumber: Math.max(history.lastSessionNumber(), ids.lastNumber()),
      ids,
      inbox: this.inbox,
      settings: () => this.store.settings(),
      paused: () => this.paused,
      memory: {
        get: (key) => this.store.memory(key),
        set: (key, id) => this.store.remember(key, id),
        forget: (key) => this.store.forget(key),
      },
      lookupPeer: (remotePort, doorPort) => lookupPeer(remotePort, doorPort),
      processInfo: deps.processInfo,
      readOriginal: (path, maxBytes) => readOriginal(path, Math.min(maxBytes, options.maxReviewFileBytes)),
      pendingDiffBytes: options.maxPendingDiffBytes,
      trafficEntries: options.trafficEntries,
      onChange: () => {
        this.pi.doorSessionsChanged();
        this.changed();
      },
      onDiffAdded: (diff) => {
        this.pi.noteDiff(diff);
        this.emit({ type: 'diffAdded', diff });
      },
      onDiffDecided: (record) => {
        this.later.forget(record.id);
        this.emit({ type: 'diffDecided', record });
      },
      canRecordApplied: (bytes) => this.canRecordApplied(bytes),
      recordApplied: (applied) => this.recordApplied(applied),
      editorSuspect: (editor, how) => void this.discovery.markSuspect(editor.port, how),
      worktrees: (editorId) => this.editorWorktrees(editorId),
      host: deps.host,
      keep: (connId, meta) => deps.host.keep(connId, meta),
      held: this.held,
      log,
      now,
    });
    this.later = new DecideLater(
      this.timers,
      (id, decision) => {
        try {
          this.decide(id, decision);
        } catch (err) {
          this.log(`diff ${id}: the decision made a moment ago could not be sent: ${(err as Error).message}`);
        }
      },
      now,
    );
    this.after = new ReviewAfter({
      history,
      maxFileBytes: options.maxReviewFileBytes,
      now,
      isPending: (id) => this.inbox.get(id) !== undefined,
      tell: (sessionId, message) => this.tellAgent(sessionId, message),
      changed: () => this.changed(),
    });
    this.worktrees = new WorktreeIndex({
      env: options.toolEnv,
      onChange: () => {
        this.relay.rebalance();
        void this.publishDoor();
      },
      log,
    });
    this.discovery = new EditorDiscovery({
      dirs: [
        { dir: options.piLockDir, dialect: 'pi' },
        ...(settings.claude ? [{ dir: options.claudeLockDir, dialect: 'claude' as const }] : []),
      ],
      takeover: settings.takeover,
      trustedDirs: settings.trustedLockDirs,
      pollMs: options.pollMs,
      livenessMs: options.livenessMs,
      maxLockfileBytes: options.maxLockfileBytes,
      selfPid: deps.host.pid,
      onChange: (state) => this.onDiscovery(state),
      log,
    });
    this.pi = new PiHost({
      command: () => choosePiCommand(this.store.settings().piCommand, options.piCommand).command,
      // A hosted pi with pi-ide looks for editors where this Patchbay publishes its door.
      env: { ...options.piEnv, PI_IDE_LOCK_DIR: options.piLockDir },
      startTimeoutMs: options.piStartTimeoutMs,
      commandTimeoutMs: options.piCommandTimeoutMs,
      stopGraceMs: options.piStopGraceMs,
      ideConnectMs: options.piIdeConnectMs,
      autoconnects: async (cwd) => (await readAutoconnect({ globalFile: options.piSettingsFile, project: cwd })).effective,
      reviewWaitMs: options.piReviewWaitMs,
      // Started or resumed, pi loads extensions only with the person's leave.
      // The pi command and allowPiExtensions are set in config.json, not over the API: as they are now.
      checkArgs: (args, command) => refuseExtensions(args, this.reloadSettings().allowPiExtensions, command),
      memory: hostedStore,
      sessionDir: () => piSessionDir({ agentDir: options.piAgentDir, envSessionDir: options.piSessionDir }, log),
      onEvent: (id, event) => this.emit({ type: 'pi', id, event }),
      onChange: () => this.changed(),
      onFoldersChanged: () => this.publishDoor(),
      door: () => (this.door ? { pid: this.host.pid, port: this.door.port } : null),
      sessionIdForPid: (pid) => this.relay.sessionIdForPid(pid),
      host: deps.host,
      log,
    });
    this.remotes = new RemoteManager({
      // Owned by the host: under the daemon the keeper, so tunnels outlive a restart of the core.
      host: hostChildHost(deps.host),
      ssh: options.sshCommand,
      env: options.toolEnv,
      aliveIntervalS: options.remoteAliveIntervalS,
      aliveCountMax: options.remoteAliveCountMax,
      connectTimeoutS: options.remoteConnectTimeoutS,
      upDeadlineMs: (options.remoteConnectTimeoutS + 15) * 1000,
      requestTimeoutMs: 5000,
      stopGraceMs: 2000,
      backoff: { firstRetryMs: options.remoteRetryFirstMs, maxRetryMs: options.remoteRetryMaxMs, stableMs: 30_000 },
      doorPort: () => this.door?.port ?? 0,
      dialects: () => (this.store.settings().claude ? ['pi', 'claude'] : ['pi']),
      onChange: () => this.changed(),
      log,
      now,
    });
    this.terminalDoors = new TerminalDoors(async (pid) => {
      // The same editor (pid) as before a restart: its terminals' Claude Code retries that port and token.
      const kept = this.doorMemory?.terminals[String(pid)];
      const token = kept?.token ?? newToken();
      // Tunnels lead to the main door only: a terminal's door takes no remote's token.
      const door = await Door.open({ ...this.doorOptions(), name: `terminal-${pid}`, port: kept?.port ?? 0, fallBack: true, tokens: { claude: token }, remoteKeys: () => [] });
      return { door, token };
    }, log);
  }

  /** Review after: why an edit whose texts hold `bytes` cannot be recorded to be taken back later, or null. */
  private canRecordApplied(bytes: number): string | null {
    const mib = (n: number): string => `${(n / (1024 * 1024)).toFixed(1)} MiB`;
    if (bytes > this.options.historyDiffChars) return `the edit and the file before it hold ${mib(bytes)}, more than the ${mib(this.options.historyDiffChars)} the history keeps of one edit, so Patchbay could not take it back`;
    const held = this.history.appliedBytes();
    if (held + bytes > this.options.historyBytes) {
      return `edits waiting for review after already hold ${mib(held)} of the history's ${mib(this.options.historyBytes)}; keep or undo some so that new ones can be applied at once`;
    }
    return null;
  }

  /** An edit applied at once: in the history, its changes numbered, on disk before the agent hears. */
  private async recordApplied(applied: SettledDiff): Promise<void> {
    const before = applied.isNew || applied.oldContents === null ? '' : textOf(applied.oldContents);
    const changes = numberedChanges(changeModel(before, textOf(applied.newContents)));
    await this.history.addApplied(applied, changes);
    this.memory.noteGarbage(diffTextsSize(applied));
    this.changed();
  }

  /** Tells a session's agent of a keep or an undo where it can hear it: a hosted pi is steered, else its next diagnostics. */
  private async tellAgent(sessionId: string, message: { path: string; text: string; line?: number }): Promise<Heard> {
    const hosted = this.pi.hostedFor(sessionId);
    if (hosted !== null) {
      try {
        await this.pi.steer(hosted, message.text);
        return 'steered';
      } catch (err) {
        this.log(`pi ${hosted}: could not be steered (${(err as Error).message}); told at its next diagnostics`);
      }
    }
    const note = { path: message.path, message: message.text, ...(message.line !== undefined ? { line: message.line } : {}) };
    return this.relay.addReviewNote(sessionId, note) ? 'diagnostics' : 'not connected';
  }

  /** The main door's options; the doors for editors' terminals differ in port and token. */
  private doorOptions(): DoorOptions {
    const settings = this.store.settings();
    // A port given (PATCHBAY_DOOR_PORT) is that or nothing; else the last run's, or another if it is taken.
    const remembered = this.options.doorPort === 0 ? (this.doorMemory?.port ?? 0) : 0;
    return {
      host: this.options.host,
      port: this.options.doorPort || remembered,
      fallBack: remembered !== 0,
      tokens: settings.claude ? this.tokens : { pi: this.tokens.pi },
      maxPayload: settings.maxFrameBytes,
      remoteKeys: () => this.remotes.keys(),
      onConnection: (conn) => {
        const remote = conn.remote === null ? null : this.remotes.origin(conn.remote);
        // Its token was a remote's that is gone since (removed as it connected).
        if (conn.remote !== null && remote === null) return conn.ws.close(1008, 'this remote was removed from Patchbay');
        this.relay.addAgent(conn.ws, conn.dialect, conn.remotePort, conn.localPort, conn.connId, remote);
      },
      log: this.log,
      maxPending: this.options.maxPendingConnections,
      upgradeDeadlineMs: this.options.upgradeDeadlineMs,
      coreHost: this.host,
      name: 'door',
    };
  }

  get doorPort(): number {
    return this.door?.port ?? 0;
  }

  async start(): Promise<void> {
    this.door = await Door.open(this.doorOptions());
    if (this.door.fellBack) this.doorMoved(this.doorMemory!.port, this.door.port);
    // Before the connections are taken over: an agent's through a tunnel finds its remote, and
    // the tunnels the keeper kept through a restart go on.
    const [tunnels, pis] = partition(this.restored?.children ?? [], (child) => isKeptTunnel(child.kept));
    await this.remotes.sync(this.store.settings().remotes, tunnels);
    // Before discovery lists the editors: their links are taken over as it does.
    const sessions = this.restored ? takeOverConnections(this.restored.conns, this.takeOverDeps()) : null;
    if (this.restored && sessions) await takeOverHeld(this.restored.held, sessions, this.takeOverDeps());
    await this.discovery.start();
    if (this.restored) void this.pi.adopt(pis);
    this.advertisedAt = Date.now();
    await this.publishDoor();
    void this.checkReviewFolders();
    this.timers.interval(WORKTREE_CHECK_MS, () => void this.worktrees.refresh());
    if (this.options.scanProcesses) {
      void this.scanIdle();
      this.timers.interval(PROCESS_SCAN_MS, () => void this.scanIdle());
    }
    void this.checkLost();
    this.timers.interval(PROCESS_SCAN_MS, () => void this.checkLost());
  }

  /** Said loudly (status, the log, the UI): agents that remember the old port will not find the door by themselves. */
  private doorMoved(wanted: number, port: number): void {
    const notice: Notice = {
      id: `port-taken-${Date.now()}`,
      kind: 'port-taken',
      at: Date.now(),
      message:
        `Port ${wanted}, where agents found Patchbay's door before, is held by another program; the door is on port ${port} now. ` +
        'Agents that were connected will not find it by themselves: type /ide in each (Claude Code, pi) to connect again.',
    };
    this.notices.add(notice);
    this.log(`warning: ${notice.message}`);
  }

  /** The door's port and tokens, for the next start (when they changed). */
  private rememberDoor(): void {
    if (!this.door) return;
    const terminals: DoorMemory['terminals'] = {};
    for (const t of this.terminalDoors.list()) terminals[String(t.pid)] = { port: t.port, token: t.token };
    const memory: DoorMemory = { port: this.door.port, tokens: this.tokens, terminals };
    if (JSON.stringify(memory) === JSON.stringify(this.doorMemory)) return;
    this.doorMemory = memory;
    void writeDoorMemory(this.options.home, memory).catch((err: Error) => this.log(`door: could not keep its port and tokens for the next start: ${err.message}`));
  }

  /**
   * Agents connected when Patchbay last stopped (or died) whose process still runs and that have
   * not come back: pi-ide never reconnects by itself, so the person must be told which.
   */
  private async checkLost(): Promise<void> {
    const here = new Set(this.relay.sessionViews().flatMap((v) => (v.pid === null ? [] : [v.pid])));
    const candidates = this.ids.wereConnected().filter((s) => !here.has(s.pid));
    const alive = await Promise.all(candidates.map(async (s) => (await this.processInfo(s.pid).catch(() => null))?.startedAt === s.startedAt));
    const lost = candidates.filter((_, i) => alive[i]).map(lostSession);
    if (JSON.stringify(lost) === JSON.stringify(this.lost)) return;
    this.lost = lost;
    void this.publishDoor();
    this.changed();
  }

  private takeOverDeps() {
    return {
      relay: this.relay,
      held: this.held,
      maxPayload: () => this.store.settings().maxFrameBytes,
      maxFrameBytes: () => this.store.settings().maxFrameBytes,
      remote: (name: string) => this.remotes.origin(name),
      drop: (id: string) => this.host.drop(id),
      readOriginal: (path: string) => readOriginal(path, Math.min(this.relay.review.room(), this.options.maxReviewFileBytes)),
      log: this.log,
    };
  }

  private onDiscovery(state: DiscoveryState): void {
    this.state = state;
    void this.worktrees.setFolders(state.editors.flatMap((e) => e.workspaceFolders));
    this.relay.setEditors(state.editors);
    void this.publishDoor();
    this.changed();
  }

  /** An editor's other git worktrees: agents there are its, and find the door there. */
  private editorWorktrees(editorId: string): string[] {
    const editor = this.state.editors.find((e) => e.id === editorId);
    return editor ? otherWorktrees(editor.workspaceFolders, (folder) => this.worktrees.worktreesOf(folder)) : [];
  }

  /**
   * What the door advertises: every live editor's folders and its other worktrees (pi-ide offers
   * only a lockfile whose folders contain its cwd), the review folders, folders with a review mode
   * of their own (Patchbay reviews there, editor or not), hosted pi sessions' folders, and the
   * folders of agents that were connected before a stop and have not come back (`/ide` in such a
   * pi finds the door only where it is advertised, editor or not).
   */
  private advertisedFolders(): string[] {
    const settings = this.store.settings();
    return [
      ...this.state.editors.flatMap((e) => [...e.workspaceFolders, ...this.editorWorktrees(e.id)]),
      ...settings.reviewFolders,
      ...Object.keys(settings.reviewModePerFolder),
      ...this.pi.folders(),
      ...this.lost.flatMap((l) => (l.cwd === null ? [] : [l.cwd])),
    ];
  }

  private async publishDoor(): Promise<void> {
    if (!this.door || this.closing) return;
    const settings = this.store.settings();
    const folders = this.advertisedFolders();
    try {
      // Editors' pids are named only while their lockfiles are taken over: otherwise Claude Code
      // in their terminals sees the editor's own lockfile, and a door naming it would make two.
      const terminals = settings.claude && settings.takeover ? this.state.editors : [];
      const claude = await this.terminalDoors.sync(terminals, this.host.pid);
      await this.discovery.publishDoor({
        port: this.door.port,
        tokens: settings.claude ? this.tokens : { pi: this.tokens.pi },
        folders,
        ...(settings.claude ? { claude } : {}),
      });
      this.rememberDoor();
    } catch (err) {
      this.log(`door: ${(err as Error).message}`);
    }
    this.changed();
  }

  /** Says which review folders do not exist: agents there would never find the door. */
  private async checkReviewFolders(): Promise<void> {
    const problems: string[] = [];
    for (const folder of this.store.settings().reviewFolders) {
      const isFolder = await stat(folder).then(
        (s) => s.isDirectory(),
        () => false,
      );
      if (!isFolder) problems.push(`Review folder ${folder} is not a folder on this machine: no agent works there, so none reaches Patchbay through it. Check it in Settings.`);
    }
    if (JSON.stringify(problems) === JSON.stringify(this.folderWarnings)) return;
    this.folderWarnings = problems;
    this.changed();
  }

  private notConnected<T extends { pid: number }>(agents: T[]): T[] {
    if (agents.length === 0) return agents;
    // An agent that was connected before the stop is listed as not reconnected, not as idle.
    const connected = new Set([...this.relay.connectedPids(), ...this.pi.pids(), ...this.lost.map((l) => l.pid)]);
    return agents.filter((a) => !connected.has(a.pid));
  }

  /** Running pi processes that never reached the door, with the likely reason. */
  private async scanIdle(): Promise<void> {
    try {
      // Hosted sessions are listed as such, connected or not.
      const folders = this.advertisedFolders();
      const idle: IdleAgent[] = [];
      for (const proc of this.notConnected(await this.piScanner.scan())) {
        if (this.host.ownPids.has(proc.pid)) continue;
        const autoconnect = proc.cwd
          ? await readAutoconnect({ globalFile: this.options.piSettingsFile, project: proc.cwd }).then(
              (view) => view.effective,
              () => null,
            )
          : null;
        const folderMatched = proc.cwd ? containingDepth(folders, proc.cwd) >= 0 : null;
        const startedBeforeDoor = startedBefore((await this.processInfo(proc.pid))?.startedAt ?? null, this.advertisedAt);
        idle.push({ ...proc, reason: likelyReason(proc, { autoconnect, piIdeInstalled: null, folderMatched, startedBeforeDoor }) });
      }
      if (JSON.stringify(idle) !== JSON.stringify(this.idle)) {
        this.idle = idle;
        this.changed();
      }
    } catch (err) {
      this.log(`process scan: ${(err as Error).message}`);
    }
  }

  // ── HubApi ───────────────────────────────────────────────────────────────

  async call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (!isHubMethod(method)) throw new HubError(`unknown command ${String(method)}`, 'invalid');
    if (this.restarting) throw new HubError('Patchbay is restarting; ask again in a moment', 'unavailable');
    if (this.closing) throw new HubError('Patchbay is shutting down', 'unavailable');
    const handler = this.handlers[method] as (p: ParamsOf<M>) => Promise<ResultOf<M>> | ResultOf<M>;
    return handler(this.oneSessionId(method, parseParams(method, params)));
  }

  /** As `call`, with a diff's big texts left as their JSON bytes for a face that sends them on as JSON. */
  async callForJson<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<unknown> {
    if (method !== 'diffs.get' || this.closing) return this.call(method, params);
    const { id } = parseParams('diffs.get', params);
    return this.inbox.getForJson(id) ?? (this.history.record(id) ? await this.history.detailForJson(id) : await this.call('diffs.get', { id }));
  }

  /**
   * One id per session, whichever a person has at hand: a hosted pi is also a door session (its
   * pi-ide's, `s3`), so the pi commands take that id and the session commands (bind, traffic,
   * diffs, models) take the hosted one (`pi-…`), each mapped to the other here.
   */
  private oneSessionId<M extends HubMethod>(method: M, params: ParamsOf<M>): ParamsOf<M> {
    if (typeof params !== 'object' || params === null) return params;
    const given = params as { id?: unknown; sessionId?: unknown };
    if (method.startsWith('pi.') && typeof given.id === 'string' && this.relay.hasSession(given.id)) {
      const hosted = this.pi.views().find((v) => v.sessionId === given.id);
      if (hosted) return { ...params, id: hosted.id };
    }
    if (typeof given.sessionId === 'string' && !this.relay.hasSession(given.sessionId)) {
      const door = this.pi.views().find((v) => v.id === given.sessionId)?.sessionId;
      if (door) return { ...params, sessionId: door };
    }
    return params;
  }

  private readonly handlers: { [M in HubMethod]: (params: ParamsOf<M>) => Promise<ResultOf<M>> | ResultOf<M> } = {
    snapshot: () => this.snapshot(),
    restart: async () => {
      if (!this.host.restart) throw new HubError('this Patchbay runs in one process (no daemon under it): quit it and start it again', 'unavailable');
      await this.host.restart();
      return { corePid: process.pid };
    },
    'notices.dismiss': ({ id }) => {
      if (!this.notices.dismiss(id)) {
        const ids = this.notices.list().map((n) => n.id);
        throw new HubError(`no notice ${id} (${ids.length > 0 ? `notices: ${ids.join(', ')}` : 'there are none'})`, 'not-found');
      }
      this.changed();
    },
    bind: ({ sessionId, editorId }) => this.relay.bind(sessionId, editorId),
    unpin: ({ sessionId }) => this.relay.unpin(sessionId),
    restore: async () => {
      // By hand, restoring means "stop taking over": otherwise the next check would adopt again.
      this.store.updateSettings({ takeover: false });
      const report = await this.discovery.stopTakeover();
      this.changed();
      return report;
    },
    setPaused: ({ paused }) => {
      this.paused = paused;
      this.relay.rebalance();
      this.changed();
    },
    'diffs.get': async ({ id }) => {
      const diff = this.inbox.get(id) ?? (await this.history.detail(id));
      if (diff) return diff;
      const pending = this.inbox.pending().map((d) => d.id);
      const hint = pending.length > 0 ? `pending: ${pending.join(', ')}` : 'nothing is pending';
      throw new HubError(`no diff ${id} (${hint}; the history keeps the latest ${this.options.historyEntries} decisions)`, 'not-found');
    },
    'diffs.accept': ({ id, contents, changes, reason, notes }) => this.decide(id, acceptDecision(this.pendingDetail(id), contents, changes, reason, notes)),
    'diffs.reject': ({ id, reason, notes }) =>
      this.decide(id, { outcome: 'reject', ...(reason !== undefined ? { reason } : {}), ...(notes !== undefined && notes.length > 0 ? { notes } : {}) }),
    'diffs.decideLater': ({ id, outcome, contents, changes, reason, notes, graceMs, batch, verb, what }) => {
      const detail = this.pendingDetail(id);
      const words = { ...(reason !== undefined ? { reason } : {}), ...(notes !== undefined && notes.length > 0 ? { notes } : {}) };
      // Checked now (a change number the proposal lacks is refused at once), sent later.
      const decision: Decision = outcome === 'accept' ? acceptDecision(detail, contents, changes, reason, notes) : { outcome: 'reject', ...words };
      const deciding = this.later.schedule(id, decision, graceMs, { batch, verb, what });
      this.changed();
      return { ...this.inbox.pending().find((d) => d.id === id)!, deciding };
    },
    'diffs.takeBack': ({ ids }) => {
      const back = this.later.takeBack(ids);
      this.changed();
      return back;
    },
    'diffs.sendNow': ({ ids }) => {
      const sent = this.later.sendNow(ids);
      return this.history.records().filter((r) => sent.includes(r.id));
    },
    'diffs.keep': async ({ id, notes, reason }) => (await this.after.keep([id], { ...(notes ? { notes } : {}), ...(reason !== undefined ? { reason } : {}) }))[0]!,
    'diffs.undo': async ({ id, changes, notes, reason }) =>
      (await this.after.undo([id], changes, { ...(notes ? { notes } : {}), ...(reason !== undefined ? { reason } : {}) }))[0]!,
    'diffs.keepAll': ({ ids }) => this.after.keep(ids),
    'diffs.undoAll': ({ ids, reason }) => this.after.undo(ids, undefined, reason !== undefined ? { reason } : {}),
    'reviewMode.get': ({ project }) => reviewModeView(this.store.settings(), folderKey(project)),
    'reviewMode.set': ({ project, value }) => {
      this.updateSettings(reviewModePatch(this.store.settings(), value, folderKey(project)));
      return reviewModeView(this.store.settings(), folderKey(project));
    },
    'diffs.acceptAll': ({ sessionId }) => this.relay.decideAll(sessionId, { outcome: 'accept' }),
    'diffs.rejectAll': ({ sessionId }) => this.relay.decideAll(sessionId, { outcome: 'reject' }),
    traffic: ({ sessionId, limit }) => this.relay.traffic(sessionId, limit),
    // What the CLI wrote to config.json as the person (the pi command…) shows at once.
    'settings.get': () => this.reloadSettings(),
    'settings.set': ({ patch }) => this.updateSettings(patch),
    'remotes.reload': async ({ wait }) => {
      this.reloadSettings();
      await this.remotes.sync(this.store.settings().remotes);
      if (wait !== undefined) await this.remotes.settled(wait, REMOTE_SETTLE_MS);
      return this.remotes.views();
    },
    'autoconnect.get': ({ project }) =>
      readAutoconnect({ globalFile: this.options.piSettingsFile, ...(project ? { project } : {}) }),
    'autoconnect.set': ({ project, value }) =>
      setAutoconnect({ globalFile: this.options.piSettingsFile, ...(project ? { project } : {}) }, value),
    'models.list': ({ sessionId }) => this.relay.models(sessionId),
    'models.refresh': ({ sessionId }) => this.relay.refreshModels(sessionId),
    'suggestionModel.set': ({ choice, editorId }) =>
      this.updateSettings(suggestionModelPatch(this.store.settings(), choice, editorId)),
    'pi.start': async ({ cwd, model, args, worktree }) => {
      let dir = cwd;
      if (worktree !== undefined) {
        dir = (await addWorktree(cwd, worktree, this.options.toolEnv)).path;
        // Its editor knows it at once: the pi's pi-ide finds the door there, and is bound.
        await this.worktrees.refresh();
        await this.publishDoor();
      }
      return this.pi.start({ cwd: dir, ...(model !== undefined ? { model } : {}), ...(args !== undefined ? { args } : {}) });
    },
    'pi.resume': (request) => this.pi.resume(request),
    'pi.sessions': ({ sessionDir }) => this.pi.savedSessions(sessionDir),
    'pi.get': ({ id }) => this.pi.detail(id),
    'pi.prompt': ({ id, text, streamingBehavior, images }) => this.pi.prompt(id, text, streamingBehavior, images),
    'pi.abort': ({ id }) => this.pi.abort(id),
    'pi.state': ({ id }) => this.pi.getState(id),
    'pi.models': ({ id }) => this.pi.models(id),
    'pi.setModel': ({ id, provider, modelId }) => this.pi.setModel(id, provider, modelId),
    'pi.setThinking': ({ id, level }) => this.pi.setThinking(id, level),
    'pi.stats': ({ id }) => this.pi.stats(id),
    'pi.answer': ({ id, requestId, answer }) => this.pi.answer(id, requestId, answer),
    'pi.stop': ({ id, keep }) => this.pi.stop(id, keep === true),
    'pi.commands': ({ id }) => this.pi.commands(id),
    'pi.thinkingLevels': ({ id }) => this.pi.thinkingLevels(id),
    'pi.forkPoints': ({ id }) => this.pi.forkPoints(id),
    'pi.fork': ({ id, entryId }) => this.pi.fork(id, entryId),
    'pi.clone': ({ id }) => this.pi.clone(id),
    'pi.newSession': ({ id }) => this.pi.newSession(id),
    'pi.switchSession': ({ id, sessionFile }) => this.pi.switchSession(id, sessionFile),
    'pi.tree': ({ id }) => this.pi.tree(id),
    'pi.compact': ({ id, instructions }) => this.pi.compact(id, instructions),
    'pi.setName': ({ id, name }) => this.pi.setName(id, name),
    'pi.exportHtml': ({ id, outputPath }) => this.pi.exportHtml(id, outputPath),
    'pi.bash': ({ id, command, excludeFromContext }) => this.pi.bash(id, command, excludeFromContext === true),
    'pi.abortBash': ({ id }) => this.pi.abortBash(id),
    'pi.clearQueue': ({ id }) => this.pi.clearQueue(id),
    'pi.setQueueModes': ({ id, steering, followUp }) =>
      this.pi.setQueueModes(id, { ...(steering !== undefined ? { steering } : {}), ...(followUp !== undefined ? { followUp } : {}) }),
    'pi.setAutoCompaction': ({ id, enabled }) => this.pi.setAutoCompaction(id, enabled),
    'pi.setAutoRetry': ({ id, enabled }) => this.pi.setAutoRetry(id, enabled),
    'pi.abortRetry': ({ id }) => this.pi.abortRetry(id),
  };

  /** A pending diff's contents; a decided one is refused saying when and where it was decided. */
  private pendingDetail(id: string): DiffDetail {
    const detail = this.inbox.get(id);
    if (detail) return detail;
    const record = this.history.records().find((r) => r.id === id);
    if (record) throw new HubError(alreadyDecided(record), 'conflict');
    throw new HubError(`no pending diff ${id}`, 'not-found');
  }

  private decide(id: string, decision: Decision): DecisionRecord {
    this.pendingDetail(id);
    return this.relay.decide(id, decision);
  }

  private updateSettings(patch: Partial<PatchbaySettings>): PatchbaySettings {
    const before = this.store.settings();
    const after = this.store.updateSettings(patch);
    this.applySettings(before, after);
    return after;
  }

  /** Takes in config.json as another writer (the CLI, an editor) left it, as if changed here. */
  private reloadSettings(): PatchbaySettings {
    const before = this.store.settings();
    this.store.reload();
    const after = this.store.settings();
    if (JSON.stringify(after) !== JSON.stringify(before)) this.applySettings(before, after);
    return after;
  }

  private applySettings(before: PatchbaySettings, after: PatchbaySettings): void {
    if (after.takeover !== before.takeover) void this.discovery.setTakeover(after.takeover).then(() => this.publishDoor());
    if (JSON.stringify(after.trustedLockDirs) !== JSON.stringify(before.trustedLockDirs)) {
      void this.discovery.setTrustedDirs(after.trustedLockDirs);
    }
    if (JSON.stringify(after.reviewFolders) !== JSON.stringify(before.reviewFolders) || JSON.stringify(after.reviewModePerFolder) !== JSON.stringify(before.reviewModePerFolder)) {
      void this.publishDoor();
      void this.checkReviewFolders();
    }
    if (after.reviewRoute !== before.reviewRoute) this.relay.rebalance();
    if (after.claude !== before.claude) {
      // Each remote's lockfiles over there follow the dialects the door serves: written anew.
      void this.remotes.sync([]).then(() => this.remotes.sync(this.store.settings().remotes));
    } else if (JSON.stringify(after.remotes) !== JSON.stringify(before.remotes)) {
      void this.remotes.sync(after.remotes);
    }
    this.changed();
  }

  snapshot(): Snapshot {
    return {
      version: this.options.version,
      pid: this.host.pid,
      corePid: process.pid,
      core: this.core,
      paused: this.paused,
      door: { port: this.door?.port ?? null, lockfiles: this.discovery.doorLockfiles(), problems: this.state.doorProblems },
      editors: this.relay.editorViews().map((e) => {
        const worktrees = this.editorWorktrees(e.id);
        return worktrees.length > 0 ? { ...e, worktrees } : e;
      }),
      invalidLockfiles: this.state.invalid,
      otherLockfiles: this.state.others,
      sessions: this.relay.sessionViews(),
      // The scan runs every few seconds: an agent that connected since is not idle any more.
      idleAgents: this.notConnected(this.idle),
      // What waits for the person: decisions before, and edits applied to review after.
      diffs: [...this.inbox.pending().map((d) => this.withDeciding(d)), ...this.history.applied()],
      history: this.history.records(),
      settings: this.store.settings(),
      hostedPi: this.hostedPiView(),
      hosted: this.pi.views(),
      remotes: this.remotes.views(),
      warnings: [...this.warnings, ...this.state.warnings, ...this.folderWarnings, ...this.worktrees.problems()],
      notices: this.notices.list(),
      notReconnected: this.lost.filter((l) => !this.relay.connectedPids().has(l.pid)),
    };
  }

  private withDeciding(diff: DiffSummary): DiffSummary {
    const deciding = this.later.of(diff.id);
    return deciding === undefined ? diff : { ...diff, deciding };
  }

  private hostedPiView(): HostedPiView {
    const settings = this.store.settings();
    const { command, source } = choosePiCommand(settings.piCommand, this.options.piCommand);
    return { command, commandSource: source, allowExtensions: settings.allowPiExtensions, settingsFile: this.store.path };
  }

  subscribe(listener: (event: HubEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(event: HubEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.log(`event listener failed: ${(err as Error).message}`);
      }
    }
  }

  /** Snapshot events are coalesced: a burst of changes costs one snapshot. */
  private changed(): void {
    if (this.snapshotPending || this.listeners.size === 0) return;
    this.snapshotPending = this.timers.timeout(SNAPSHOT_THROTTLE_MS, () => {
      this.snapshotPending = null;
      if (!this.closing) this.emit({ type: 'snapshot', snapshot: this.snapshot() });
    });
  }

  openResources(): number {
    return this.timers.size + this.relay.resources + this.pi.resources + this.terminalDoors.size + this.remotes.resources;
  }

  async handOver(): Promise<{ heads: { conn: string; head: string }[]; broken: string[] }> {
    this.restarting = true;
    this.timers.dispose();
    this.pi.detach();
    this.worktrees.close();
    // The tunnels run on under the keeper for the next core.
    this.remotes.detach();
    await this.discovery.detach();
    const { heads, broken } = await this.relay.handOver(HANDOVER_WAIT_MS);
    await this.hostedStore.close();
    await this.pending.close();
    await this.history.close();
    await this.notices.close();
    await this.ids.close();
    this.listeners.clear();
    if (broken.length > 0) this.log(`${broken.length} connections could not stop at a frame boundary in time; they close`);
    return { heads: [...heads].map(([conn, head]) => ({ conn, head: head.toString('base64') })), broken };
  }

  close(reason = 'Patchbay stopped'): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      this.log(`closing: ${reason}`);
      // A person's decisions waiting their few seconds go first: they were made.
      this.later.flush();
      await this.relay.review.drain();
      this.timers.dispose();
      // The agents connected now had been connected: the next start lists those that do not come back.
      await this.ids.freeze();
      await this.relay.rejectAllForShutdown();
      // After the rejections (a pi blocked in openDiff can then abort at once), and before the
      // door closes: pi-ide writes an edit unreviewed when its connection drops.
      const working = this.pi.working();
      if (working.length > 0) {
        this.log(`stopping ${working.map((v) => v.id).join(', ')} mid-turn; each can be resumed: patchbay pi resume <id>`);
      }
      await this.pi.close();
      // Each remote's helper removes the lockfiles it wrote over there before its tunnel closes.
      await this.remotes.close();
      await this.hostedStore.close();
      this.relay.close();
      await this.door?.close();
      await this.terminalDoors.close();
      await this.discovery.close();
      this.worktrees.close();
      await this.pending.close();
      await this.history.close();
      await this.notices.close();
      this.listeners.clear();
    })();
    return this.closing;
  }
}
