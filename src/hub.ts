// The composition root: wires discovery, the door, the relay, the inbox, the store and
// pi's settings into the one HubApi every face uses. Nothing else builds long-lived objects.
import { stat } from 'node:fs/promises';
import type {
  DecisionRecord,
  DiffDetail,
  HubApi,
  HubEvent,
  HubMethod,
  HostedPiView,
  IdleAgent,
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
import { likelyReason, scanPiProcesses, startedBefore } from './discovery/pi-scan.ts';
import { choosePiCommand, type HubOptions } from './options.ts';
import { DisposableStore, type Disposable } from './lifecycle/disposables.ts';
import { fullCollection, MemoryRelease } from './lifecycle/release-memory.ts';
import { Relay } from './relay/relay.ts';
import type { RelayInbox } from './relay/review-bridge.ts';
import { DiffHistory } from './review/history.ts';
import { interruptedRecord, PendingLog, type PendingRecord } from './review/pending-log.ts';
import { Inbox, type Decision } from './review/inbox.ts';
import { acceptDecision } from './review/decision-facts.ts';
import { alreadyDecided } from './review/decision-words.ts';
import { diffTextsSize } from './review/held-text.ts';
import { readOriginal } from './review/read-original.ts';
import { localChildHost, type ChildHost } from './remote/child-host.ts';
import { RemoteManager } from './remote/manager.ts';
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
  /** Timers, links and sessions its parts still hold: 0 once closed (a leak check for tests). */
  openResources(): number;
}

const SNAPSHOT_THROTTLE_MS = 25;
const PROCESS_SCAN_MS = 5000;
/** How often the editors' repositories are checked for worktrees added or removed (a stat each). */
const WORKTREE_CHECK_MS = 3000;
/** `remotes.reload` waits this long at most for a remote it was asked about to connect or fail. */
const REMOTE_SETTLE_MS = 20_000;

/** Seams for tests and embedders; production uses the defaults. */
export interface HubDeps {
  log?: (message: string) => void;
  /** Finds an agent's process from its TCP peer port (default: /proc or lsof). */
  lookupPeer?: (remotePort: number, doorPort: number) => Promise<ProcessInfo | null>;
  /** Folder, command and start time of a pid (an agent that names itself, as Claude's `ide_connected` does; a pi that never connected). */
  processInfo?: (pid: number) => Promise<ProcessInfo | null>;
  /** How config.json is opened (the desktop app uses electron-store; default conf). */
  storeBackend?: StoreBackend;
  /** Who runs the remotes' ssh processes (default: this process). */
  childHost?: ChildHost;
}

/** What the person must know when the last run died with diffs pending. */
function crashWarning(leftovers: readonly PendingRecord[]): string | null {
  if (leftovers.length === 0) return null;
  const n = leftovers.length;
  const files = leftovers.map((p) => `${p.path} (${p.id}, from ${p.agent})`).join(', ');
  return `Patchbay stopped unexpectedly with ${n} ${n === 1 ? 'edit' : 'edits'} waiting for review: ${files}. The agent may have written ${n === 1 ? 'it' : 'them'} without review (pi-ide writes the file itself when its link to Patchbay drops): check ${n === 1 ? 'the file' : 'those files'}. The history lists ${n === 1 ? 'it' : 'them'} as interrupted.`;
}

async function lookupPeerProcess(remotePort: number, doorPort: number): Promise<ProcessInfo | null> {
  const pid = await findPeerPid(doorPort, remotePort);
  return pid === null ? null : processInfo(pid);
}

export async function createHub(options: HubOptions, deps: HubDeps = {}): Promise<Hub> {
  const log = deps.log ?? (() => {});
  const history = await DiffHistory.open(options.home, { entries: options.historyEntries, bytes: options.historyBytes, diffChars: options.historyDiffChars }, log);
  const { log: pending, leftovers } = await PendingLog.open(options.home, log);
  // Diffs the last run never decided: it stopped without rejecting them (a crash, kill -9).
  const cutOff = leftovers.map((p) => interruptedRecord(p, Date.now()));
  if (cutOff.length > 0) {
    history.addInterrupted(cutOff, leftovers);
    log(`the last run stopped with ${cutOff.length} diffs pending: ${cutOff.map((r) => `${r.id} ${r.path}`).join(', ')}`);
  }
  pending.clear();
  const hosted = await HostedStore.open(options.home, log);
  const hub = new PatchbayHub(options, history, pending, crashWarning(leftovers), hosted, {
    log,
    lookupPeer: deps.lookupPeer ?? lookupPeerProcess,
    processInfo: deps.processInfo ?? processInfo,
    ...(deps.storeBackend ? { storeBackend: deps.storeBackend } : {}),
    childHost: deps.childHost ?? localChildHost,
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
  private readonly discovery: EditorDiscovery;
  private readonly pi: PiHost;
  /** Remotes whose agents reach the door over SSH tunnels. */
  private readonly remotes: RemoteManager;
  /** The git worktrees of the repositories editors have open. */
  private readonly worktrees: WorktreeIndex;
  private readonly tokens = { pi: newToken(), claude: newToken() };
  private door: Door | null = null;
  /** When the door was first advertised: a pi started earlier cannot have autoconnected to it. */
  private advertisedAt: number | null = null;
  private readonly processInfo: (pid: number) => Promise<ProcessInfo | null>;
  /** Doors for Claude Code in the terminals of editors the main door's lockfile does not name. */
  private readonly terminalDoors: TerminalDoors;
  private state: DiscoveryState = { editors: [], invalid: [], warnings: [], doorProblems: [] };
  private paused = false;
  private idle: IdleAgent[] = [];
  private readonly warnings: string[] = [];
  /** Review folders that are not folders on this machine (a typo, an unmounted disk). */
  private folderWarnings: string[] = [];
  private readonly listeners = new Set<(event: HubEvent) => void>();
  /** Its own timers; the parts (relay, discovery, pi host, door) close themselves. */
  private readonly timers = new DisposableStore();
  /** Gives decided big diffs' frames back once traffic stops (V8 alone may wait many seconds). */
  private readonly memory = this.timers.add(new MemoryRelease(fullCollection()));
  private snapshotPending: Disposable | null = null;
  private closing: Promise<void> | null = null;

  private readonly log: (message: string) => void;

  constructor(
    readonly options: HubOptions,
    private readonly history: DiffHistory,
    private readonly pending: PendingLog,
    crashed: string | null,
    private readonly hostedStore: HostedStore,
    deps: Required<Omit<HubDeps, 'storeBackend'>> & Pick<HubDeps, 'storeBackend'>,
  ) {
    const { log, lookupPeer } = deps;
    this.log = log;
    this.processInfo = deps.processInfo;
    this.store = PatchbayStore.open(options.home, deps.storeBackend);
    this.warnings.push(...this.store.warnings, ...hostedStore.warnings);
    if (crashed !== null) this.warnings.push(crashed);
    const settings = this.store.settings();
    const now = (): number => Date.now();
    this.inbox = new Inbox(
      {
        boundEditor: (sessionId) => this.relay.boundEditorId(sessionId),
        editorDialect: (editorId) => this.relay.editors.get(editorId)?.instance.dialect ?? null,
        route: () => this.store.settings().reviewRoute,
        now,
        settled: (decided) => {
          pending.remove(decided.id);
          history.add(decided);
          this.memory.noteGarbage(diffTextsSize(decided));
        },
        arrived: (diff, agent) =>
          pending.add({ id: diff.id, sessionId: diff.sessionId, agent, path: diff.path, tabName: diff.tabName, createdAt: diff.createdAt, editorId: diff.editorId }),
      },
      history.lastId(),
    );
    this.relay = new Relay({
      version: options.version,
      lastSessionNumber: history.lastSessionNumber(),
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
      onDiffDecided: (record) => this.emit({ type: 'diffDecided', record }),
      editorSuspect: (editor, how) => void this.discovery.markSuspect(editor.port, how),
      worktrees: (editorId) => this.editorWorktrees(editorId),
      log,
      now,
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
      selfPid: process.pid,
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
      reviewWaitMs: options.piReviewWaitMs,
      // Started or resumed, pi loads extensions only with the person's leave.
      // The pi command and allowPiExtensions are set in config.json, not over the API: as they are now.
      checkArgs: (args, command) => refuseExtensions(args, this.reloadSettings().allowPiExtensions, command),
      memory: hostedStore,
      sessionDir: () => piSessionDir({ agentDir: options.piAgentDir, envSessionDir: options.piSessionDir }, log),
      onEvent: (id, event) => this.emit({ type: 'pi', id, event }),
      onChange: () => this.changed(),
      onFoldersChanged: () => this.publishDoor(),
      door: () => (this.door ? { pid: process.pid, port: this.door.port } : null),
      sessionIdForPid: (pid) => this.relay.sessionIdForPid(pid),
      log,
    });
    this.remotes = new RemoteManager({
      host: deps.childHost,
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
    // Tunnels lead to the main door only: a terminal's door takes no remote's token.
    this.terminalDoors = new TerminalDoors((token) => Door.open({ ...this.doorOptions(), port: 0, tokens: { claude: token }, remoteKeys: () => [] }), log);
  }

  /** The main door's options; the doors for editors' terminals differ in port and token. */
  private doorOptions(): DoorOptions {
    const settings = this.store.settings();
    return {
      host: this.options.host,
      port: this.options.doorPort,
      tokens: settings.claude ? this.tokens : { pi: this.tokens.pi },
      maxPayload: settings.maxFrameBytes,
      remoteKeys: () => this.remotes.keys(),
      onConnection: (conn) => {
        const remote = conn.remote === null ? null : this.remotes.origin(conn.remote);
        // Its token was a remote's that is gone since (removed as it connected).
        if (conn.remote !== null && remote === null) return conn.ws.close(1008, 'this remote was removed from Patchbay');
        this.relay.addAgent(conn.ws, conn.dialect, conn.remotePort, conn.localPort, remote);
      },
      log: this.log,
      maxPending: this.options.maxPendingConnections,
      upgradeDeadlineMs: this.options.upgradeDeadlineMs,
    };
  }

  get doorPort(): number {
    return this.door?.port ?? 0;
  }

  async start(): Promise<void> {
    this.door = await Door.open(this.doorOptions());
    await this.discovery.start();
    this.advertisedAt = Date.now();
    await this.publishDoor();
    void this.checkReviewFolders();
    void this.remotes.sync(this.store.settings().remotes);
    this.timers.interval(WORKTREE_CHECK_MS, () => void this.worktrees.refresh());
    if (this.options.scanProcesses) {
      void this.scanIdle();
      this.timers.interval(PROCESS_SCAN_MS, () => void this.scanIdle());
    }
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
   * only a lockfile whose folders contain its cwd), the review folders and hosted pi sessions' folders.
   */
  private advertisedFolders(): string[] {
    const editors = this.state.editors.flatMap((e) => [...e.workspaceFolders, ...this.editorWorktrees(e.id)]);
    return [...editors, ...this.store.settings().reviewFolders, ...this.pi.folders()];
  }

  private async publishDoor(): Promise<void> {
    if (!this.door || this.closing) return;
    const settings = this.store.settings();
    const folders = this.advertisedFolders();
    try {
      // Editors' pids are named only while their lockfiles are taken over: otherwise Claude Code
      // in their terminals sees the editor's own lockfile, and a door naming it would make two.
      const terminals = settings.claude && settings.takeover ? this.state.editors : [];
      const claude = await this.terminalDoors.sync(terminals, process.pid);
      await this.discovery.publishDoor({
        port: this.door.port,
        tokens: settings.claude ? this.tokens : { pi: this.tokens.pi },
        folders,
        ...(settings.claude ? { claude } : {}),
      });
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
    const connected = new Set([...this.relay.connectedPids(), ...this.pi.pids()]);
    return agents.filter((a) => !connected.has(a.pid));
  }

  /** Running pi processes that never reached the door, with the likely reason. */
  private async scanIdle(): Promise<void> {
    try {
      // Hosted sessions are listed as such, connected or not.
      const folders = this.advertisedFolders();
      const idle: IdleAgent[] = [];
      for (const proc of this.notConnected(await scanPiProcesses())) {
        if (proc.pid === process.pid) continue;
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
    if (this.closing) throw new HubError('Patchbay is shutting down', 'unavailable');
    const handler = this.handlers[method] as (p: ParamsOf<M>) => Promise<ResultOf<M>> | ResultOf<M>;
    return handler(this.oneSessionId(method, parseParams(method, params)));
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
    'diffs.accept': ({ id, contents, changes, reason }) => this.decide(id, acceptDecision(this.pendingDetail(id), contents, changes, reason)),
    'diffs.reject': ({ id, reason }) => this.decide(id, reason === undefined ? { outcome: 'reject' } : { outcome: 'reject', reason }),
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
    if (JSON.stringify(after.reviewFolders) !== JSON.stringify(before.reviewFolders)) {
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
      pid: process.pid,
      paused: this.paused,
      door: { port: this.door?.port ?? null, lockfiles: this.discovery.doorLockfiles(), problems: this.state.doorProblems },
      editors: this.relay.editorViews().map((e) => {
        const worktrees = this.editorWorktrees(e.id);
        return worktrees.length > 0 ? { ...e, worktrees } : e;
      }),
      invalidLockfiles: this.state.invalid,
      sessions: this.relay.sessionViews(),
      // The scan runs every few seconds: an agent that connected since is not idle any more.
      idleAgents: this.notConnected(this.idle),
      diffs: this.inbox.pending(),
      history: this.history.records(),
      settings: this.store.settings(),
      hostedPi: this.hostedPiView(),
      hosted: this.pi.views(),
      remotes: this.remotes.views(),
      warnings: [...this.warnings, ...this.state.warnings, ...this.folderWarnings, ...this.worktrees.problems()],
    };
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

  close(reason = 'Patchbay stopped'): Promise<void> {
    if (this.closing) return this.closing;
    this.closing = (async () => {
      this.log(`closing: ${reason}`);
      this.timers.dispose();
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
      this.listeners.clear();
    })();
    return this.closing;
  }
}
