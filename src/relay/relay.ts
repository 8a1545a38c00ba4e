// Routing between agent sessions and editors (DESIGN §5–§7): which editor serves each session
// (`rebalance`), and where each frame goes. Everything else is a part of its own: the tools
// Patchbay intercepts (tools/), the one link to each editor that every session bound to it
// shares (editor-connection), the inbox's effects (review-bridge), process lookups.
import type { WebSocket } from 'ws';
import type { AgentTurn, DecisionRecord, DiffSummary, Dialect, EditorView, PatchbaySettings, SessionModels, SessionView, TrafficEntry } from '../api/types.ts';
import { HubError } from '../api/types.ts';
import { isObject } from '../api/json.ts';
import { chooseEditor } from '../broker/choose-editor.ts';
import type { ProcessInfo } from '../discovery/peer-process.ts';
import { DisposableStore } from '../lifecycle/disposables.ts';
import { cleanToolList, closesTabOnReject, translateNotification } from '../protocol/dialect.ts';
import type { Envelope } from '../protocol/frame-cost.ts';
import { INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, TOO_MANY_REQUESTS, type RpcId, type RpcNotification, type RpcRequest, type RpcResponse } from '../protocol/jsonrpc.ts';
import { initializeResult, textResult } from '../protocol/mcp.ts';
import type { Decision, SettledDiff } from '../review/inbox.ts';
import type { Original } from '../review/read-original.ts';
import type { LiveEditor } from './editor-link.ts';
import { EditorConnection, type ConnectionDeps, type LinkLoss, type ParkedLink } from './editor-connection.ts';
import { flushed, stopAtBoundary } from '../core/ws-handover.ts';
import type { Disposable } from '../lifecycle/disposables.ts';
import type { HeldDiffs } from '../review/held-diffs.ts';
import type { SessionIds } from './stable-ids.ts';
import { EditorRegistry, type EditorEntry } from './editor-registry.ts';
import { EditorRequests } from './editor-requests.ts';
import { lookUpProcess, type LookupPlan } from './process-lookup.ts';
import { ReviewBridge, type RelayInbox } from './review-bridge.ts';
import { MAX_NOTES, type ReviewNote } from './review-notes.ts';
import { answer, RpcLink, type Frame } from './rpc-link.ts';
import { agentMeta, type AgentMeta, type ConnMeta } from './conn-meta.ts';
import { toRemote } from '../remote/paths.ts';
import { answerToRemote, notificationToRemote, requestToLocal } from './remote-paths.ts';
import { localCwd, newTurn, sessionKey, sessionView, type RemoteSide, type Session } from './session.ts';
import { askModels, noModels } from './session-models.ts';
import { ThrottledLog } from './throttled-log.ts';
import { BUILTIN_TOOLS, interceptedTool, type ToolContext } from './tools/index.ts';
import { refusedDiff } from './tools/open-diff.ts';
import { TrafficLog } from './traffic.ts';

export interface RelayDeps {
  version: string;
  /** The highest session number a past run used (its sessions are in the history): ids go on from it. */
  lastSessionNumber?: number;
  /** The review inbox; the hub owns it. */
  inbox: RelayInbox;
  settings(): PatchbaySettings;
  paused(): boolean;
  memory: {
    get(key: string): string | null | undefined;
    set(key: string, editorId: string | null): void;
    forget(key: string): void;
  };
  /** The agent's process from its TCP peer port and the port of the door it came to. */
  lookupPeer(remotePort: number, doorPort: number): Promise<ProcessInfo | null>;
  processInfo(pid: number): Promise<ProcessInfo | null>;
  /** The on-disk contents a diff is reviewed against, read up to `maxBytes` (and the review's own cap). */
  readOriginal(path: string, maxBytes: number): Promise<Original>;
  /** What pending diffs may hold in memory, all sessions together. */
  pendingDiffBytes: number;
  trafficEntries: number;
  /** Something shown in the snapshot changed. */
  onChange(): void;
  onDiffAdded(diff: DiffSummary): void;
  onDiffDecided(record: DecisionRecord): void;
  /** Review after: whether (null) or why not an edit of `bytes` can be recorded; and records one (ReviewBridgeDeps). */
  canRecordApplied(bytes: number): string | null;
  recordApplied(applied: SettledDiff): Promise<void>;
  /** An editor's link failed to open or closed by itself: discovery should check it now. */
  editorSuspect(editor: LiveEditor, how: LinkLoss): void;
  /** An editor's other git worktrees (of the repositories it has open): an agent in one is its (reason `worktree`). */
  worktrees?(editorId: string): readonly string[];
  /** Waits of the editor links (tests). */
  linkRetry?: ConnectionDeps['retry'];
  /** Keeps what a next core needs of a connection with the host (core/host.ts keep). */
  keep?(connId: string, meta: ConnMeta): void;
  /** Where pending diffs are kept for a core that may follow (review/held-diffs.ts). */
  held?: HeldDiffs;
  /** Which process had which session id before (stable-ids.ts). */
  ids?: SessionIds;
  /** Who opens editor connections (default: this process). */
  host?: ConnectionDeps['host'];
  log(message: string): void;
  now(): number;
  lookupPlan?: LookupPlan;
}

/** At a stop, the editors get this long to close the tabs of the diffs rejected. */
export const SHUTDOWN_CLOSE_TABS_MS = 1500;
/** pi answers listSuggestionModels only once its session has started: it is asked once more after this. */
export const MODELS_RETRY_MS = 2000;
/** A session whose editor link dropped is bound again this long after (discovery has had a look by then). */
export const REBIND_AFTER_LINK_LOSS_MS = 1000;
/**
 * A pi at the door says nothing of its turns; it asks for diagnostics before every model call, so
 * this long without a word from it means the person's next prompt started a new one.
 */
export const PI_TURN_GAP_MS = 60_000;
/** Refusals a peer can cause at will are logged at most once per this interval per session. */
export const REFUSAL_LOG_INTERVAL_MS = 5000;
/** A link to an editor an earlier core had open waits this long for discovery to list the editor. */
export const PARKED_LINK_MS = 15_000;
/** At a handover, writes get this long to leave (a peer that reads nothing for that long is cut). */
const FLUSH_MS = 1000;
/** What a request handled at once returns. */
const DONE: Promise<void> = Promise.resolve();

interface SessionState extends Session {
  /** The current search for its process; replaced when the agent names another pid. */
  lookup: DisposableStore;
  /** Its openDiff calls in flight (a person answers them: a handover does not wait for them). */
  diffCalls: number;
  /** Its other timers (the models retry). */
  timers: DisposableStore;
  refusals: ThrottledLog;
}

export class Relay {
  readonly editors: EditorRegistry;
  readonly review: ReviewBridge;
  private readonly sessions = new Map<string, SessionState>();
  private readonly requests: EditorRequests;
  private readonly timers = new DisposableStore();
  private readonly tools: ToolContext;
  private lastFocused: string | null = null;
  private sessionSeq: number;
  private closed = false;

  constructor(private readonly deps: RelayDeps) {
    this.sessionSeq = deps.lastSessionNumber ?? 0;
    this.requests = new EditorRequests(
      () => this.sessions.values(),
      () => deps.settings(),
      (editorId) => this.editors.get(editorId)?.instance.workspaceFolders ?? [],
    );
    this.editors = new EditorRegistry((instance) => this.connectionFor(instance));
    this.review = new ReviewBridge(deps.inbox, {
      pendingBytes: deps.pendingDiffBytes,
      ...(deps.held ? { held: deps.held } : {}),
      session: (id) => this.sessions.get(id),
      link: (editorId) => {
        const editor = this.editors.get(editorId);
        return editor ? editor.connection.link() : Promise.reject(new Error(`editor ${editorId} is not live`));
      },
      closesTabOnReject: (editorId) => {
        const instance = this.editors.get(editorId)?.instance;
        return instance !== undefined && closesTabOnReject(instance);
      },
      onDiffAdded: deps.onDiffAdded,
      onDiffDecided: deps.onDiffDecided,
      canRecordApplied: deps.canRecordApplied,
      recordApplied: deps.recordApplied,
      onChange: deps.onChange,
      log: deps.log,
    });
    this.tools = {
      review: this.review,
      boundEditor: (session) => this.boundEditor(session),
      forward: (session, msg, frame, translate, pathsMapped) => this.forward(session, msg, frame, translate, pathsMapped),
      readOriginal: deps.readOriginal,
      settings: deps.settings,
      now: deps.now,
      log: deps.log,
    };
  }

  // ── views ────────────────────────────────────────────────────────────────

  sessionViews(): SessionView[] {
    return [...this.sessions.values()].map((s) => sessionView(s, this.review.inbox.countFor(s.id)));
  }

  editorViews(): EditorView[] {
    return this.editors.views();
  }

  hasSession(id: string): boolean {
    return this.sessions.has(id);
  }

  /** The session a process of this machine opened, if any (a hosted pi's pi-ide connection). */
  sessionIdForPid(pid: number): string | null {
    for (const session of this.sessions.values()) if (!session.remote && session.process?.pid === pid) return session.id;
    return null;
  }

  /** The agent turn a session is in now (for grouping its edits), or null when it is gone. */
  turnOf(sessionId: string): AgentTurn | null {
    const session = this.sessions.get(sessionId);
    if (!session) return null;
    return { key: `${session.id}#${session.turn}`, label: `${session.dialect === 'claude' ? 'prompt' : 'turn'} ${session.turn}`, startedAt: session.turnStartedAt };
  }

  /** A note for a session's agent, read at its next getDiagnostics; false when the session is gone. */
  addReviewNote(sessionId: string, note: ReviewNote): boolean {
    const session = this.sessions.get(sessionId);
    if (!session || session.closed) return false;
    // A remote agent knows the file by its path over there (one no map covers has no other).
    const said = session.remote ? { ...note, path: toRemote(session.remote.maps, note.path) ?? note.path } : note;
    session.reviewNotes = [...session.reviewNotes, said].slice(-MAX_NOTES);
    return true;
  }

  /** This machine's agent processes at the door (a remote session's pid is another machine's). */
  connectedPids(): Set<number> {
    return new Set([...this.sessions.values()].flatMap((s) => (s.process && !s.remote ? [s.process.pid] : [])));
  }

  traffic(sessionId: string, limit?: number): TrafficEntry[] {
    return this.requireSession(sessionId).traffic.list(limit);
  }

  models(sessionId?: string): SessionModels[] {
    const list = sessionId ? [this.requireSession(sessionId)] : [...this.sessions.values()].filter((s) => s.dialect === 'pi');
    return list.map((s) => s.models);
  }

  async refreshModels(sessionId: string): Promise<SessionModels> {
    const session = this.requireSession(sessionId);
    if (session.dialect !== 'pi') throw new HubError(`${sessionId} is not a pi session`, 'invalid');
    const models = await askModels(session, this.deps.now);
    this.deps.onChange();
    return models;
  }

  /** Timers, sessions, links and editors still held: 0 once closed. */
  get resources(): number {
    let n = this.timers.size + this.sessions.size + this.editors.size;
    for (const s of this.sessions.values()) n += s.lookup.size + s.timers.size;
    for (const e of this.editors.values()) n += e.connection.resources;
    return n;
  }

  private requireSession(id: string): SessionState {
    const session = this.sessions.get(id);
    if (session) return session;
    const known = [...this.sessions.keys()];
    const hint = known.length > 0 ? `connected sessions: ${known.join(', ')}` : 'no agent is connected';
    throw new HubError(`no session ${id} (${hint})`, 'not-found');
  }

  // ── agents ───────────────────────────────────────────────────────────────

  /** `remote`: the remote whose tunnel it came through (its token said so); null for an agent on this machine. */
  addAgent(ws: WebSocket, dialect: Dialect, remotePort: number, doorPort: number, connId: string | null = null, remote: RemoteSide | null = null): Session {
    const session = this.openSession({ id: `s${++this.sessionSeq}`, ws, dialect, remotePort, doorPort, connId, connectedAt: this.deps.now(), ids: 0, remote });
    // Through a tunnel the peer here is ssh: the agent is looked up over there.
    session.firstLookup = this.identify(session, remote ? () => remote.identify(session.id) : () => this.deps.lookupPeer(remotePort, doorPort));
    this.keepSession(session);
    this.deps.onChange();
    return session;
  }

  /**
   * An agent's connection an earlier core served (a restart, a crash): the same session, as it
   * was. `remote`: the remote it came through, found again by its name; null when it is gone.
   */
  restoreAgent(ws: WebSocket, meta: AgentMeta, connId: string, remote: RemoteSide | null = null): Session {
    const number = /^s(\d+)$/.exec(meta.session)?.[1];
    if (number !== undefined) this.sessionSeq = Math.max(this.sessionSeq, Number(number));
    const id = this.sessions.has(meta.session) ? `s${++this.sessionSeq}` : meta.session;
    const session = this.openSession({ id, ws, dialect: meta.dialect, remotePort: meta.remotePort, doorPort: meta.doorPort, connId, connectedAt: meta.connectedAt, ids: meta.ids, remote });
    session.clientInfo = meta.clientInfo;
    session.manual = meta.manual;
    if (meta.process) {
      session.process = meta.process;
      session.identity = 'known';
      const key = sessionKey(session);
      session.sticky = key ? this.deps.memory.get(key) : undefined;
      if (remote) remote.claim(session.id, meta.remote?.agentPort ?? null);
      else this.deps.ids?.connected(session);
    } else {
      session.firstLookup = this.identify(session, remote ? () => remote.identify(session.id) : () => this.deps.lookupPeer(meta.remotePort, meta.doorPort));
    }
    this.keepSession(session);
    this.deps.onChange();
    return session;
  }

  private openSession(spec: {
    id: string;
    ws: WebSocket;
    dialect: Dialect;
    remotePort: number;
    doorPort: number;
    connId: string | null;
    connectedAt: number;
    ids: number;
    remote: RemoteSide | null;
  }): SessionState {
    const { id, dialect } = spec;
    const now = this.deps.now();
    const traffic = new TrafficLog(this.deps.trafficEntries);
    // The handlers run only once frames arrive, after `session` is set below.
    const link = new RpcLink(spec.ws, `agent ${id}`, {
      // A whole file proposed goes on to the editor, and waits in the inbox, as the bytes that came.
      takesLazily: isOpenDiffCall,
      onRequest: (msg, _link, frame) => this.onAgentRequest(session, msg, frame),
      onNotification: (msg) => this.onAgentNotification(session, msg),
      onFrame: (dir, text, message, bytes) => traffic.record(dir, null, text, message, this.deps.now(), bytes),
      onMalformed: (problem) => session.refusals.note(problem),
      onRefused: (request, problem) => this.onAgentRefused(session, request, problem),
      onClose: () => this.onAgentClose(session),
    });
    link.connId = spec.connId;
    link.startIdsAt(spec.ids);
    const session: SessionState = {
      id,
      dialect,
      link,
      remotePort: spec.remotePort,
      doorPort: spec.doorPort,
      ids: spec.ids,
      remote: spec.remote,
      process: null,
      identity: 'looking',
      firstLookup: Promise.resolve(),
      lookedUp: true,
      clientInfo: null,
      connectedAt: spec.connectedAt,
      lastActiveAt: now,
      manual: undefined,
      sticky: undefined,
      editorId: null,
      reason: 'none',
      automatic: null,
      traffic,
      models: noModels(id),
      modelsAsked: null,
      inFlight: 0,
      diffCalls: 0,
      reviewNotes: [],
      turn: 1,
      turnStartedAt: now,
      closed: false,
      lookup: new DisposableStore(),
      timers: new DisposableStore(),
      refusals: new ThrottledLog((line) => this.deps.log(`${id}: ${line}`), REFUSAL_LOG_INTERVAL_MS, this.deps.now),
    };
    link.onIdsReserved = (until) => {
      session.ids = until;
      this.keepSession(session);
    };
    this.sessions.set(id, session);
    return session;
  }

  /** What a next core needs of the session goes to the host with its connection. */
  private keepSession(session: SessionState): void {
    if (session.link.connId !== null && !session.closed) this.deps.keep?.(session.link.connId, agentMeta(session, session.ids));
  }

  /**
   * Looks the agent's process up until it is found (then it is bound by its folder) or the
   * search gives up. Resolves after the first answer, or its deadline: requests wait that long.
   */
  private identify(session: SessionState, lookup: () => Promise<ProcessInfo | null>): Promise<void> {
    session.lookup.dispose();
    const search = (session.lookup = new DisposableStore());
    session.lookedUp = false;
    if (session.identity !== 'known') session.identity = 'looking';
    const first = lookUpProcess(
      lookup,
      search,
      {
        found: (info) => {
          if (session.closed) return;
          session.process = info;
          session.identity = 'known';
          const key = sessionKey(session);
          session.sticky = key ? this.deps.memory.get(key) : undefined;
          this.takeEarlierId(session, info);
          this.deps.ids?.connected(session);
          this.keepSession(session);
          this.rebalance();
          this.deps.onChange();
        },
        gaveUp: (why) => {
          if (session.identity !== 'known') session.identity = 'unknown';
          this.deps.log(`${session.id}: could not find the agent's process: ${why}`);
          this.deps.onChange();
        },
      },
      this.deps.lookupPlan,
    );
    // Not found yet: the other rules (the person's choice, focus) may still bind it.
    return first.then(() => {
      if (session.lookup === search) session.lookedUp = true;
      this.rebalance();
      this.deps.onChange();
    });
  }

  /**
   * The same agent process had an id before (a restart of Patchbay): it gets it back, unless
   * something already names the new one (a diff) or another session holds the old one.
   */
  private takeEarlierId(session: SessionState, info: ProcessInfo): void {
    const earlier = this.deps.ids?.idFor(info.pid, info.startedAt);
    if (!earlier || earlier === session.id || this.sessions.has(earlier) || this.review.inbox.countFor(session.id) > 0) return;
    this.sessions.delete(session.id);
    session.id = earlier;
    session.models = { ...session.models, sessionId: earlier };
    this.sessions.set(earlier, session);
  }

  private onAgentRequest(session: SessionState, msg: RpcRequest, frame: Frame): void {
    const now = this.deps.now();
    if (session.dialect === 'pi' && now - session.lastActiveAt >= PI_TURN_GAP_MS) newTurn(session, now);
    session.lastActiveAt = now;
    if (!this.admit(session, msg.method)) {
      // Even here a diff is answered as a decision, never an error, so nothing is written unreviewed.
      const problem = `more than ${this.deps.settings().maxPendingPerSession} requests pending for this session`;
      const tab = openDiffTab(msg);
      if (tab !== null) session.link.respond(msg.id, refusedDiff(tab, problem));
      else session.link.respondError(msg.id, TOO_MANY_REQUESTS, `Patchbay: ${problem}`);
      return;
    }
    switch (msg.method) {
      case 'initialize':
        this.onInitialize(session, msg);
        session.inFlight--;
        return;
      case 'tools/list':
        return void this.counted(session, this.onToolsList(session, msg), false);
      case 'tools/call': {
        const diff = isOpenDiffCall(msg);
        if (diff) session.diffCalls++;
        return void this.counted(session, this.onToolCall(session, msg, frame), diff);
      }
      default:
        return void this.counted(session, this.forward(session, msg, frame, null), false);
    }
  }

  /**
   * The request admitted above is no longer pending once `handling` settles. An async function
   * rather than `.finally` with a closure: this runs for every request (getDiagnostics before
   * every model call), and `finally` costs two closures and two promises more.
   */
  private async counted(session: SessionState, handling: Promise<void>, diff: boolean): Promise<void> {
    try {
      await handling;
    } finally {
      session.inFlight--;
      if (diff) session.diffCalls--;
    }
  }

  /**
   * A request too costly to read (frame-cost.ts), answered by what its envelope says: an openDiff
   * as a decision (DIFF_REJECTED, with the reason), never an error, so nothing is written unreviewed.
   */
  private onAgentRefused(session: SessionState, request: Envelope & { id: RpcId; method: string }, problem: string): void {
    session.refusals.note(`refused ${request.method}${request.tool === null ? '' : ` ${request.tool}`}: ${problem}`);
    if (request.method === 'tools/call' && request.tool === 'openDiff') session.link.respond(request.id, refusedDiff(request.tabName ?? '', problem));
    else session.link.respondError(request.id, INVALID_REQUEST, `Patchbay: ${problem}`);
  }

  /** Counts a request or notification against the session's limit; false (and logged) when over it. */
  private admit(session: SessionState, what: string): boolean {
    const limit = this.deps.settings().maxPendingPerSession;
    if (session.inFlight < limit) {
      session.inFlight++;
      return true;
    }
    session.refusals.note(`refused ${what}: more than ${limit} requests pending for this session`);
    return false;
  }

  private onInitialize(session: SessionState, msg: RpcRequest): void {
    const info = isObject(msg.params) && isObject(msg.params.clientInfo) ? msg.params.clientInfo : null;
    if (info && typeof info.name === 'string') {
      session.clientInfo = { name: info.name.slice(0, 200), version: typeof info.version === 'string' ? info.version.slice(0, 100) : '' };
      this.keepSession(session);
    }
    session.link.respond(msg.id, initializeResult(this.deps.version));
    // pi answers listSuggestionModels only once its session has started: one retry covers that.
    // Asked once per connection, however often the agent initializes.
    if (session.dialect === 'pi' && session.models.fetchedAt === null && session.modelsAsked === null && session.timers.size === 0) {
      void askModels(session, this.deps.now).then((models) => {
        this.deps.onChange();
        if (models.error && !session.closed) {
          session.timers.timeout(MODELS_RETRY_MS, () => void askModels(session, this.deps.now).then(() => this.deps.onChange()));
        }
      });
    }
    this.deps.onChange();
  }

  private async onToolsList(session: Session, msg: RpcRequest): Promise<void> {
    await session.firstLookup;
    // A link that has just opened may not have the editor's list yet: wait for it rather than
    // answer with the built-in four (the agent would not ask again).
    await this.boundEditor(session)?.connection.toolsSettled();
    const editor = this.boundEditor(session);
    const tools = editor?.connection.tools ? cleanToolList(editor.connection.tools, editor.instance.dialect, session.dialect) : BUILTIN_TOOLS;
    session.link.respond(msg.id, { tools });
  }

  private onToolCall(session: Session, msg: RpcRequest, frame: Frame): Promise<void> {
    if (!session.lookedUp) return session.firstLookup.then(() => this.onToolCall(session, msg, frame));
    const params = isObject(msg.params) ? msg.params : {};
    const tool = typeof params.name === 'string' ? interceptedTool(params.name) : undefined;
    if (tool) return tool.run(this.tools, { session, msg, frame, args: params.arguments });
    return this.forward(session, msg, frame, null);
  }

  private onAgentNotification(session: SessionState, msg: RpcNotification): void {
    session.lastActiveAt = this.deps.now();
    if (msg.method === 'notifications/initialized') return;
    if (msg.method === 'ide_connected') {
      const pid = isObject(msg.params) ? msg.params.pid : undefined;
      if (typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 && pid !== session.process?.pid) {
        const { remote } = session;
        session.firstLookup = this.identify(session, remote ? () => remote.processInfo(pid) : () => this.deps.processInfo(pid));
      }
    }
    const editor = this.boundEditor(session);
    if (!editor || !this.admit(session, msg.method)) return;
    // Encoded again, not passed on as its bytes: what the editor reads must be what Patchbay
    // read (a parser that keeps the first of two "id" keys would take it for a request).
    void editor.connection
      .link()
      .then((link) => link.send(msg, { owner: session }))
      .catch((err: Error) => this.deps.log(`${session.id}: ${msg.method} not forwarded: ${err.message}`))
      .finally(() => {
        session.inFlight--;
      });
  }

  /**
   * Forwards to the bound editor (without one, says so in the agent's terms), under an id of the
   * editor link's own; the answer comes back under the agent's id.
   */
  private forward(
    session: Session,
    msg: RpcRequest,
    frame: Frame | null,
    translate: ((r: RpcResponse) => RpcResponse) | null,
    pathsMapped = false,
  ): Promise<void> {
    const editor = this.boundEditor(session);
    if (!editor) {
      if (msg.method === 'tools/call') {
        session.link.respond(msg.id, { ...textResult('No editor is connected to this session (Patchbay).'), isError: true });
      } else {
        session.link.respondError(msg.id, METHOD_NOT_FOUND, `Method not found: ${msg.method} (no editor is bound)`);
      }
      return DONE;
    }
    // A remote agent's paths are the remote's: the editor gets them mapped here, the agent its answer mapped back.
    const { remote } = session;
    const mapped = remote && !pathsMapped;
    const request = mapped ? requestToLocal(msg, remote.maps) : msg;
    const shape = mapped ? (r: RpcResponse) => answerToRemote(translate ? translate(r) : r, remote.maps) : translate;
    const failed = (err: Error): void => session.link.respondError(msg.id, INTERNAL_ERROR, `Patchbay: ${err.message}`);
    const relay = (link: RpcLink): Promise<void> =>
      link
        .relay(request, mapped ? null : frame, { owner: session, passOn: shape ? undefined : { to: session.link, id: msg.id } })
        .response.then((reply) => void (reply.passedOn || answer(session.link, msg.id, reply, shape)));
    // An open link is used in this turn: a request relayed one at a time waits for no microtask.
    const open = editor.connection.openLink();
    try {
      return (open ? relay(open) : editor.connection.link().then(relay)).catch(failed);
    } catch (err) {
      failed(err as Error);
      return DONE;
    }
  }

  private onAgentClose(session: SessionState): void {
    this.deps.ids?.disconnected(session);
    session.closed = true;
    session.remote?.release(session.id);
    session.lookup.dispose();
    session.timers.dispose();
    // Its diffs are withdrawn: their tabs close on the editors' links, which stay for the others.
    this.review.run(this.review.inbox.agentGone(session.id));
    this.sessions.delete(session.id);
    this.deps.onChange();
  }

  // ── editors' side ────────────────────────────────────────────────────────

  /** A notification from an editor goes to every session bound to it (it broadcasts to its clients). */
  private onEditorNotification(editor: EditorEntry, from: RpcLink, msg: RpcNotification, frame: Frame): void {
    if (msg.method === 'request_cancelled') return this.requests.cancel(from, msg);
    // Agents hear of it once the new list is in: their tools/list is answered from it.
    if (msg.method === 'notifications/tools/list_changed') {
      void editor.connection.refreshTools().then(() => !this.closed && this.fanOut(editor, msg, frame));
      return;
    }
    this.fanOut(editor, msg, frame);
  }

  private fanOut(editor: EditorEntry, msg: RpcNotification, frame: Frame): void {
    const id = editor.instance.id;
    if (msg.method === 'selection_changed') this.focused(id);
    const inbox = this.review.inbox;
    const fileOfTab = (tab: string): string | null => {
      const diffId = inbox.findByEditorTab(id, tab);
      return diffId === undefined ? null : (inbox.pending().find((d) => d.id === diffId)?.path ?? null);
    };
    for (const session of this.sessions.values()) {
      if (session.closed || session.editorId !== id) continue;
      session.traffic.record('down', id, frame.text, { kind: 'notification', msg }, this.deps.now(), frame.bytes.length);
      const translated = translateNotification(msg, editor.instance.dialect, session.dialect, fileOfTab);
      if (session.remote) {
        // A file no map covers is not one the agent over there can open: it hears nothing of it.
        const mapped = notificationToRemote(translated, session.remote.maps);
        if (mapped) session.link.send(mapped);
      } else if (translated === msg) session.link.forward(frame, { kind: 'notification', msg });
      else session.link.send(translated);
    }
  }

  /** Links to editors an earlier core had open, until discovery lists their editors (by host connection id). */
  private readonly parked = new Map<string, ParkedLink & { expiry: Disposable }>();

  /** A link to an editor an earlier core had open: taken over when discovery lists that editor. */
  parkEditor(link: ParkedLink): void {
    const expiry = this.timers.timeout(PARKED_LINK_MS, () => {
      if (!this.parked.delete(link.connId)) return;
      this.deps.log(`editor on port ${link.meta.port}: not listed again within ${PARKED_LINK_MS / 1000} s of the restart; its connection is closed`);
      link.socket.destroy();
    });
    this.parked.set(link.connId, { ...link, expiry });
  }

  private takeParked(instance: LiveEditor): ParkedLink | null {
    for (const [id, link] of this.parked) {
      if (link.meta.port !== instance.port || link.meta.pid !== instance.pid) continue;
      this.parked.delete(id);
      this.timers.release(link.expiry);
      return link;
    }
    return null;
  }

  private connectionFor(instance: LiveEditor): EditorConnection {
    let entry: EditorEntry | undefined;
    const entryOf = (): EditorEntry | undefined => (entry ??= this.editors.get(instance.id));
    return new EditorConnection(instance, {
      parked: () => this.takeParked(instance),
      ...(this.deps.keep ? { keep: this.deps.keep } : {}),
      onAdopted: (link) => this.review.reattach(instance.id, link),
      version: this.deps.version,
      maxFrame: () => this.deps.settings().maxFrameBytes,
      onRequest: (link, msg, frame) => this.requests.route(instance.id, link, msg, frame),
      onNotification: (link, msg, frame) => {
        const e = entryOf();
        if (e && !this.closed) this.onEditorNotification(e, link, msg, frame);
      },
      onFrame: (dir, text, message, bytes, owner) => {
        // A session's own request and its answer go into its traffic log (notifications are logged as they fan out).
        if (isSession(owner)) owner.traffic.record(dir === 'in' ? 'down' : 'up', instance.id, text, message, this.deps.now(), bytes);
      },
      onOpened: () => this.editorOpened(instance.id),
      onLost: (how) => {
        if (this.closed) return;
        this.deps.editorSuspect(instance, how);
        this.timers.timeout(REBIND_AFTER_LINK_LOSS_MS, () => this.rebalance());
      },
      onChange: this.deps.onChange,
      log: this.deps.log,
      ...(this.deps.host ? { host: this.deps.host } : {}),
      ...(this.deps.linkRetry ? { retry: this.deps.linkRetry } : {}),
    });
  }

  /** An editor's link opened: the diffs of its sessions that it has not shown yet go to it. */
  private editorOpened(editorId: string): void {
    if (this.closed) return;
    for (const session of this.sessions.values()) {
      if (!session.closed && session.editorId === editorId) this.review.run(this.review.inbox.editorAvailable(session.id));
    }
  }

  /** The person is in this editor now; only a change of editor can move "focus" bindings. */
  private focused(editorId: string): void {
    const entry = this.editors.get(editorId);
    if (!entry) return;
    entry.focusedAt = this.deps.now();
    if (this.lastFocused === editorId) return;
    this.lastFocused = editorId;
    this.rebalance();
    this.deps.onChange();
  }

  /** Discovery's current list of live editors. */
  setEditors(list: readonly LiveEditor[]): void {
    const { added } = this.editors.update(list);
    for (const entry of added) entry.connection.supervise();
    this.rebalance();
    this.deps.onChange();
  }

  private boundEditor(session: Session): EditorEntry | undefined {
    return session.editorId ? this.editors.get(session.editorId) : undefined;
  }

  // ── binding ──────────────────────────────────────────────────────────────

  bind(sessionId: string, editorId: string | null): SessionView {
    const session = this.requireSession(sessionId);
    if (editorId !== null && !this.editors.has(editorId)) {
      const live = [...this.editors.values()].map((e) => e.instance.id);
      throw new HubError(`no live editor ${editorId} (${live.length > 0 ? `live editors: ${live.join(', ')}` : 'no editor is live'})`, 'not-found');
    }
    session.manual = editorId;
    const key = sessionKey(session);
    if (key) this.deps.memory.set(key, editorId);
    this.keepSession(session);
    this.rebalance();
    return sessionView(session, this.review.inbox.countFor(session.id));
  }

  /** Drops the person's choice (and what was remembered for the session's folder): the rules decide again. */
  unpin(sessionId: string): SessionView {
    const session = this.requireSession(sessionId);
    session.manual = undefined;
    session.sticky = undefined;
    const key = sessionKey(session);
    if (key) this.deps.memory.forget(key);
    this.keepSession(session);
    this.rebalance();
    return sessionView(session, this.review.inbox.countFor(session.id));
  }

  /** The live editor a session is bound to now, or null (what the inbox offers diffs to). */
  boundEditorId(sessionId: string): string | null {
    const session = this.sessions.get(sessionId);
    return session && this.boundEditor(session) ? session.editorId : null;
  }

  /** Re-applies the broker's rules to every session; rebinding never drops an agent. */
  rebalance(): void {
    if (this.closed) return;
    const entries = this.deps.paused() ? [] : [...this.editors.values()];
    const live = entries.map((e) => ({
      id: e.instance.id,
      workspaceFolders: e.instance.workspaceFolders,
      focusedAt: e.focusedAt,
      worktrees: this.deps.worktrees?.(e.instance.id) ?? [],
    }));
    let changed = false;
    for (const session of this.sessions.values()) {
      // A remote agent's parents are another machine's processes: never an editor's here.
      const ancestors = session.remote ? [] : (session.process?.ancestors ?? []);
      const terminalOf = entries.filter((e) => ancestors.includes(e.instance.pid)).map((e) => e.instance.id);
      const facts = { cwd: localCwd(session), manual: session.manual, memory: session.sticky, terminalOf };
      const choice = chooseEditor(facts, live);
      const automatic = chooseEditor({ ...facts, manual: undefined, memory: undefined }, live).editorId;
      if (automatic !== session.automatic) {
        session.automatic = automatic;
        changed = true;
      }
      if (choice.editorId !== session.editorId || choice.reason !== session.reason) {
        const moved = choice.editorId !== session.editorId;
        session.editorId = choice.editorId;
        session.reason = choice.reason;
        changed = true;
        if (moved && session.dialect === 'claude' && session.clientInfo) session.link.notify('notifications/tools/list_changed');
      }
      const editor = this.boundEditor(session);
      if (editor) this.connect(session, editor);
    }
    if (changed) this.deps.onChange();
  }

  /**
   * Offers the session's diffs its editor has not seen. The editor's link is opened for them if
   * need be (also one another client took: an agent needs it); without any, it is only kept.
   */
  private connect(session: Session, editor: EditorEntry): void {
    if (editor.connection.openLink()) {
      this.review.run(this.review.inbox.editorAvailable(session.id));
      return;
    }
    const waiting = this.review.inbox.pending().some((d) => d.sessionId === session.id && !d.inEditor);
    if (!waiting) return editor.connection.supervise();
    // editorOpened offers them once it is open.
    editor.connection.link().catch((err: Error) => this.deps.log(`${session.id}: ${err.message}`));
  }

  // ── decisions ────────────────────────────────────────────────────────────

  decide(id: string, decision: Decision): DecisionRecord {
    const record = this.review.decide(id, decision);
    this.deps.onChange();
    return record;
  }

  decideAll(sessionId: string, decision: Decision): DecisionRecord[] {
    this.requireSession(sessionId);
    return this.review.inbox.idsFor(sessionId).map((id) => this.decide(id, decision));
  }

  /** Rejects every pending diff and waits until the agents have been told and the editors closed the tabs (a moment at most). */
  async rejectAllForShutdown(): Promise<void> {
    const effects = this.review.inbox.shutdown();
    const closing = this.review.closeTabs(effects);
    await Promise.all(this.review.run(effects.filter((e) => e.type !== 'closeTab')));
    await Promise.race([Promise.all(closing), new Promise((resolve) => this.timers.timeout(SHUTDOWN_CLOSE_TABS_MS, () => resolve(undefined)))]);
  }

  /** Whether a request is on its way that no person holds: an agent's to its editor, or Patchbay's own. */
  requestsInFlight(): boolean {
    const links = [...this.editors.values()].flatMap((e) => e.connection.openLink() ?? []);
    return !answeredAll([...this.sessions.values()], links);
  }

  /**
   * The old core's part of a graceful restart: agents' connections stop being read at message
   * boundaries, what they asked is answered (waiting at most `waitMs`), then editors' connections
   * stop the same way, and what was written leaves. What a person answers (openDiff) is not
   * waited for: the next core waits for it. Returns each connection's unread bytes by its host
   * id, and those that could not stop cleanly (the next core does not get them). The relay does
   * nothing afterwards: the process ends.
   */
  async handOver(waitMs: number): Promise<{ heads: Map<string, Buffer>; broken: string[] }> {
    const deadline = Date.now() + waitMs;
    const heads = new Map<string, Buffer>();
    const broken: string[] = [];
    const sessions = [...this.sessions.values()].filter((s) => !s.closed && s.link.connId !== null);
    const links = [...this.editors.values()].flatMap((e) => {
      const link = e.connection.openLink();
      return link && link.connId !== null ? [link] : [];
    });
    const stop = async (ws: WebSocket, connId: string, ready: () => boolean): Promise<void> => {
      await until(ready, deadline);
      const { stopped, cancel } = stopAtBoundary(ws);
      const head = await Promise.race([stopped, sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
      cancel();
      if (head === null) broken.push(connId);
      else heads.set(connId, head);
    };
    // Agents first (an agent with a request of Patchbay's open is read until it answers), then
    // the editors once the agents' requests are answered.
    await Promise.all(sessions.map((s) => stop(s.link.ws, s.link.connId!, () => s.link.unansweredQuick().length === 0)));
    // Only once no agent can ask anything more: an editor stopped earlier would leave the answer
    // to a request read meanwhile to the next core, which never sent it.
    const quiet = (): boolean => answeredAll(sessions, links);
    await Promise.all(links.map((l) => stop(l.ws, l.connId!, quiet)));
    // Whatever is still unanswered gets an answer now (an error the agent can retry), not silence.
    const gone = new Error('Patchbay restarted before this was answered; ask again');
    for (const link of [...links, ...sessions.map((s) => s.link)]) for (const id of link.unansweredQuick()) link.abandon(id, gone);
    await new Promise((resolve) => setImmediate(resolve));
    const sockets = [...sessions.map((s) => s.link), ...links].map((l) => ({ id: l.connId!, socket: (l.ws as unknown as { _socket: import('node:net').Socket | null })._socket }));
    const left = await Promise.all(sockets.map(({ socket }) => (socket ? flushed(socket, FLUSH_MS) : Promise.resolve(true))));
    sockets.forEach(({ id, socket }, i) => {
      if (!left[i] && !broken.includes(id)) broken.push(id);
      // Nothing here reacts to the socket any more: its close would withdraw diffs the next core holds.
      socket?.removeAllListeners();
      socket?.on('error', () => {});
    });
    for (const id of broken) heads.delete(id);
    this.closed = true;
    this.timers.dispose();
    for (const session of this.sessions.values()) {
      session.lookup.dispose();
      session.timers.dispose();
    }
    return { heads, broken };
  }

  /** Closes every connection. Call rejectAllForShutdown first so agents hear a decision. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.timers.dispose();
    for (const session of this.sessions.values()) {
      session.lookup.dispose();
      session.timers.dispose();
      session.link.close();
    }
    this.sessions.clear();
    this.editors.close();
  }
}

/** Resolves once `ready()` holds (checked every few ms), or at `deadline`. */
async function until(ready: () => boolean, deadline: number): Promise<void> {
  while (!ready() && Date.now() < deadline) await sleep(5);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isSession(owner: unknown): owner is Session {
  return typeof owner === 'object' && owner !== null && 'traffic' in owner && 'link' in owner;
}

function isOpenDiffCall(msg: RpcRequest): boolean {
  return msg.method === 'tools/call' && isObject(msg.params) && msg.params.name === 'openDiff';
}

/** The tab name of an openDiff call, or null for any other request. */
function openDiffTab(msg: RpcRequest): string | null {
  if (!isOpenDiffCall(msg)) return null;
  const args = (msg.params as { arguments?: unknown }).arguments;
  return isObject(args) && typeof args.tab_name === 'string' ? args.tab_name : '';
}

/** What `sessions` asked is answered (but what waits on a person: their openDiffs), and so is what was asked on `links`. */
function answeredAll(sessions: readonly SessionState[], links: readonly RpcLink[]): boolean {
  return sessions.every((s) => s.inFlight - s.diffCalls <= 0) && links.every((l) => l.unansweredQuick().length === 0);
}
