// Routing between agent sessions and editors (DESIGN §5–§7). Sockets come in from the
// door and from editor links; decisions are delegated to the broker and the inbox.
import type { WebSocket } from 'ws';
import type {
  DecisionRecord,
  Dialect,
  DiffSummary,
  EditorView,
  PatchbaySettings,
  SessionModels,
  SessionView,
  TrafficEntry,
} from '../api/types.ts';
import { HubError } from '../api/types.ts';
import { chooseEditor } from '../broker/choose-editor.ts';
import {
  cleanToolList,
  emptyDiagnostics,
  emptyOpenEditors,
  isOpenEditorsTool,
  toolNameFor,
  translateDiagnostics,
  translateOpenEditors,
} from '../protocol/dialect.ts';
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  METHOD_NOT_FOUND,
  TOO_MANY_REQUESTS,
  result,
  type RpcId,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
} from '../protocol/jsonrpc.ts';
import { initializeResult, parseOpenDiffArgs, PATCHBAY_TOOLS, resultTexts, textResult, type ToolSpec } from '../protocol/mcp.ts';
import { diffRejected, Inbox, type Decision, type InboxEffect } from '../review/inbox.ts';
import { readOriginal } from '../review/read-original.ts';
import { parseModelList } from '../suggestions/models.ts';
import { fetchTools, openEditorLink, withTimeout, type LiveEditor } from './editor-link.ts';
import { EditorRequests } from './editor-requests.ts';
import { answer, RpcLink, type Frame, type Reply } from './rpc-link.ts';
import { sessionKey, sessionView, type ProcessInfo, type Session, type Upstream } from './session.ts';
import { TrafficLog } from './traffic.ts';

export interface RelayDeps {
  version: string;
  settings(): PatchbaySettings;
  paused(): boolean;
  memory: {
    get(key: string): string | null | undefined;
    set(key: string, editorId: string | null): void;
    forget(key: string): void;
  };
  /** The agent's process from its TCP peer port. */
  lookupPeer(remotePort: number): Promise<ProcessInfo | null>;
  processInfo(pid: number): Promise<ProcessInfo | null>;
  maxReviewFileBytes: number;
  trafficEntries: number;
  historyEntries: number;
  /** Something shown in the snapshot changed. */
  onChange(): void;
  onDiffAdded(diff: DiffSummary): void;
  onDiffDecided(record: DecisionRecord): void;
  /** An editor's connection failed: discovery should check it now. */
  editorSuspect(editor: LiveEditor): void;
  log(message: string): void;
  now?(): number;
}

interface EditorState {
  editor: LiveEditor;
  /**
   * Patchbay's own link, only while no session has one to this editor: every link gets a
   * copy of each selection_changed, so a spare one would double the editor's work.
   */
  monitor: RpcLink | null;
  /** The monitor is being closed on purpose (a session link took over). */
  retiring: boolean;
  retireTimer: NodeJS.Timeout | null;
  opening: boolean;
  tools: ToolSpec[] | null;
  focusedAt: number | null;
  closed: boolean;
}

/** How long an agent waits to be identified before its requests are routed anyway. */
const IDENTIFY_TIMEOUT_MS = 2000;
const MONITOR_RETRY_MS = 1000;
const AGENT_GONE_GRACE_MS = 3000;
const MODELS_RETRY_MS = 2000;
/** How long Patchbay's own link to an editor stays once a session has one. */
const MONITOR_RETIRE_MS = 1000;

export class Relay {
  readonly inbox: Inbox;
  private readonly sessions = new Map<string, Session>();
  private readonly editors = new Map<string, EditorState>();
  private readonly editorRequests: EditorRequests;
  private sessionSeq = 0;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly deps: RelayDeps) {
    this.editorRequests = new EditorRequests(
      () => this.sessions.values(),
      () => deps.settings(),
      (editorId) => this.superviseMonitor(editorId),
    );
    this.inbox = new Inbox(
      {
        boundEditor: (sessionId) => {
          const session = this.sessions.get(sessionId);
          return session?.editorId && this.editors.has(session.editorId) ? session.editorId : null;
        },
        route: () => deps.settings().reviewRoute,
        now: () => this.now(),
      },
      deps.historyEntries,
    );
  }

  private now(): number {
    return this.deps.now?.() ?? Date.now();
  }

  // ── views ────────────────────────────────────────────────────────────────

  sessionViews(): SessionView[] {
    return [...this.sessions.values()].map((s) => sessionView(s, this.inbox.countFor(s.id)));
  }

  /** The session a process opened, if any (a hosted pi's pi-ide connection). */
  sessionIdForPid(pid: number): string | null {
    for (const session of this.sessions.values()) if (session.process?.pid === pid) return session.id;
    return null;
  }

  connectedPids(): Set<number> {
    return new Set([...this.sessions.values()].flatMap((s) => (s.process ? [s.process.pid] : [])));
  }

  traffic(sessionId: string, limit?: number): TrafficEntry[] {
    return this.requireSession(sessionId).traffic.list(limit);
  }

  models(sessionId?: string): SessionModels[] {
    const list = sessionId ? [this.requireSession(sessionId)] : [...this.sessions.values()].filter((s) => s.kind === 'pi');
    return list.map((s) => s.models);
  }

  private requireSession(id: string): Session {
    const session = this.sessions.get(id);
    if (!session) throw new HubError(`no session ${id}`, 'not-found');
    return session;
  }

  // ── agents ───────────────────────────────────────────────────────────────

  addAgent(ws: WebSocket, dialect: Dialect, remotePort: number): Session {
    const id = `s${++this.sessionSeq}`;
    const traffic = new TrafficLog(this.deps.trafficEntries);
    const now = this.now();
    const session: Session = {
      id,
      kind: dialect,
      dialect,
      link: undefined as unknown as RpcLink,
      remotePort,
      process: null,
      clientInfo: null,
      connectedAt: now,
      lastActiveAt: now,
      manual: undefined,
      sticky: undefined,
      editorId: null,
      reason: 'none',
      upstreams: new Map(),
      traffic,
      identified: Promise.resolve(),
      models: { sessionId: id, cliOverride: null, currentModel: null, models: [], fetchedAt: null, error: null },
      inFlight: 0,
      closed: false,
    };
    session.link = new RpcLink(ws, `agent ${id}`, {
      onRequest: (msg, _link, frame) => this.onAgentRequest(session, msg, frame),
      onNotification: (msg, _link, frame) => this.onAgentNotification(session, msg, frame),
      onFrame: (dir, text, message, bytes) => traffic.record(dir === 'in' ? 'in' : 'out', null, text, message, Date.now(), bytes),
      onMalformed: (problem) => this.deps.log(problem),
      onClose: () => this.onAgentClose(session),
    });
    this.sessions.set(id, session);
    session.identified = this.identify(session, () => this.deps.lookupPeer(remotePort));
    this.deps.onChange();
    return session;
  }

  private async identify(session: Session, lookup: () => Promise<ProcessInfo | null>): Promise<void> {
    try {
      const info = await withTimeout(lookup(), IDENTIFY_TIMEOUT_MS, `looking up ${session.id}'s process`);
      if (info && !session.closed) {
        session.process = info;
        const key = sessionKey(session);
        session.sticky = key ? this.deps.memory.get(key) : undefined;
      }
    } catch (err) {
      this.deps.log(`${session.id}: ${(err as Error).message}`);
    }
    this.rebalance();
    this.deps.onChange();
  }

  private onAgentRequest(session: Session, msg: RpcRequest, frame: Frame): void {
    session.lastActiveAt = this.now();
    const limit = this.deps.settings().maxPendingPerSession;
    if (msg.method === 'initialize') return this.onInitialize(session, msg);
    if (msg.method === 'tools/list') return void this.onToolsList(session, msg);
    if (session.inFlight >= limit) {
      const refusal = `Patchbay: more than ${limit} requests pending for this session`;
      this.deps.log(`${session.id}: ${refusal}`);
      // Even here a diff is answered as a decision, never an error, so nothing is written unreviewed.
      const tab = openDiffTab(msg);
      if (tab !== null) void session.link.respond(msg.id, diffRejected(tab));
      else void session.link.respondError(msg.id, TOO_MANY_REQUESTS, refusal);
      return;
    }
    session.inFlight++;
    const answered = (): void => {
      session.inFlight--;
    };
    if (msg.method === 'tools/call') void this.onToolCall(session, msg, frame).finally(answered);
    else void this.forwardOrRefuse(session, msg, frame, null).finally(answered);
  }

  private onInitialize(session: Session, msg: RpcRequest): void {
    const info = (msg.params as { clientInfo?: { name?: unknown; version?: unknown } } | undefined)?.clientInfo;
    if (info && typeof info.name === 'string') {
      session.clientInfo = { name: info.name, version: typeof info.version === 'string' ? info.version : '' };
    }
    void session.link.respond(msg.id, initializeResult(this.deps.version));
    // pi answers listSuggestionModels only once its session has started: one retry covers that.
    if (session.kind === 'pi') {
      void this.refreshModels(session.id)
        .then((models) => models.error && !session.closed && this.after(MODELS_RETRY_MS, () => void this.refreshModels(session.id).catch(() => {})))
        .catch(() => {});
    }
    this.deps.onChange();
  }

  private async onToolsList(session: Session, msg: RpcRequest): Promise<void> {
    await session.identified;
    const editor = session.editorId ? this.editors.get(session.editorId) : undefined;
    const tools = editor?.tools ? cleanToolList(editor.tools, editor.editor.dialect, session.dialect) : PATCHBAY_TOOLS;
    void session.link.respond(msg.id, { tools });
  }

  private onAgentNotification(session: Session, msg: RpcNotification, frame: Frame): void {
    session.lastActiveAt = this.now();
    if (msg.method === 'notifications/initialized') return;
    if (msg.method === 'ide_connected') {
      const pid = (msg.params as { pid?: unknown } | undefined)?.pid;
      if (typeof pid === 'number' && pid !== session.process?.pid) {
        session.identified = this.identify(session, () => this.deps.processInfo(pid));
      }
    }
    const editorId = session.editorId;
    if (!editorId) return;
    void this.upstreamFor(session, editorId)
      .then((link) => link.forward(frame, { kind: 'notification', msg }))
      .catch((err: Error) => this.deps.log(`${session.id}: ${msg.method} not forwarded: ${err.message}`));
  }

  private async onToolCall(session: Session, msg: RpcRequest, frame: Frame): Promise<void> {
    await session.identified;
    const params = (msg.params ?? {}) as { name?: unknown; arguments?: unknown };
    const name = typeof params.name === 'string' ? params.name : '';
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    switch (name) {
      case 'openDiff':
        return this.onOpenDiff(session, msg, args, frame);
      case 'close_tab': {
        const tab = typeof args.tab_name === 'string' ? args.tab_name : '';
        const id = this.inbox.findByTab(session.id, tab);
        if (id) this.runEffects(this.inbox.withdraw(id));
        void session.link.respond(msg.id, textResult('TAB_CLOSED'));
        return;
      }
      case 'closeAllDiffTabs': {
        const ids = this.inbox.idsFor(session.id);
        this.runEffects(ids.flatMap((id) => this.inbox.withdraw(id)));
        void session.link.respond(msg.id, textResult(`CLOSED_${ids.length}_DIFF_TABS`));
        return;
      }
      case 'getDiagnostics':
        return this.onDiagnostics(session, msg, args, frame);
    }
    const editor = session.editorId ? this.editors.get(session.editorId) : undefined;
    const openEditors = isOpenEditorsTool(name);
    if (!editor && openEditors) {
      session.link.respond(msg.id, emptyOpenEditors(session.dialect));
      return;
    }
    if (!editor || editor.editor.dialect === session.dialect) return this.forwardOrRefuse(session, msg, frame, null);
    // Across dialects: the editor's name for the tool, and its answer in the agent's shape.
    const renamed: RpcRequest = { ...msg, params: { ...params, name: toolNameFor(name, session.dialect, editor.editor.dialect) } };
    const translate = openEditors
      ? (r: RpcResponse): RpcResponse => (r.result === undefined ? r : { ...r, result: translateOpenEditors(r.result, session.dialect) })
      : null;
    await this.forwardOrRefuse(session, renamed, null, translate);
  }

  /**
   * Forwards to the bound editor (without one, says so in the agent's terms). With no
   * translation and the agent's own id kept, both the request and its answer pass as bytes.
   */
  private async forwardOrRefuse(
    session: Session,
    msg: RpcRequest,
    frame: Frame | null,
    translate: ((r: RpcResponse) => RpcResponse) | null,
  ): Promise<void> {
    const editorId = session.editorId;
    if (!editorId) {
      if (msg.method === 'tools/call') {
        session.link.respond(msg.id, { ...textResult('No editor is connected to this session (Patchbay).'), isError: true });
      } else {
        session.link.respondError(msg.id, METHOD_NOT_FOUND, `Method not found: ${msg.method} (no editor is bound)`);
      }
      return;
    }
    try {
      const link = await this.upstreamFor(session, editorId);
      answer(session.link, msg.id, await link.relay(msg, frame).response, translate);
    } catch (err) {
      session.link.respondError(msg.id, INTERNAL_ERROR, `Patchbay: ${(err as Error).message}`);
    } finally {
      this.pruneUpstreams(session);
    }
  }

  /** Never stalls the agent: an answer within the deadline, else an empty one in its dialect. */
  private async onDiagnostics(session: Session, msg: RpcRequest, args: Record<string, unknown>, frame: Frame): Promise<void> {
    const editor = session.editorId ? this.editors.get(session.editorId) : undefined;
    if (!editor) return session.link.respond(msg.id, emptyDiagnostics(session.dialect));
    const deadline = this.deps.settings().diagnosticsDeadlineMs;
    const started = this.now();
    let link: RpcLink | undefined;
    let callId: RpcId | undefined;
    try {
      // The usual case, an open upstream, needs no connect deadline of its own.
      const up = session.upstreams.get(editor.editor.id);
      link =
        up?.link?.isOpen && up.editor.port === editor.editor.port
          ? up.link
          : await withTimeout(this.upstreamFor(session, editor.editor.id), deadline, 'getDiagnostics');
      const sameDialect = editor.editor.dialect === session.dialect;
      const call = sameDialect ? link.relay(msg, frame) : link.request('tools/call', { ...(msg.params as object), name: 'getDiagnostics', arguments: args });
      callId = call.id;
      const remaining = Math.max(1, deadline - (this.now() - started));
      const reply = await withTimeout(call.response, remaining, 'getDiagnostics');
      if (reply.msg.error) throw new Error(reply.msg.error.message);
      answer(session.link, msg.id, reply, sameDialect ? null : (r) => ({ ...r, result: translateDiagnostics(r.result, session.dialect) }));
    } catch (err) {
      if (link && callId !== undefined) link.forget(callId);
      this.deps.log(`${session.id}: getDiagnostics answered empty: ${(err as Error).message}`);
      session.link.respond(msg.id, emptyDiagnostics(session.dialect));
    } finally {
      this.pruneUpstreams(session);
    }
  }

  private async onOpenDiff(session: Session, msg: RpcRequest, args: unknown, frame: Frame): Promise<void> {
    const parsed = parseOpenDiffArgs(args);
    if (typeof parsed === 'string') return void session.link.respondError(msg.id, INVALID_PARAMS, parsed);
    const original = await readOriginal(parsed.old_file_path || parsed.new_file_path, this.deps.maxReviewFileBytes);
    if (session.closed) return;
    const { id, effects } = this.inbox.arrive({
      sessionId: session.id,
      path: parsed.new_file_path,
      tabName: parsed.tab_name,
      newContents: parsed.new_file_contents,
      oldContents: original.contents,
      isNew: original.isNew,
      tooLarge: original.tooLarge,
      agent: session.clientInfo?.name ?? session.dialect,
      reply: msg.id,
    });
    // The first offer can go to the editor as the bytes the agent sent (whole files are big).
    this.arrivals.set(id, { msg, frame, tabName: parsed.tab_name });
    this.runEffects(effects);
    this.arrivals.delete(id);
    const summary = this.inbox.pending().find((d) => d.id === id);
    if (summary) this.deps.onDiffAdded(summary);
    this.deps.onChange();
    // The request stays open until a decision answers it (a `reply` effect).
    await new Promise<void>((resolve) => this.diffWaiters.set(id, resolve));
  }

  private readonly diffWaiters = new Map<string, () => void>();
  /** A diff's openDiff request as it arrived, while its first offer is made. */
  private readonly arrivals = new Map<string, { msg: RpcRequest; frame: Frame; tabName: string }>();
  /** An editor's FILE_SAVED that can reach the agent byte for byte, while it is being decided. */
  private readonly savedAnswers = new Map<string, Reply>();

  private onAgentClose(session: Session): void {
    session.closed = true;
    this.runEffects(this.inbox.agentGone(session.id));
    this.sessions.delete(session.id);
    // Upstreams close once their close_tab calls are answered; a hung editor gets a grace period.
    this.pruneUpstreams(session);
    this.after(AGENT_GONE_GRACE_MS, () => {
      for (const up of session.upstreams.values()) up.link?.close();
      session.upstreams.clear();
    });
    this.deps.onChange();
  }

  // ── decisions ────────────────────────────────────────────────────────────

  decide(id: string, decision: Decision): DecisionRecord {
    const outcome = this.inbox.decide(id, decision);
    if (!outcome) throw new HubError(`no pending diff ${id}`, 'not-found');
    this.runEffects(outcome.effects);
    this.deps.onChange();
    return outcome.record;
  }

  decideAll(sessionId: string, decision: Decision): DecisionRecord[] {
    this.requireSession(sessionId);
    return this.inbox.idsFor(sessionId).map((id) => this.decide(id, decision));
  }

  /** Rejects every pending diff and waits until the agents have been told. */
  async rejectAllForShutdown(): Promise<void> {
    await Promise.all(this.runEffects(this.inbox.shutdown()));
  }

  private runEffects(effects: InboxEffect[]): Promise<void>[] {
    const writes: Promise<void>[] = [];
    for (const effect of effects) {
      if (effect.type === 'offer') this.offer(effect);
      else if (effect.type === 'closeTab') this.closeTab(effect.sessionId, effect.editorId, effect.tabName);
      else {
        const session = this.sessions.get(effect.sessionId);
        const saved = this.savedAnswers.get(effect.diffId);
        if (session && saved && saved.msg.id === effect.reply) session.link.forward(saved.frame, { kind: 'response', msg: saved.msg });
        else if (session) writes.push(session.link.sendAndWait(result(effect.reply as RpcId, effect.result)));
        this.diffWaiters.get(effect.diffId)?.();
        this.diffWaiters.delete(effect.diffId);
        this.deps.onDiffDecided(effect.record);
      }
    }
    if (effects.length > 0) this.deps.onChange();
    return writes;
  }

  private offer(effect: Extract<InboxEffect, { type: 'offer' }>): void {
    const session = this.sessions.get(effect.sessionId);
    if (!session) return;
    const { diffId, editorId } = effect;
    const arrival = this.arrivals.get(diffId);
    const asSent = arrival?.tabName === effect.tabName ? arrival : undefined;
    void this.upstreamFor(session, editorId)
      .then((link) =>
        asSent
          ? link.relay(asSent.msg, asSent.frame).response
          : link.request('tools/call', { name: 'openDiff', arguments: effect.args }).response,
      )
      .then((reply) => {
        const response = reply.msg;
        const texts = resultTexts(response.result);
        if (texts?.[0] === 'FILE_SAVED') {
          // Complete (contents included), it is exactly the agent's answer.
          if (texts[1] !== undefined) this.savedAnswers.set(diffId, reply);
          this.runEffects(this.inbox.editorAnswered(diffId, editorId, { saved: true, contents: texts[1] ?? null }));
          this.savedAnswers.delete(diffId);
        } else if (texts?.[0] === 'DIFF_REJECTED') {
          this.runEffects(this.inbox.editorAnswered(diffId, editorId, { saved: false }));
        } else {
          const what = response.error
            ? `${response.error.message}${response.error.data === undefined ? '' : ` (${JSON.stringify(response.error.data).slice(0, 300)})`}`
            : JSON.stringify(response.result)?.slice(0, 200);
          throw new Error(`unexpected openDiff answer: ${what}`);
        }
      })
      .catch((err: Error) => {
        // The diff stays pending in Patchbay; the agent is never answered with an error for it.
        if (this.inbox.offerFailed(diffId, editorId)) {
          this.deps.log(`diff ${diffId}: editor ${editorId} did not decide it (${err.message}); it waits in Patchbay`);
          this.deps.onChange();
        }
      })
      .finally(() => this.pruneUpstreams(session));
  }

  private closeTab(sessionId: string, editorId: string, tabName: string): void {
    const session = this.sessions.get(sessionId);
    const link = session?.upstreams.get(editorId)?.link;
    if (!link?.isOpen) return;
    void link
      .request('tools/call', { name: 'close_tab', arguments: { tab_name: tabName } })
      .response.catch(() => {})
      .finally(() => session && this.pruneUpstreams(session));
  }

  // ── binding ──────────────────────────────────────────────────────────────

  bind(sessionId: string, editorId: string | null): SessionView {
    const session = this.requireSession(sessionId);
    if (editorId !== null && !this.editors.has(editorId)) throw new HubError(`no live editor ${editorId}`, 'not-found');
    session.manual = editorId;
    const key = sessionKey(session);
    if (key) this.deps.memory.set(key, editorId);
    this.rebalance();
    return sessionView(session, this.inbox.countFor(session.id));
  }

  /** Drops the person's choice (and what was remembered for the session's folder): the rules decide again. */
  unpin(sessionId: string): SessionView {
    const session = this.requireSession(sessionId);
    session.manual = undefined;
    session.sticky = undefined;
    const key = sessionKey(session);
    if (key) this.deps.memory.forget(key);
    this.rebalance();
    return sessionView(session, this.inbox.countFor(session.id));
  }

  /** Re-applies the broker's rules to every session; rebinding never drops an agent. */
  rebalance(): void {
    if (this.closed) return;
    const live = this.deps.paused()
      ? []
      : [...this.editors.values()].map((e) => ({ id: e.editor.id, workspaceFolders: e.editor.workspaceFolders, focusedAt: e.focusedAt }));
    let changed = false;
    for (const session of this.sessions.values()) {
      const choice = chooseEditor({ cwd: session.process?.cwd ?? null, manual: session.manual, memory: session.sticky }, live);
      if (choice.editorId !== session.editorId || choice.reason !== session.reason) {
        const moved = choice.editorId !== session.editorId;
        session.editorId = choice.editorId;
        session.reason = choice.reason;
        changed = true;
        if (moved && session.dialect === 'claude' && session.clientInfo) void session.link.notify('notifications/tools/list_changed');
      }
      if (session.editorId) this.connectSession(session, session.editorId);
      this.pruneUpstreams(session);
    }
    if (changed) this.deps.onChange();
  }

  private connectSession(session: Session, editorId: string): void {
    void this.upstreamFor(session, editorId)
      .then(() => this.runEffects(this.inbox.editorAvailable(session.id)))
      .catch((err: Error) => this.deps.log(`${session.id}: ${err.message}`));
  }

  /** The session's connection to an editor, opened on first use. */
  private upstreamFor(session: Session, editorId: string): Promise<RpcLink> {
    const state = this.editors.get(editorId);
    if (!state) return Promise.reject(new Error(`editor ${editorId} is not live`));
    const existing = session.upstreams.get(editorId);
    if (existing && existing.editor.port === state.editor.port && (existing.link === null || existing.link.isOpen)) return existing.ready;
    existing?.link?.close();
    const editor = state.editor;
    const upstream: Upstream = { editor, link: null, ready: Promise.resolve(undefined as unknown as RpcLink) };
    upstream.ready = openEditorLink(editor, session.clientInfo ?? { name: 'patchbay', version: this.deps.version }, this.maxFrame(), {
      onRequest: (msg, link, frame) => this.editorRequests.route(editor.id, link, msg, frame),
      onNotification: (msg, link, frame) => this.onUpstreamNotification(session, editor.id, link, msg, frame),
      onFrame: (dir, text, message, bytes) => session.traffic.record(dir === 'in' ? 'down' : 'up', editor.id, text, message, Date.now(), bytes),
      onMalformed: (problem) => this.deps.log(problem),
      onClose: () => {
        if (session.upstreams.get(editor.id) === upstream) session.upstreams.delete(editor.id);
        if (this.closed) return;
        if (!session.closed && session.editorId === editor.id) {
          this.deps.editorSuspect(editor);
          this.after(MONITOR_RETRY_MS, () => this.rebalance());
        }
        this.superviseMonitor(editor.id);
      },
    }).then((link) => {
      upstream.link = link;
      if (session.closed) link.close();
      this.superviseMonitor(editor.id);
      return link;
    });
    upstream.ready.catch(() => {
      if (session.upstreams.get(editor.id) === upstream) session.upstreams.delete(editor.id);
      this.deps.editorSuspect(editor);
    });
    session.upstreams.set(editor.id, upstream);
    return upstream.ready;
  }

  /** Upstreams to editors the session is no longer bound to close once nothing is in flight. */
  private pruneUpstreams(session: Session): void {
    for (const [editorId, up] of session.upstreams) {
      const current = !session.closed && editorId === session.editorId;
      if (!current && up.link && up.link.inFlight === 0) {
        session.upstreams.delete(editorId);
        up.link.close();
      }
    }
  }

  private onUpstreamNotification(session: Session, editorId: string, link: RpcLink, msg: RpcNotification, frame: Frame): void {
    if (msg.method === 'request_cancelled') return this.editorRequests.cancel(link, msg);
    if (session.closed || session.editorId !== editorId) return;
    if (msg.method === 'selection_changed') this.focused(this.editors.get(editorId));
    session.link.forward(frame, { kind: 'notification', msg });
  }

  async refreshModels(sessionId: string): Promise<SessionModels> {
    const session = this.requireSession(sessionId);
    if (session.kind !== 'pi') throw new HubError(`${sessionId} is not a pi session`, 'invalid');
    try {
      const { msg: response } = await withTimeout(session.link.request('listSuggestionModels', []).response, 5000, 'listSuggestionModels');
      if (response.error) throw new Error(response.error.message);
      const list = parseModelList(response.result);
      session.models = { sessionId, ...list, fetchedAt: this.now(), error: null };
    } catch (err) {
      session.models = { ...session.models, error: (err as Error).message };
    }
    this.deps.onChange();
    return session.models;
  }

  // ── editors ──────────────────────────────────────────────────────────────

  /** Discovery's current list of live editors. */
  setEditors(list: LiveEditor[]): void {
    const next = new Map(list.map((e) => [e.id, e]));
    for (const [id, state] of this.editors) {
      const now = next.get(id);
      if (!now || now.port !== state.editor.port || now.pid !== state.editor.pid || now.authToken !== state.editor.authToken) {
        this.dropEditor(id, state);
      }
    }
    for (const editor of list) {
      const state = this.editors.get(editor.id);
      if (!state) this.addEditor(editor);
      else state.editor = { ...editor }; // folders may change in place
    }
    this.rebalance();
    this.deps.onChange();
  }

  private dropEditor(id: string, state: EditorState): void {
    state.closed = true;
    if (state.retireTimer) clearTimeout(state.retireTimer);
    state.monitor?.close();
    this.editors.delete(id);
    for (const session of this.sessions.values()) {
      const up = session.upstreams.get(id);
      if (up && up.editor.port === state.editor.port) {
        session.upstreams.delete(id);
        up.link?.close();
      }
    }
  }

  private addEditor(editor: LiveEditor): void {
    const state: EditorState = { editor, monitor: null, retiring: false, retireTimer: null, opening: false, tools: null, focusedAt: null, closed: false };
    this.editors.set(editor.id, state);
    void this.openMonitor(state);
  }

  /** Patchbay's own link to each editor: tool list, focus (selection_changed), liveness. */
  private async openMonitor(state: EditorState): Promise<void> {
    state.opening = true;
    try {
      const link = await openEditorLink(state.editor, { name: 'patchbay', version: this.deps.version }, this.maxFrame(), {
        onRequest: (msg, link, frame) => this.editorRequests.route(state.editor.id, link, msg, frame),
        onNotification: (msg, link) => {
          if (msg.method === 'request_cancelled') return this.editorRequests.cancel(link, msg);
          if (msg.method === 'selection_changed') this.focused(state);
        },
        onMalformed: (problem) => this.deps.log(problem),
        onClose: () => {
          state.monitor = null;
          if (state.retiring) return void (state.retiring = false);
          if (state.closed || this.closed) return;
          this.deps.editorSuspect(state.editor);
          this.deps.onChange();
          this.after(MONITOR_RETRY_MS, () => this.superviseMonitor(state.editor.id));
        },
      });
      if (state.closed) return link.close();
      state.monitor = link;
      state.tools = await fetchTools(link);
      this.deps.onChange();
      this.superviseMonitor(state.editor.id);
    } catch (err) {
      this.deps.log(`monitor for ${state.editor.ideName} (port ${state.editor.port}): ${(err as Error).message}`);
      if (!state.closed) this.deps.editorSuspect(state.editor);
    } finally {
      state.opening = false;
    }
  }

  /** Open links from sessions to this editor instance. */
  private sessionLinks(editor: LiveEditor): number {
    let n = 0;
    for (const session of this.sessions.values()) {
      const up = session.upstreams.get(editor.id);
      if (up?.link?.isOpen && up.editor.port === editor.port) n++;
    }
    return n;
  }

  /** Keeps exactly one kind of watch on each editor: the monitor only while no session link exists. */
  private superviseMonitor(editorId: string): void {
    const state = this.editors.get(editorId);
    if (!state || state.closed || this.closed) return;
    const shared = this.sessionLinks(state.editor) > 0;
    if (shared && state.monitor && state.tools !== null && !state.retireTimer) {
      // Not at once: the editor may have just picked this link for a request (it picks any
      // client), and its answer and cancellation travel on the same link.
      state.retireTimer = setTimeout(() => {
        state.retireTimer = null;
        const monitor = state.monitor;
        if (!monitor || state.closed || this.closed || this.sessionLinks(state.editor) === 0) return;
        if (this.editorRequests.waiting(monitor) > 0) return; // settling calls superviseMonitor again
        state.retiring = true;
        monitor.close();
      }, MONITOR_RETIRE_MS);
      state.retireTimer.unref();
    } else if (!shared && !state.monitor && !state.opening) {
      void this.openMonitor(state);
    }
  }

  /** The person is in this editor now; only a change of editor can move "focus" bindings. */
  private focused(state: EditorState | undefined): void {
    if (!state) return;
    state.focusedAt = this.now();
    if (this.lastFocused === state.editor.id) return;
    this.lastFocused = state.editor.id;
    this.rebalance();
    this.deps.onChange();
  }

  private lastFocused: string | null = null;

  editorViews(): Pick<EditorView, 'id' | 'focusedAt' | 'alive'>[] {
    return [...this.editors.values()].map((s) => ({
      id: s.editor.id,
      focusedAt: s.focusedAt,
      alive: (s.monitor?.isOpen ?? false) || this.sessionLinks(s.editor) > 0,
    }));
  }

  private maxFrame(): number {
    return this.deps.settings().maxFrameBytes;
  }

  private after(ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Closes every connection. Call rejectAllForShutdown first so agents hear a decision. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const session of this.sessions.values()) {
      for (const up of session.upstreams.values()) up.link?.close();
      session.link.close();
    }
    for (const [id, state] of this.editors) this.dropEditor(id, state);
  }
}

/** The tab name of an openDiff call, or null for any other request. */
function openDiffTab(msg: RpcRequest): string | null {
  const params = msg.params as { name?: unknown; arguments?: { tab_name?: unknown } } | undefined;
  if (msg.method !== 'tools/call' || params?.name !== 'openDiff') return null;
  return typeof params.arguments?.tab_name === 'string' ? params.arguments.tab_name : '';
}
