// An in-memory HubApi for testing the faces (control server, CLI) without the real hub.
// It keeps just enough state for commands to have visible effects.
import {
  HubError,
  type DecisionRecord,
  type DiffDetail,
  type HostedDetail,
  type HostedView,
  type HubApi,
  type PiSessionInfo,
  type HubEvent,
  type HubMethod,
  type ParamsOf,
  type PatchbaySettings,
  type ResultOf,
  type SessionModels,
  type Snapshot,
} from '../../src/api/types.ts';
import { validateSettingsPatch } from '../../src/settings/defaults.ts';
import { acceptDecision, decisionFacts } from '../../src/review/decision-facts.ts';
import { alreadyDecided } from '../../src/review/decision-words.ts';
import type { Decision } from '../../src/review/inbox.ts';
import { localOnlyRefusal } from '../../src/settings/local-only.ts';
import { reviewModePatch, reviewModeView } from '../../src/review/review-mode.ts';
import { waitFor } from '../peers/wait.ts';

export type Handlers = { [M in HubMethod]: (params: ParamsOf<M>) => ResultOf<M> | Promise<ResultOf<M>> };

export const NOW = 1_700_000_000_000;

export function sampleSettings(): PatchbaySettings {
  return {
    takeover: true,
    claude: true,
    reviewFolders: [],
    diagnosticsDeadlineMs: 1500,
    maxFrameBytes: 64 * 1024 * 1024,
    maxPendingPerSession: 32,
    reviewRoute: 'editor-and-patchbay',
    reviewMode: 'before',
    reviewModePerFolder: {},
    suggestionModel: 'editor',
    suggestionModelPerEditor: {},
    suggestionSessionPerEditor: {},
    launchAtLogin: false,
    allowPiExtensions: false,
    trustedLockDirs: [],
    piCommand: '',
    remotes: [],
  };
}

export function sampleSnapshot(): Snapshot {
  return {
    version: '0.1.0',
    pid: 4242,
    corePid: 4243,
    core: { reason: 'start', startedAt: 1_700_000_000_000, restarts: 0, daemonSince: 1_700_000_000_000 },
    notices: [],
    notReconnected: [],
    paused: false,
    door: { port: 40123, lockfiles: ['/home/u/.pi/ide/40123.lock'], problems: [] },
    editors: [
      {
        id: 'nvim-proj',
        ideName: 'Neovim',
        workspaceFolders: ['/work/proj'],
        port: 41000,
        pid: 5000,
        dialect: 'pi',
        authenticated: true,
        alive: true,
        lockfile: '/home/u/.pi/ide/.patchbay/41000.lock',
        focusedAt: null,
      },
    ],
    invalidLockfiles: [{ path: '/home/u/.pi/ide/999.lock', reason: '"pid" must be a number' }],
    otherLockfiles: [{ path: '/home/u/.pi/ide/51234.lock', protocol: 'pi-ide', description: 'Pi IDE Protocol v1 (VS Code, pid 4242)' }],
    sessions: [
      {
        id: 's1',
        kind: 'pi',
        dialect: 'pi',
        clientName: 'pi-ide',
        pid: 6000,
        cwd: '/work/proj',
        command: 'pi',
        identity: 'known',
        connectedAt: NOW - 60_000,
        lastActiveAt: NOW - 1000,
        editorId: 'nvim-proj',
        reason: 'cwd',
        automaticEditorId: 'nvim-proj',
        pendingDiffs: 1,
      },
    ],
    idleAgents: [{ pid: 7000, cwd: '/work/other', command: 'pi', reason: 'pi-ide is not installed' }],
    diffs: [
      {
        id: 'd1',
        sessionId: 's1',
        editorId: 'nvim-proj',
        tool: 'edit',
        path: '/work/proj/a.txt',
        tabName: 'pi-edit:1',
        status: 'pending',
        createdAt: NOW - 12_000,
        isNew: false,
        tooLarge: false,
        inEditor: true,
      },
      {
        id: 'd2',
        sessionId: 's1',
        editorId: null,
        tool: 'write',
        path: '/work/proj/new.txt',
        tabName: 'pi-write:2',
        status: 'pending',
        createdAt: NOW - 5_000,
        isNew: true,
        tooLarge: false,
        inEditor: false,
      },
    ],
    history: [],
    settings: sampleSettings(),
    hostedPi: { command: ['pi'], commandSource: 'default', allowExtensions: false, settingsFile: '/home/u/.config/Patchbay/config.json' },
    hosted: [],
    remotes: [],
    warnings: ['the store was unreadable and moved aside'],
  };
}

/** A hosted pi just started: idle, nothing said yet. */
export function idleHostedDetail(init: { id: string; cwd: string; pid: number; model: string; startedAt: number }): HostedDetail {
  return {
    ...init,
    status: 'idle',
    thinkingLevel: 'off',
    exit: null,
    sessionId: null,
    review: 'reviewed',
    pendingDialogs: 0,
    sessionFile: `/home/u/.pi/agent/sessions/--work--/2026-01-01T00-00-00-000Z_${init.id}.jsonl`,
    sessionName: null,
    resumable: false,
    title: null,
    transcript: [],
    dialogs: [],
    statusLines: {},
    widgets: [],
    queue: { steering: [], followUp: [] },
    settings: { steeringMode: 'one-at-a-time', followUpMode: 'one-at-a-time', autoCompaction: true, autoRetry: null },
    stats: null,
  };
}

/** The hosted list as the snapshot shows it: each detail without its big parts. */
export function hostedView(detail: HostedDetail): HostedView {
  const { transcript: _t, dialogs, statusLines: _s, widgets: _w, queue: _q, settings: _set, stats: _st, ...view } = detail;
  return { ...view, pendingDialogs: dialogs.length, resumable: view.status === 'exited' && view.sessionFile !== null };
}

export interface FakeHub extends HubApi {
  state: Snapshot;
  details: Map<string, DiffDetail>;
  models: SessionModels[];
  /** Hosted pi sessions by id; `state.hosted` lists their views. */
  hosted: Map<string, HostedDetail>;
  /** What `pi.sessions` lists. */
  savedSessions: PiSessionInfo[];
  calls: { method: HubMethod; params: unknown }[];
  /**
   * Runs `act` (a click, a key) and returns the params of the first `method` call that reaches the
   * hub after it began: the page's call crosses a socket, so it lands after `act` returns.
   */
  callAfter(method: HubMethod, act: () => Promise<unknown>): Promise<unknown>;
  listenerCount(): number;
  emit(event: HubEvent): void;
  /** Replace one command's behaviour (to block, fail, or record). */
  handlers: Handlers;
}

export function createFakeHub(): FakeHub {
  const state = sampleSnapshot();
  const details = new Map<string, DiffDetail>([
    ['d1', { ...state.diffs[0]!, oldContents: 'one\ntwo\n', newContents: 'one\n2\n', decision: null, finalContents: null }],
    ['d2', { ...state.diffs[1]!, oldContents: null, newContents: 'brand new\n', decision: null, finalContents: null }],
  ]);
  const models: SessionModels[] = [
    {
      sessionId: 's1',
      cliOverride: null,
      currentModel: 'openai/gpt-4o',
      models: [{ provider: 'openai', id: 'gpt-4o', name: 'GPT-4o', model: 'gpt-4o' }],
      fetchedAt: NOW,
      error: null,
    },
  ];
  const autoconnect = { global: null as boolean | null, projects: new Map<string, boolean | null>() };
  const listeners = new Set<(event: HubEvent) => void>();
  const calls: { method: HubMethod; params: unknown }[] = [];
  const hosted = new Map<string, HostedDetail>();
  const savedSessions: PiSessionInfo[] = [];
  const emit = (event: HubEvent): void => {
    for (const listener of listeners) listener(event);
  };
  const hostedSession = (id: string): HostedDetail => {
    const found = hosted.get(id);
    if (!found) throw new HubError(`no hosted pi session "${id}"`, 'not-found');
    return found;
  };
  /** The list in the snapshot follows the details (views are the details without their big parts). */
  const listHosted = (): void => {
    state.hosted = [...hosted.values()].map(hostedView);
  };

  const decide = (id: string, decision: Decision): DecisionRecord => {
    const diff = state.diffs.find((d) => d.id === id);
    if (!diff) throw new HubError(`no diff with id "${id}"`, 'not-found');
    if (diff.status !== 'pending') {
      const record = state.history.find((r) => r.id === id);
      throw new HubError(record ? alreadyDecided(record) : `diff ${id} is already ${diff.status}`, 'conflict');
    }
    const outcome = decision.outcome === 'accept' ? 'accepted' : 'rejected';
    const contents = decision.outcome === 'accept' ? decision.contents : undefined;
    diff.status = outcome;
    delete diff.deciding;
    clearTimeout(later.get(id));
    later.delete(id);
    const known = details.get(id);
    // The hub's own rules for what a decision amounts to (changes taken, typing, words for the agent).
    const facts = decisionFacts({
      path: diff.path,
      original: known ? (known.isNew ? '' : known.oldContents) : null,
      proposal: known?.newContents ?? '',
      accepted: outcome === 'accepted',
      ...(contents !== undefined ? { written: contents } : {}),
      ...(decision.outcome === 'accept' && decision.taken ? { taken: decision.taken } : {}),
      ...(decision.reason ? { reason: decision.reason } : {}),
      by: 'person',
    });
    const record: DecisionRecord = {
      id,
      sessionId: diff.sessionId,
      path: diff.path,
      outcome,
      status: outcome,
      by: 'patchbay',
      at: NOW,
      ...facts,
      tool: diff.tool,
      editorId: diff.editorId,
      agent: 'pi-ide',
    };
    state.history.unshift(record);
    // Decided diffs keep their contents, so the history can show them (as the hub does).
    const detail = details.get(id);
    if (detail) {
      detail.status = outcome;
      detail.decision = record;
      detail.finalContents = outcome === 'accepted' ? (contents ?? detail.newContents) : null;
    }
    emit({ type: 'diffDecided', record });
    emit({ type: 'snapshot', snapshot: structuredClone(state) });
    return record;
  };
  /** Decisions waiting their few seconds, as the hub holds them (`diffs.decideLater`). */
  const later = new Map<string, ReturnType<typeof setTimeout>>();
  const laterDecisions = new Map<string, Decision>();
  const sendLater = (id: string): DecisionRecord | null => {
    const decision = laterDecisions.get(id);
    laterDecisions.delete(id);
    return decision === undefined ? null : decide(id, decision);
  };
  /** Keep or undo of an applied (or accepted) edit, as the hub records it (the fake writes no file). */
  const reviewAfter = (id: string, change: (record: DecisionRecord) => Partial<DecisionRecord>): DecisionRecord => {
    const record = state.history.find((r) => r.id === id);
    if (!record) throw new HubError(`no edit ${id} in the history`, 'not-found');
    Object.assign(record, change(record), { reviewedAt: NOW });
    const listed = state.diffs.find((d) => d.id === id);
    if (listed) Object.assign(listed, { status: record.status, ...(record.undone ? { undone: record.undone } : {}) });
    state.diffs = state.diffs.filter((d) => d.status === 'pending' || d.status === 'applied');
    const detail = details.get(id);
    if (detail) detail.status = record.status;
    queueMicrotask(() => emit({ type: 'snapshot', snapshot: structuredClone(state) }));
    return structuredClone(record);
  };
  const keep = (id: string) =>
    reviewAfter(id, (r) => {
      if (r.status !== 'applied') throw new HubError(`${id} is ${r.status}: only an applied edit is kept`, 'conflict');
      return { status: 'kept' };
    });
  const undo = (id: string, changes?: number[]) =>
    reviewAfter(id, (r) => {
      const total = state.diffs.find((d) => d.id === id)?.changes?.length ?? 1;
      const undone = [...new Set([...(r.undone ?? []), ...(changes ?? Array.from({ length: total }, (_, i) => i + 1))])].sort((a, b) => a - b);
      return { undone, status: undone.length >= total ? 'undone' : r.status };
    });
  const autoconnectView = (project?: string) => {
    const projectValue = project === undefined ? null : (autoconnect.projects.get(project) ?? null);
    return {
      globalFile: '/home/u/.pi/agent/settings.json',
      global: autoconnect.global,
      projectFile: project === undefined ? null : `${project}/.pi/settings.json`,
      project: projectValue,
      effective: projectValue ?? autoconnect.global ?? true,
    };
  };

  const handlers: Handlers = {
    snapshot: () => structuredClone(state),
    restart: () => ({ corePid: state.corePid }),
    'notices.dismiss': ({ id }) => {
      const before = state.notices.length;
      state.notices = state.notices.filter((n) => n.id !== id);
      if (state.notices.length === before) throw new HubError(`no notice ${id}`, 'not-found');
    },
    unpin: ({ sessionId }) => {
      const session = state.sessions.find((s) => s.id === sessionId);
      if (!session) throw new HubError(`no session with id "${sessionId}"`, 'not-found');
      // Back to what the rules pick, as the real hub does.
      session.editorId = session.automaticEditorId;
      session.reason = session.editorId === null ? 'none' : 'cwd';
      return structuredClone(session);
    },
    bind: ({ sessionId, editorId }) => {
      const session = state.sessions.find((s) => s.id === sessionId);
      if (!session) throw new HubError(`no session with id "${sessionId}"`, 'not-found');
      if (editorId !== null && !state.editors.some((e) => e.id === editorId)) {
        throw new HubError(`no editor with id "${editorId}"`, 'not-found');
      }
      session.editorId = editorId;
      session.reason = editorId === null ? 'none' : 'manual';
      return structuredClone(session);
    },
    restore: () => ({ restored: ['/home/u/.pi/ide/41000.lock'], removed: [] }),
    setPaused: ({ paused }) => {
      state.paused = paused;
    },
    'diffs.get': ({ id }) => {
      const detail = details.get(id);
      if (!detail) throw new HubError(`no diff with id "${id}"`, 'not-found');
      return structuredClone(detail);
    },
    'diffs.accept': ({ id, contents, changes, reason }) =>
      decide(id, acceptDecision(details.get(id) ?? { isNew: false, oldContents: null, newContents: '' }, contents, changes, reason)),
    'diffs.reject': ({ id, reason }) => decide(id, reason === undefined ? { outcome: 'reject' } : { outcome: 'reject', reason }),
    'diffs.acceptAll': ({ sessionId }) =>
      state.diffs.filter((d) => d.sessionId === sessionId && d.status === 'pending').map((d) => decide(d.id, { outcome: 'accept' })),
    'diffs.rejectAll': ({ sessionId }) =>
      state.diffs.filter((d) => d.sessionId === sessionId && d.status === 'pending').map((d) => decide(d.id, { outcome: 'reject' })),
    'diffs.decideLater': ({ id, outcome, contents, changes, reason, graceMs, batch, verb, what }) => {
      const diff = state.diffs.find((d) => d.id === id && d.status === 'pending');
      if (!diff) throw new HubError(`no pending diff ${id}`, 'not-found');
      const decision: Decision =
        outcome === 'accept'
          ? acceptDecision(details.get(id) ?? { isNew: false, oldContents: null, newContents: '' }, contents, changes, reason)
          : { outcome: 'reject', ...(reason !== undefined ? { reason } : {}) };
      clearTimeout(later.get(id));
      laterDecisions.set(id, decision);
      later.set(
        id,
        setTimeout(() => sendLater(id), graceMs),
      );
      diff.deciding = { outcome, dueAt: Date.now() + graceMs, batch, verb, what };
      queueMicrotask(() => emit({ type: 'snapshot', snapshot: structuredClone(state) }));
      return structuredClone(diff);
    },
    'diffs.takeBack': ({ ids }) => {
      const back = ids.filter((id) => laterDecisions.delete(id));
      for (const id of back) {
        clearTimeout(later.get(id));
        later.delete(id);
        const diff = state.diffs.find((d) => d.id === id);
        if (diff) delete diff.deciding;
      }
      queueMicrotask(() => emit({ type: 'snapshot', snapshot: structuredClone(state) }));
      return back;
    },
    'diffs.sendNow': ({ ids }) => ids.map(sendLater).filter((r): r is DecisionRecord => r !== null),
    'diffs.keep': ({ id }) => keep(id),
    'diffs.undo': ({ id, changes }) => undo(id, changes),
    'diffs.keepAll': ({ ids }) => ids.map(keep),
    'diffs.undoAll': ({ ids }) => ids.map((id) => undo(id)),
    'reviewMode.get': ({ project }) => reviewModeView(state.settings, project),
    'reviewMode.set': ({ project, value }) => {
      Object.assign(state.settings, reviewModePatch(state.settings, value, project));
      queueMicrotask(() => emit({ type: 'snapshot', snapshot: structuredClone(state) }));
      return reviewModeView(state.settings, project);
    },
    traffic: () => [],
    'settings.get': () => structuredClone(state.settings),
    'settings.set': ({ patch }) => {
      if ('diagnosticsDeadlineMs' in patch && typeof patch.diagnosticsDeadlineMs !== 'number') {
        throw new HubError('diagnosticsDeadlineMs must be a number', 'invalid');
      }
      // Otherwise the hub's own rules, so a face shows the reasons a person would see.
      const valid = validateSettingsPatch(patch);
      const refusal = localOnlyRefusal(valid, state.hostedPi.settingsFile);
      if (refusal !== null) throw refusal;
      Object.assign(state.settings, valid);
      // As the hub does: every face hears of the change.
      queueMicrotask(() => emit({ type: 'snapshot', snapshot: structuredClone(state) }));
      return structuredClone(state.settings);
    },
    'autoconnect.get': ({ project }) => autoconnectView(project),
    'autoconnect.set': ({ project, value }) => {
      if (project === undefined) autoconnect.global = value;
      else autoconnect.projects.set(project, value);
      return autoconnectView(project);
    },
    'models.list': ({ sessionId }) => structuredClone(models.filter((m) => sessionId === undefined || m.sessionId === sessionId)),
    'models.refresh': ({ sessionId }) => {
      const found = models.find((m) => m.sessionId === sessionId);
      if (!found) throw new HubError(`no session with id "${sessionId}"`, 'not-found');
      return structuredClone(found);
    },
    'suggestionModel.set': ({ choice, editorId }) => {
      if (!/^(editor|session|[^/\s]+\/\S+)$/.test(choice)) throw new HubError(`"${choice}" is not a model`, 'invalid');
      if (editorId === undefined) state.settings.suggestionModel = choice;
      else state.settings.suggestionModelPerEditor[editorId] = choice;
      return structuredClone(state.settings);
    },
    // A hosted pi that answers every prompt with "ok" at once: enough for the faces' plumbing.
    'pi.start': ({ cwd, model }) => {
      const id = `h${hosted.size + 1}`;
      hosted.set(id, idleHostedDetail({ id, cwd, pid: 9000 + hosted.size, model: model ?? 'fake/model', startedAt: NOW }));
      listHosted();
      return structuredClone(state.hosted.find((h) => h.id === id)!);
    },
    'pi.get': ({ id }) => structuredClone(hostedSession(id)),
    'pi.prompt': ({ id, text }) => {
      const session = hostedSession(id);
      if (session.status === 'exited') throw new HubError(`pi session ${id} has exited: ${session.exit}`, 'unavailable');
      if (text.startsWith('!')) {
        const result = { output: `ran ${text.replace(/^!+/, '')}\n`, exitCode: 0, cancelled: false, truncated: false };
        return { ran: 'bash', result };
      }
      session.transcript.push({ kind: 'user', text, at: NOW }, { kind: 'assistant', text: 'ok', thinking: '', at: NOW, done: true });
      queueMicrotask(() => {
        for (const event of [
          { type: 'agent_start' },
          { type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: 'ok' } },
          { type: 'agent_end', messages: [] },
          { type: 'agent_settled' },
        ]) {
          emit({ type: 'pi', id, event });
        }
      });
      return { ran: 'prompt' };
    },
    'pi.abort': ({ id }) => void hostedSession(id),
    'pi.state': ({ id }) => ({ model: { provider: 'fake', id: 'model' }, thinkingLevel: hostedSession(id).thinkingLevel, isStreaming: false }),
    'pi.models': ({ id }) => {
      hostedSession(id);
      return { models: [{ provider: 'fake', id: 'model', name: 'Fake Model' }] };
    },
    'pi.setModel': ({ id, provider, modelId }) => {
      hostedSession(id).model = `${provider}/${modelId}`;
      listHosted();
      return structuredClone(state.hosted.find((h) => h.id === id)!);
    },
    'pi.setThinking': ({ id, level }) => {
      hostedSession(id).thinkingLevel = level;
      listHosted();
      return structuredClone(state.hosted.find((h) => h.id === id)!);
    },
    'pi.stats': ({ id }) => hostedSession(id).stats,
    'pi.answer': ({ id, requestId }) => {
      const session = hostedSession(id);
      if (!session.dialogs.some((d) => d.requestId === requestId)) throw new HubError(`no dialog ${requestId}`, 'not-found');
      session.dialogs = session.dialogs.filter((d) => d.requestId !== requestId);
      listHosted();
    },
    'pi.stop': ({ id, keep }) => {
      const session = hostedSession(id);
      if (keep === true) {
        const exit = 'pi stopped (exit code 0)';
        Object.assign(session, { status: 'exited', exit, pid: null, dialogs: [] });
        session.transcript.push({ kind: 'notice', level: 'info', text: exit, at: NOW });
      } else {
        hosted.delete(id);
      }
      listHosted();
    },
    'pi.resume': (request) => {
      const found = 'id' in request ? hostedSession(request.id) : [...hosted.values()].find((h) => h.sessionFile === request.sessionFile);
      if (found === undefined && 'sessionFile' in request) {
        const id = `h${hosted.size + 1}`;
        const saved = savedSessions.find((s) => s.file === request.sessionFile);
        hosted.set(id, { ...idleHostedDetail({ id, cwd: saved?.cwd ?? '/work/proj', pid: 9000 + hosted.size, model: 'fake/model', startedAt: NOW }), sessionFile: request.sessionFile });
        listHosted();
        return structuredClone(state.hosted.find((h) => h.id === id)!);
      }
      const session = found!;
      if (session.status === 'exited') Object.assign(session, { status: 'idle', exit: null, pid: 9100 });
      listHosted();
      return structuredClone(state.hosted.find((h) => h.id === session.id)!);
    },
    'pi.sessions': () => structuredClone(savedSessions),
    'pi.commands': ({ id }) => {
      hostedSession(id);
      return [
        { name: 'ide', description: 'Connect to a running IDE', source: 'extension' },
        { name: 'review', description: 'Review the changes', source: 'prompt' },
      ];
    },
    'pi.thinkingLevels': ({ id }) => (hostedSession(id), ['off', 'minimal', 'low', 'medium', 'high']),
    'pi.forkPoints': ({ id }) =>
      hostedSession(id).transcript.flatMap((item, i) => (item.kind === 'user' ? [{ entryId: `e${i}`, text: item.text }] : [])),
    'pi.fork': ({ id, entryId }) => {
      const session = hostedSession(id);
      const at = Number(entryId.slice(1));
      const item = session.transcript[at];
      if (item?.kind !== 'user') throw new HubError('pi fork: Invalid entry ID for forking', 'invalid');
      session.transcript = session.transcript.slice(0, at);
      session.sessionFile = `${session.sessionFile}.fork`;
      listHosted();
      return { text: item.text, cancelled: false };
    },
    'pi.clone': ({ id }) => {
      const session = hostedSession(id);
      session.sessionFile = `${session.sessionFile}.clone`;
      listHosted();
      return { cancelled: false };
    },
    'pi.newSession': ({ id }) => {
      const session = hostedSession(id);
      session.transcript = [];
      session.sessionName = null;
      session.sessionFile = `${session.sessionFile}.new`;
      listHosted();
      return { cancelled: false };
    },
    'pi.switchSession': ({ id, sessionFile }) => {
      hostedSession(id).sessionFile = sessionFile;
      listHosted();
      return { cancelled: false };
    },
    'pi.tree': ({ id }) => (hostedSession(id), { tree: [], leafId: null }),
    'pi.compact': ({ id, instructions }) => (hostedSession(id), { summary: `summary${instructions ? ` (${instructions})` : ''}`, tokensBefore: 100, estimatedTokensAfter: 10 }),
    'pi.setName': ({ id, name }) => {
      hostedSession(id).sessionName = name;
      listHosted();
    },
    'pi.exportHtml': ({ id, outputPath }) => ({ path: outputPath ?? `${hostedSession(id).cwd}/pi-session.html` }),
    'pi.bash': ({ id, command }) => (hostedSession(id), { output: `ran ${command}\n`, exitCode: 0, cancelled: false, truncated: false }),
    'pi.abortBash': ({ id }) => void hostedSession(id),
    'pi.clearQueue': ({ id }) => {
      const session = hostedSession(id);
      const queued = session.queue;
      session.queue = { steering: [], followUp: [] };
      return queued;
    },
    'pi.setQueueModes': ({ id, steering, followUp }) => {
      const { settings } = hostedSession(id);
      if (steering) settings.steeringMode = steering;
      if (followUp) settings.followUpMode = followUp;
    },
    'pi.setAutoCompaction': ({ id, enabled }) => void (hostedSession(id).settings.autoCompaction = enabled),
    'pi.setAutoRetry': ({ id, enabled }) => void (hostedSession(id).settings.autoRetry = enabled),
    'pi.abortRetry': ({ id }) => void hostedSession(id),
    'remotes.reload': () => [],
  };

  return {
    state,
    details,
    models,
    hosted,
    savedSessions,
    calls,
    handlers,
    async callAfter(method, act) {
      const mark = calls.length;
      await act();
      const call = await waitFor(() => calls.slice(mark).find((c) => c.method === method), { message: `a ${method} call` });
      return call.params;
    },
    async call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
      calls.push({ method, params });
      return (handlers[method] as (p: ParamsOf<M>) => ResultOf<M> | Promise<ResultOf<M>>)(params);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    listenerCount: () => listeners.size,
    emit,
  };
}
