// The hosted pi sessions: each is one `pi --mode rpc` child (PiRpcClient) at a time and the state
// its records build (hosted.ts). The host turns HubApi's pi.* commands into pi's RPC commands
// (the commands of pi's terminal UI too: builtins.ts), keeps dialogs and their deadlines, holds
// prompts until the pi's edits can be reviewed, remembers sessions across restarts (the store)
// and starts pi again on a session's file. It tells the hub when something changed.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import type {
  AgentTurn,
  BashResult,
  DialogAnswer,
  DiffSummary,
  ForkPoint,
  HostedDetail,
  HostedQueue,
  HostedView,
  PiCommandInfo,
  PiSessionInfo,
  PromptImage,
  PromptOutcome,
  QueueMode,
} from '../api/types.ts';
import { HubError } from '../api/types.ts';
import { isObject } from '../api/json.ts';
import { PiExitedError, PiRpcClient, type PiExit } from './client.ts';
import { forkPointFor, parseBuiltin } from './builtins.ts';
import {
  bashEnded,
  bashStarted,
  expireDialogs,
  initialHostedState,
  modelName,
  noteReview,
  notice,
  reduceEvent,
  reduceExit,
  reduceGetState,
  reduceUiRequest,
  removeDialog,
  transcriptFromMessages,
  type HostedState,
} from './hosted.ts';
import { HostedSession, hubError } from './hosted-session.ts';
import type { HostedRecord } from './hosted-store.ts';
import { doorChoice, type DoorAddress } from './ide-dialog.ts';
import { dispositionOf, isDialog, type RpcCommand, type RpcEvent, type UiRequest } from './protocol.ts';
import { SessionCatalog, sessionHeader } from './session-list.ts';
import { resumeArgs, sessionDirArg } from './start-args.ts';
import type { CoreHost, OwnedChild } from '../core/host.ts';

/** Where hosted sessions are remembered across restarts (hosted-store.ts). */
export interface HostedMemory {
  list(): HostedRecord[];
  put(record: HostedRecord): void;
  remove(id: string): void;
}

export interface PiHostOptions {
  /** The pi program and its leading arguments (`['pi']`, or `[node, cli.js]`), read at each start: a setting can change it. */
  command(): readonly string[];
  /** The children's environment (the hub adds `PI_IDE_LOCK_DIR`). */
  env: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  commandTimeoutMs: number;
  stopGraceMs: number;
  /**
   * How long a new pi gets to reach the door by itself before its `/ide` is run (null: never);
   * not waited for where pi-ide's autoconnect is off (`autoconnects`).
   */
  ideConnectMs: number | null;
  /** Whether pi-ide autoconnects in this folder (pi's settings); assumed when not given or unreadable. */
  autoconnects?(cwd: string): Promise<boolean>;
  /** How long a prompt to a pi whose pi-ide is not at the door yet waits for it before it is refused. */
  reviewWaitMs: number;
  /** Throws (HubError) when these pi arguments may not be used: an extension without the person's leave. */
  checkArgs?(args: readonly string[], command: string): void;
  /** Sessions remembered across restarts; without it they are forgotten with the process. */
  memory?: HostedMemory;
  /** pi's own session dir (pi's environment and settings decide it), for `pi.sessions`. */
  sessionDir?(): Promise<string>;
  /** Every record pi sends, raw, plus `{type:"hosted_exit", message}` when it exits and `hosted_*` records of Patchbay's own. */
  onEvent(id: string, event: Record<string, unknown>): void;
  /** Something in `views()` changed (status, model, dialogs, the list). */
  onChange(): void;
  /** The folders pi sessions work in changed; awaited before a pi starts, so its pi-ide finds the door. */
  onFoldersChanged(): Promise<void>;
  /** Patchbay's door, to answer pi-ide's `/ide` dialog; null when there is none. */
  door(): DoorAddress | null;
  /** The door session a process opened, to link a hosted pi to its pi-ide connection. */
  sessionIdForPid(pid: number): string | null;
  log(message: string): void;
  now?(): number;
  /** Who runs the pi processes (default: this process); under the daemon the keeper. */
  host?: CoreHost;
}

export interface StartRequest {
  cwd: string;
  model?: string;
  args?: string[];
}

/**
 * The steps of a start: the door made to list the folder (so pi-ide finds it), pi spawned (it
 * loads its settings and extensions), pi answering. Streamed as `hosted_start` records.
 */
export type StartStage = 'door' | 'spawned' | 'ready';

/** pi's own `abort` waits until the run is idle; a prompt of an extension command waits for the command. */
const NO_DEADLINE = { timeoutMs: null };

/** pi-ide names a diff's tab after the tool call that proposed it. */
const REVIEW_TAB = /^pi-(?:write|edit):(.+)$/;

export class PiHost {
  private readonly sessions = new Map<string, HostedSession>();
  /** `pi.resume` of a session file in progress, so a second call gets the same session. */
  private readonly opening = new Map<string, Promise<HostedView>>();
  private readonly catalog = new SessionCatalog();
  private readonly now: () => number;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: PiHostOptions) {
    this.now = options.now ?? Date.now;
    for (const record of options.memory?.list() ?? []) this.sessions.set(record.id, HostedSession.fromRecord(record));
  }

  /** Folders of the sessions that are starting or running. */
  folders(): string[] {
    return [...this.sessions.values()].filter((s) => s.running).map((s) => s.cwd);
  }

  pids(): Set<number> {
    const pids = new Set<number>();
    for (const s of this.sessions.values()) if (s.running && s.client?.pid != null) pids.add(s.client.pid);
    return pids;
  }

  views(): HostedView[] {
    return [...this.sessions.values()].map((s) => this.view(s));
  }

  /** Hosted sessions that are in the middle of a turn (what quitting would cut short). */
  working(): HostedView[] {
    return this.views().filter((v) => v.status === 'streaming');
  }

  async start(request: StartRequest): Promise<HostedView> {
    this.refuseWhileClosing();
    const { cwd, model, args = [] } = request;
    if (typeof cwd !== 'string' || !isAbsolute(cwd)) throw new HubError(`pi.start: "cwd" must be an absolute path, got ${JSON.stringify(cwd)}`);
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new HubError('pi.start: "args" must be a list of strings');
    if (model !== undefined && (typeof model !== 'string' || model.trim() === '')) throw new HubError('pi.start: "model" must be a non-empty string');
    this.options.checkArgs?.(args, 'pi.start');
    await requireFolder(cwd, 'pi.start');

    const session = new HostedSession(`pi-${randomBytes(4).toString('hex')}`, cwd, args, model ?? null, this.now());
    this.sessions.set(session.id, session);
    try {
      await this.launch(session, [...(model !== undefined ? ['--model', model] : []), ...args]);
    } catch (err) {
      await this.discard(session);
      throw hubError(err);
    }
    // `--continue` or `--session` may have opened a file another hosted pi already runs on.
    const other = this.liveOn(session.state.sessionFile, session);
    if (other !== null) {
      this.options.log(`pi ${session.id}: ${session.state.sessionFile} is already open in ${other.id}; that one is used`);
      await this.discard(session);
      return this.view(other);
    }
    this.remember(session);
    this.options.log(`pi ${session.id}: started in ${cwd} (pid ${session.client?.pid}, ${session.review})`);
    this.scheduleIde(session);
    return this.view(session);
  }

  /**
   * Starts pi again on a session's file: a hosted session (same id), or any of pi's saved
   * sessions. A pi already running on that file is returned instead of a second one.
   */
  async resume(request: { id: string } | { sessionFile: string }): Promise<HostedView> {
    this.refuseWhileClosing();
    if ('id' in request) return this.resumeSession(this.get(request.id));
    const file = request.sessionFile;
    const known = this.liveOn(file) ?? [...this.sessions.values()].find((s) => s.state.sessionFile === file);
    if (known !== undefined) return this.resumeSession(known);
    const pending = this.opening.get(file);
    if (pending) return pending;
    const opening = (async () => {
      const header = await sessionHeader(file).catch((err: Error) => {
        throw new HubError(`pi.resume: ${err.message}`, /^no pi session file/.test(err.message) ? 'not-found' : 'invalid');
      });
      await requireFolder(header.cwd, `pi.resume: the session's folder`);
      const session = new HostedSession(`pi-${randomBytes(4).toString('hex')}`, header.cwd, [], null, this.now());
      session.state = { ...session.state, status: 'exited', exit: 'not started yet', sessionFile: file };
      this.sessions.set(session.id, session);
      return this.resumeSession(session);
    })();
    this.opening.set(file, opening);
    try {
      return await opening;
    } finally {
      this.opening.delete(file);
    }
  }

  private async resumeSession(session: HostedSession): Promise<HostedView> {
    if (session.running) return this.view(session);
    const file = session.state.sessionFile;
    if (file === null) throw new HubError(`pi.resume: pi session ${session.id} ran without a session file (--no-session): there is nothing to resume`, 'conflict');
    const other = this.liveOn(file, session);
    if (other !== null) return this.view(other);
    const args = resumeArgs(session.args);
    this.options.checkArgs?.(args, 'pi.resume');
    await requireFolder(session.cwd, 'pi.resume');
    const model = session.state.model ?? session.startModel;
    try {
      await this.launch(session, [...args, '--session', file, ...(model !== null ? ['--model', model] : [])], { resumed: true });
    } catch (err) {
      const failed = hubError(err);
      if (session.running) {
        session.stopping = true;
        await session.client?.close();
      }
      this.update(session, { ...session.state, status: 'exited', exit: `could not resume: ${failed.message}`, dialogs: [] });
      this.remember(session);
      throw failed;
    }
    this.remember(session);
    this.options.log(`pi ${session.id}: resumed on ${file} (pid ${session.client?.pid}, ${session.review})`);
    this.scheduleIde(session);
    return this.view(session);
  }

  /** pi's saved sessions, newest first: its session dir, the dirs hosted sessions keep theirs in, or `sessionDir`. */
  async savedSessions(sessionDir?: string): Promise<PiSessionInfo[]> {
    const dirs = new Set<string>();
    if (sessionDir !== undefined) dirs.add(sessionDir);
    else {
      if (this.options.sessionDir) dirs.add(await this.options.sessionDir());
      for (const s of this.sessions.values()) {
        const own = sessionDirArg(s.args);
        if (own !== null) dirs.add(resolve(s.cwd, own));
        if (s.state.sessionFile !== null) dirs.add(dirname(s.state.sessionFile));
      }
    }
    return this.catalog.list([...dirs], (file) => {
      const hosted = this.liveOn(file) ?? [...this.sessions.values()].find((s) => s.state.sessionFile === file);
      return hosted?.id ?? null;
    });
  }

  detail(id: string): HostedDetail {
    const session = this.get(id);
    const { transcript, dialogs, statusLines, widgets, queue, settings, stats } = session.state;
    return { ...this.view(session), transcript, dialogs, statusLines, widgets, queue, settings, stats };
  }

  async prompt(id: string, text: string, streamingBehavior?: 'steer' | 'followUp', images?: PromptImage[]): Promise<PromptOutcome> {
    const hasImages = images !== undefined && images.length > 0;
    if (typeof text !== 'string' || (text.trim() === '' && !hasImages)) throw new HubError('pi.prompt: "text" must not be empty');
    if (streamingBehavior !== undefined && streamingBehavior !== 'steer' && streamingBehavior !== 'followUp') {
      throw new HubError(`pi.prompt: "streamingBehavior" must be "steer" or "followUp", got ${JSON.stringify(streamingBehavior)}`);
    }
    const session = this.get(id);
    const action = parseBuiltin(text, new Set(session.commands.map((c) => c.name)));
    if (action.kind !== 'prompt' && hasImages) throw new HubError(`pi.prompt: images go with a prompt, not with ${text.trim().split(/\s/)[0]}`);
    switch (action.kind) {
      case 'refused':
        throw new HubError(`pi.prompt: ${action.reason}`, 'invalid');
      case 'compact':
        return { ran: 'compact', result: await this.compact(id, action.instructions) };
      case 'name':
        await this.setName(id, action.name);
        return { ran: 'name', name: action.name };
      case 'new':
        return { ran: 'new', ...(await this.newSession(id)) };
      case 'clone':
        return { ran: 'clone', ...(await this.clone(id)) };
      case 'fork': {
        const point = forkPointFor(await this.forkPoints(id), action.at);
        if (point === null) throw new HubError(`pi.prompt: /fork: no earlier prompt of this session starts with or contains "${action.at}"`, 'not-found');
        return { ran: 'fork', ...(await this.fork(id, point.entryId)) };
      }
      case 'export': {
        const target = action.path === undefined ? undefined : resolve(session.cwd, action.path);
        if (target !== undefined && !target.toLowerCase().endsWith('.html')) throw new HubError('pi.prompt: /export writes HTML: give a file name ending in .html');
        return { ran: 'export', ...(await this.exportHtml(id, target)) };
      }
      case 'model':
        return { ran: 'model', model: (await this.setModel(id, action.provider, action.modelId)).model ?? `${action.provider}/${action.modelId}` };
      case 'thinking':
        return { ran: 'thinking', level: (await this.setThinking(id, action.level)).thinkingLevel ?? action.level };
      case 'bash':
        return { ran: 'bash', result: await this.bash(id, action.command, action.excludeFromContext) };
      case 'prompt':
        break;
    }
    // `/ide` is how pi-ide reaches the door: it must not wait for itself.
    if (!/^\/ide(\s|$)/.test(text.trim())) await session.untilReviewed('pi.prompt', this.options.reviewWaitMs);
    const command: RpcCommand = {
      type: 'prompt',
      message: text,
      ...(streamingBehavior ? { streamingBehavior } : {}),
      ...(hasImages ? { images: images.map((image) => ({ type: 'image', data: image.data, mimeType: image.mimeType })) } : {}),
    };
    const disposition = dispositionOf(await this.command(id, command, NO_DEADLINE));
    return disposition === null ? { ran: 'prompt' } : { ran: 'prompt', disposition };
  }

  /**
   * The door's sessions changed: a hosted pi's pi-ide may have arrived (its held prompts go)
   * or left (it never reconnects by itself, so its `/ide` is run again).
   */
  doorSessionsChanged(): void {
    for (const session of this.sessions.values()) {
      const pid = session.client?.pid ?? null;
      if (pid === null || !session.running) continue;
      const linked = this.options.sessionIdForPid(pid);
      if (linked === session.doorSession) continue;
      const lost = session.doorSession !== null && linked === null;
      session.doorSession = linked;
      this.options.log(`pi ${session.id}: pi-ide ${linked === null ? 'left the door' : `reached the door (${linked})`}`);
      if (lost) this.scheduleIde(session);
      session.settleWaiters();
      this.options.onChange();
    }
  }

  /** A diff reached the inbox: when a hosted pi's write or edit sent it, its tool card learns which. */
  noteDiff(diff: DiffSummary): void {
    const toolCallId = REVIEW_TAB.exec(diff.tabName)?.[1];
    if (toolCallId === undefined) return;
    const hasCall = (s: HostedSession) => s.state.transcript.some((i) => i.kind === 'tool' && i.toolCallId === toolCallId);
    const all = [...this.sessions.values()];
    // pi-ide may send the diff before pi reports the tool call: then its door session says whose it is.
    const session = all.find(hasCall) ?? all.find((s) => s.running && s.doorSession !== null && s.doorSession === diff.sessionId);
    if (session === undefined) return;
    session.reviews = { ...session.reviews, [toolCallId]: diff.id };
    this.update(session, noteReview(session.state, toolCallId, diff.id));
    this.remember(session);
    this.options.onEvent(session.id, { type: 'hosted_review', toolCallId, diffId: diff.id });
  }

  /**
   * The agent turn the hosted pi behind a door session is in (its latest run, named by the prompt
   * that started it), or null when no hosted pi is behind it.
   */
  turnFor(doorSessionId: string): AgentTurn | null {
    const session = [...this.sessions.values()].find((s) => s.running && s.doorSession === doorSessionId);
    if (session === undefined || session.turn === 0) return null;
    const prompt = session.state.transcript.findLast((i) => i.kind === 'user');
    const text = prompt?.kind === 'user' ? prompt.text.replace(/\s+/g, ' ').trim() : '';
    const label = text === '' ? `turn ${session.turn}` : `“${text.length > 80 ? `${text.slice(0, 80)}…` : text}”`;
    return { key: `${session.id}#${session.turn}`, label, startedAt: session.turnStartedAt };
  }

  /** The hosted pi behind a door session, if one runs. */
  hostedFor(doorSessionId: string): string | null {
    return [...this.sessions.values()].find((s) => s.running && s.doorSession === doorSessionId)?.id ?? null;
  }

  /**
   * A message for the model that does not start a run: pi queues it as steering, delivered in its
   * current run, or with the next prompt when it is idle.
   */
  async steer(id: string, text: string): Promise<void> {
    await this.command(id, { type: 'steer', message: text });
  }

  async abort(id: string): Promise<void> {
    await this.command(id, { type: 'abort' }, NO_DEADLINE);
  }

  async getState(id: string): Promise<unknown> {
    const data = await this.command(id, { type: 'get_state' });
    this.update(this.get(id), reduceGetState(this.get(id).state, data));
    return data;
  }

  models(id: string): Promise<unknown> {
    return this.command(id, { type: 'get_available_models' });
  }

  async setModel(id: string, provider: string, modelId: string): Promise<HostedView> {
    if (typeof provider !== 'string' || typeof modelId !== 'string' || !provider || !modelId) {
      throw new HubError('pi.setModel: "provider" and "modelId" must be non-empty strings');
    }
    const data = await this.command(id, { type: 'set_model', provider, modelId });
    const session = this.get(id);
    this.update(session, { ...session.state, model: modelName(data) ?? `${provider}/${modelId}` });
    // The thinking level is clamped to what the new model supports.
    await this.getState(id);
    return this.view(session);
  }

  async setThinking(id: string, level: string): Promise<HostedView> {
    if (typeof level !== 'string' || level === '') throw new HubError('pi.setThinking: "level" must be a non-empty string');
    await this.command(id, { type: 'set_thinking_level', level });
    await this.getState(id);
    return this.view(this.get(id));
  }

  async thinkingLevels(id: string): Promise<string[]> {
    const data = await this.command(id, { type: 'get_available_thinking_levels' });
    return isObject(data) && Array.isArray(data.levels) ? data.levels.filter((l): l is string => typeof l === 'string') : [];
  }

  async stats(id: string): Promise<unknown> {
    const data = await this.command(id, { type: 'get_session_stats' });
    const session = this.get(id);
    session.state = { ...session.state, stats: data };
    return data;
  }

  /** What pi offers through `prompt`: its extensions' commands, prompt templates and skills. */
  async commands(id: string): Promise<PiCommandInfo[]> {
    const session = this.get(id);
    session.commands = parseCommands(await this.command(id, { type: 'get_commands' }));
    return session.commands;
  }

  async forkPoints(id: string): Promise<ForkPoint[]> {
    const data = await this.command(id, { type: 'get_fork_messages' });
    const list = isObject(data) && Array.isArray(data.messages) ? data.messages : [];
    return list.flatMap((m) => (isObject(m) && typeof m.entryId === 'string' && typeof m.text === 'string' ? [{ entryId: m.entryId, text: m.text }] : []));
  }

  async fork(id: string, entryId: string): Promise<{ text: string; cancelled: boolean }> {
    const data = await this.command(id, { type: 'fork', entryId });
    const cancelled = isObject(data) && data.cancelled === true;
    const text = isObject(data) && typeof data.text === 'string' ? data.text : '';
    if (!cancelled) await this.sessionReplaced(this.get(id), `Forked into a new session, from before “${oneLine(text)}”`);
    return { text, cancelled };
  }

  async clone(id: string): Promise<{ cancelled: boolean }> {
    return this.replaceSession(id, { type: 'clone' }, 'Cloned into a new session');
  }

  async newSession(id: string): Promise<{ cancelled: boolean }> {
    return this.replaceSession(id, { type: 'new_session' }, 'Started a new session');
  }

  async switchSession(id: string, sessionFile: string): Promise<{ cancelled: boolean }> {
    const session = this.get(id);
    session.live();
    // pi would start a new session at a path that is not one: refuse it rather than create one.
    await sessionHeader(sessionFile).catch((err: Error) => {
      throw new HubError(`pi.switchSession: ${err.message}`, /^no pi session file/.test(err.message) ? 'not-found' : 'invalid');
    });
    const other = this.liveOn(sessionFile, session);
    if (other !== null) throw new HubError(`pi.switchSession: ${sessionFile} is open in hosted pi session ${other.id}; one pi per session file`, 'conflict');
    return this.replaceSession(id, { type: 'switch_session', sessionPath: sessionFile }, `Switched to ${sessionFile}`);
  }

  tree(id: string): Promise<unknown> {
    return this.command(id, { type: 'get_tree' });
  }

  compact(id: string, instructions?: string): Promise<unknown> {
    return this.command(id, { type: 'compact', ...(instructions !== undefined && instructions.trim() !== '' ? { customInstructions: instructions } : {}) }, NO_DEADLINE);
  }

  async setName(id: string, name: string): Promise<void> {
    await this.command(id, { type: 'set_session_name', name });
    const session = this.get(id);
    this.update(session, notice({ ...session.state, sessionName: name.trim() }, 'info', `Named this session “${name.trim()}”`, this.now()));
  }

  async exportHtml(id: string, outputPath?: string): Promise<{ path: string }> {
    const data = await this.command(id, { type: 'export_html', ...(outputPath !== undefined ? { outputPath } : {}) }, NO_DEADLINE);
    const session = this.get(id);
    const written = isObject(data) && typeof data.path === 'string' ? data.path : (outputPath ?? '');
    // pi answers a path of its own choosing relative to the folder it runs in.
    const path = isAbsolute(written) ? written : resolve(session.cwd, written);
    this.update(session, notice(session.state, 'info', `Exported the session to ${path}`, this.now()));
    return { path };
  }

  /** Runs a shell command in pi (`!cmd`); its output streams into a card in the transcript. */
  async bash(id: string, command: string, excludeFromContext = false): Promise<BashResult> {
    const session = this.get(id);
    const client = session.live();
    const sent = client.start({ type: 'bash', command, ...(excludeFromContext ? { excludeFromContext: true } : {}) }, NO_DEADLINE);
    this.update(session, bashStarted(session.state, sent.id, command, excludeFromContext, this.now()));
    this.options.onEvent(id, { type: 'hosted_bash_start', requestId: sent.id, command });
    try {
      const result = asBashResult(await sent.response);
      this.update(session, bashEnded(session.state, sent.id, result));
      return result;
    } catch (err) {
      this.update(session, bashEnded(session.state, sent.id, null));
      throw hubError(err);
    } finally {
      this.options.onEvent(id, { type: 'hosted_bash_end', requestId: sent.id });
    }
  }

  async abortBash(id: string): Promise<void> {
    await this.command(id, { type: 'abort_bash' });
  }

  async clearQueue(id: string): Promise<HostedQueue> {
    const data = await this.command(id, { type: 'clear_queue' });
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);
    return isObject(data) ? { steering: strings(data.steering), followUp: strings(data.followUp) } : { steering: [], followUp: [] };
  }

  async setQueueModes(id: string, modes: { steering?: QueueMode; followUp?: QueueMode }): Promise<void> {
    if (modes.steering !== undefined) await this.command(id, { type: 'set_steering_mode', mode: modes.steering });
    if (modes.followUp !== undefined) await this.command(id, { type: 'set_follow_up_mode', mode: modes.followUp });
    await this.getState(id);
  }

  async setAutoCompaction(id: string, enabled: boolean): Promise<void> {
    await this.command(id, { type: 'set_auto_compaction', enabled });
    await this.getState(id);
  }

  async setAutoRetry(id: string, enabled: boolean): Promise<void> {
    await this.command(id, { type: 'set_auto_retry', enabled });
    // pi does not report it back (get_state has no such field): what Patchbay set is what holds.
    const session = this.get(id);
    this.update(session, { ...session.state, settings: { ...session.state.settings, autoRetry: enabled } });
  }

  async abortRetry(id: string): Promise<void> {
    await this.command(id, { type: 'abort_retry' });
  }

  answer(id: string, requestId: string, answer: DialogAnswer): void {
    const session = this.get(id);
    const dialog = session.state.dialogs.find((d) => d.requestId === requestId);
    if (!dialog) throw new HubError(`pi session ${id} has no dialog ${requestId} waiting (answered, or timed out)`, 'not-found');
    const shape = answerProblem(dialog.method, dialog.options, answer);
    if (shape) throw new HubError(`pi.answer: ${shape}`);
    try {
      session.live().answer(requestId, answer);
    } catch (err) {
      throw hubError(err);
    }
    this.update(session, removeDialog(session.state, requestId));
  }

  /**
   * Stops the pi and forgets the session; with `keep`, the session stays listed (exited), its
   * transcript readable and, with a session file, resumable, until a stop without `keep`.
   */
  async stop(id: string, keep = false): Promise<void> {
    const session = this.get(id);
    if (!keep) return this.discard(session);
    if (!session.running) return;
    session.stopping = true;
    await session.client?.close();
    session.clearTimers();
    this.options.onChange();
    void this.options.onFoldersChanged();
  }

  /** Timers and running pis it holds: 0 once closed. */
  get resources(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.timers.size + (s.client && s.running ? 1 : 0);
    return n;
  }

  /**
   * Pis an earlier core ran (the keeper keeps them through a restart of the core): each goes on
   * under its hosted session, its state and conversation read again from pi (as a resume does);
   * a dialog it still waits on is shown again. A child no session of the store names is stopped.
   */
  async adopt(children: readonly OwnedChild[]): Promise<void> {
    await Promise.all(
      children.map(async (child) => {
        const kept = child.kept as { hosted?: unknown } | null | undefined;
        const hostedId = typeof kept?.hosted === 'string' ? kept.hosted : null;
        const session = hostedId === null ? undefined : this.sessions.get(hostedId);
        if (!session) {
          this.options.log(`pi child ${child.id} (pid ${child.pid}): no hosted session of this Patchbay names it; stopped`);
          child.signal('SIGTERM', true);
          return;
        }
        session.beginRun(this.now());
        this.update(session, { ...initialHostedState(), model: session.state.model ?? session.startModel, sessionFile: session.state.sessionFile, sessionName: session.state.sessionName });
        session.client = this.spawn(session, [], child);
        const client = session.client;
        try {
          const state = await client.request({ type: 'get_state' }, { timeoutMs: this.options.startTimeoutMs });
          session.commands = parseCommands(await client.request({ type: 'get_commands' }));
          session.hasPiIde = session.commands.some((c) => c.name === 'ide' && c.source === 'extension');
          session.doorSession = client.pid === null ? null : this.options.sessionIdForPid(client.pid);
          this.update(session, reduceGetState(session.state, state));
          await this.reloadTranscript(session, 'Patchbay restarted; this pi ran on', true);
          this.options.log(`pi ${session.id}: taken over after the restart (pid ${client.pid}, ${session.review})`);
        } catch (err) {
          this.options.log(`pi ${session.id}: could not be taken over after the restart: ${(err as Error).message}`);
        }
      }),
    );
  }

  /** A graceful restart: the pis run on under the keeper for the next core; nothing here acts any more. */
  detach(): void {
    this.closing ??= Promise.resolve();
    for (const s of this.sessions.values()) s.clearTimers();
  }

  /** Stops every pi; the sessions stay remembered (stopped, resumable) for the next Patchbay. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const all = [...this.sessions.values()];
      for (const s of all) s.stopping = true;
      await Promise.all(all.map((s) => (s.running ? s.client?.close() : undefined)));
      for (const s of all) s.clearTimers();
      this.sessions.clear();
    })();
    return this.closing;
  }

  // ── internals ────────────────────────────────────────────────────────────

  private refuseWhileClosing(): void {
    if (this.closing) throw new HubError('Patchbay is shutting down', 'unavailable');
  }

  /**
   * Starts pi for `session` and reads who it is: its state, its commands (pi-ide's `/ide` among
   * them?) and, when it opened a session that has a conversation, that conversation.
   */
  private async launch(session: HostedSession, args: string[], opts: { resumed?: boolean } = {}): Promise<void> {
    const began = this.now();
    session.beginRun(began);
    // What the start waits for, as it goes, for a person waiting on it (`patchbay pi start`).
    const stage = (name: StartStage, more: Record<string, unknown> = {}): void =>
      this.options.onEvent(session.id, { type: 'hosted_start', stage: name, cwd: session.cwd, ms: this.now() - began, ...more });
    const kept = opts.resumed ? [notice(initialHostedState(), 'info', `Resumed ${session.state.sessionFile ?? 'the session'}`, this.now()).transcript[0]!] : [];
    this.update(session, { ...initialHostedState(), model: session.state.model ?? session.startModel, sessionFile: session.state.sessionFile, sessionName: session.state.sessionName, transcript: kept });
    // Read beside the start: whether pi-ide will come to the door by itself, or needs its /ide.
    const autoconnect = (this.options.autoconnects?.(session.cwd) ?? Promise.resolve(true)).catch(() => true);
    stage('door');
    await this.options.onFoldersChanged();
    this.refuseWhileClosing();
    if (this.sessions.get(session.id) !== session || session.stopping) throw new HubError(`pi session ${session.id} was stopped while starting`, 'conflict');
    session.client = this.spawn(session, args);
    const client = session.client;
    stage('spawned', { pid: client.pid });
    // Both asked at once: pi answers each as soon as it is up, one round trip instead of two.
    const asked = { timeoutMs: this.options.startTimeoutMs };
    const [stateAnswer, commandsAnswer] = [client.request({ type: 'get_state' }, asked), client.request({ type: 'get_commands' }, asked)];
    commandsAnswer.catch(() => {}); // its failure is the state's too, reported by that one
    const state = await stateAnswer;
    stage('ready');
    session.commands = parseCommands(await commandsAnswer);
    // Whether its edits can be reviewed at all: pi-ide brings the `/ide` command.
    session.hasPiIde = session.commands.some((c) => c.name === 'ide' && c.source === 'extension');
    session.doorSession = client.pid === null ? null : this.options.sessionIdForPid(client.pid);
    session.autoconnect = await autoconnect;
    this.update(session, reduceGetState(session.state, state));
    if (isObject(state) && typeof state.messageCount === 'number' && state.messageCount > 0) await this.reloadTranscript(session, undefined, true);
  }

  /** The transcript from pi's own messages (`get_messages`), after the session behind the pi changed. */
  private async reloadTranscript(session: HostedSession, note?: string, keepResumed = false): Promise<void> {
    const data = await session.live().request({ type: 'get_messages' });
    // A resumed session's transcript starts with the line saying so; another session's does not.
    const before = keepResumed ? session.state.transcript.filter((item) => item.kind === 'notice' && item.text.startsWith('Resumed ')) : [];
    let next: HostedState = { ...session.state, transcript: [...before, ...transcriptFromMessages(data, session.reviews)] };
    if (note !== undefined) next = notice(next, 'info', note, this.now());
    this.update(session, next);
    this.options.onEvent(session.id, { type: 'hosted_transcript' });
  }

  /** new_session, clone, switch_session: pi now runs another session file. */
  private async replaceSession(id: string, command: RpcCommand, note: string): Promise<{ cancelled: boolean }> {
    const data = await this.command(id, command);
    const cancelled = isObject(data) && data.cancelled === true;
    if (!cancelled) await this.sessionReplaced(this.get(id), note);
    return { cancelled };
  }

  private async sessionReplaced(session: HostedSession, note: string): Promise<void> {
    try {
      this.update(session, reduceGetState(session.state, await session.live().request({ type: 'get_state' })));
      await this.reloadTranscript(session, note);
    } catch (err) {
      throw hubError(err);
    }
    this.remember(session);
  }

  /** The running session on that file, other than `except`. */
  private liveOn(file: string | null, except?: HostedSession): HostedSession | null {
    if (file === null) return null;
    for (const s of this.sessions.values()) if (s !== except && s.running && s.state.sessionFile === file) return s;
    return null;
  }

  /** Keeps what a later Patchbay needs to list and resume it; a session without a file cannot be resumed. */
  private remember(session: HostedSession): void {
    const memory = this.options.memory;
    if (!memory || this.sessions.get(session.id) !== session) return;
    if (session.state.sessionFile === null) memory.remove(session.id);
    else memory.put(session.record());
  }

  /**
   * After `ideConnectMs` without pi-ide at the door, its `/ide` is run (once per wait); at once
   * where its autoconnect is off, since nothing else will bring it.
   */
  private scheduleIde(session: HostedSession): void {
    const { ideConnectMs } = this.options;
    if (ideConnectMs === null || session.ideTimer !== null || session.review !== 'connecting') return;
    session.ideTimer = session.timers.timeout(session.autoconnect === false ? 0 : ideConnectMs, () => void this.connectIde(session));
  }

  /** Stops the session's pi (if it got that far) and forgets the session; its folder leaves the door. */
  private async discard(session: HostedSession): Promise<void> {
    session.stopping = true;
    if (session.running) await session.client?.close();
    session.clearTimers();
    if (this.sessions.get(session.id) === session) {
      this.sessions.delete(session.id);
      this.options.memory?.remove(session.id);
    }
    this.options.onChange();
    void this.options.onFoldersChanged();
  }

  private get(id: string): HostedSession {
    const session = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (!session) throw new HubError(`no hosted pi session ${JSON.stringify(id)}`, 'not-found');
    return session;
  }

  private async command(id: string, command: RpcCommand, opts?: { timeoutMs?: number | null }): Promise<unknown> {
    const client = this.get(id).live();
    try {
      return await client.request(command, opts);
    } catch (err) {
      throw hubError(err);
    }
  }

  private view(s: HostedSession): HostedView {
    const pid = s.running ? (s.client?.pid ?? null) : null;
    const { status, model, thinkingLevel, exit, dialogs, sessionFile, sessionName, title } = s.state;
    return {
      id: s.id,
      cwd: s.cwd,
      pid,
      status,
      model,
      thinkingLevel,
      startedAt: s.runStartedAt,
      exit,
      sessionId: pid === null ? null : this.options.sessionIdForPid(pid),
      review: s.review,
      pendingDialogs: dialogs.length,
      sessionFile,
      sessionName,
      resumable: status === 'exited' && sessionFile !== null,
      title,
    };
  }

  /** New state; the hub hears of it when what `views()` shows changed, and the memory when what it keeps did. */
  private update(session: HostedSession, next: HostedState): void {
    const before = session.state;
    session.state = next;
    if (next.dialogs !== before.dialogs) session.scheduleExpiry(this.now(), () => this.expire(session));
    const changed = (keys: (keyof HostedState)[]) => keys.some((key) => next[key] !== before[key]);
    if (changed(['sessionFile', 'sessionName', 'model'])) this.remember(session);
    if (changed(['status', 'model', 'thinkingLevel', 'exit', 'sessionFile', 'sessionName', 'title']) || next.dialogs.length !== before.dialogs.length) {
      this.options.onChange();
    }
  }

  private expire(session: HostedSession): void {
    const now = this.now();
    this.update(session, expireDialogs(session.state, now));
    // Timers run on a monotonic clock and may fire a hair before Date.now() reaches the deadline.
    session.scheduleExpiry(now, () => this.expire(session));
  }

  private spawn(session: HostedSession, args: string[], adopt?: OwnedChild): PiRpcClient {
    const { options } = this;
    // Records of an earlier run's pi (one resumed since) are not this run's.
    const current = (): boolean => session.client === client;
    const client: PiRpcClient = new PiRpcClient({
      command: options.command(),
      args,
      cwd: session.cwd,
      env: options.env,
      commandTimeoutMs: options.commandTimeoutMs,
      stopGraceMs: options.stopGraceMs,
      log: options.log,
      ...(options.host ? { host: options.host } : {}),
      meta: { hosted: session.id },
      ...(adopt ? { adopt } : {}),
      onEvent: (event) => current() && this.onEvent(session, event),
      onUiRequest: (request) => current() && this.onUiRequest(session, request),
      onExit: (exit) => current() && this.onExit(session, exit),
    });
    return client;
  }

  private onEvent(session: HostedSession, event: RpcEvent): void {
    if (event.type === 'agent_start') {
      session.turn++;
      session.turnStartedAt = this.now();
    }
    let next = reduceEvent(session.state, event, this.now());
    // Its review may have been seen before pi reported the call.
    const diffId = event.type === 'tool_execution_start' && typeof event.toolCallId === 'string' ? session.reviews[event.toolCallId] : undefined;
    if (diffId !== undefined) next = noteReview(next, event.toolCallId as string, diffId);
    this.update(session, next);
    this.options.onEvent(session.id, event);
    if (event.type === 'agent_settled') void this.afterRun(session);
  }

  /**
   * Token and cost figures follow each run without the face having to ask; and an extension
   * may have moved pi to another session meanwhile.
   */
  private async afterRun(session: HostedSession): Promise<void> {
    const client = session.client;
    if (!client || !session.running) return;
    try {
      const fileBefore = session.state.sessionFile;
      const state = await client.request({ type: 'get_state' });
      this.update(session, reduceGetState(session.state, state));
      if (session.state.sessionFile !== fileBefore && fileBefore !== null) await this.reloadTranscript(session);
      const stats = await client.request({ type: 'get_session_stats' });
      session.state = { ...session.state, stats };
    } catch (err) {
      if (session.running) this.options.log(`pi ${session.id}: state after a run: ${(err as Error).message}`);
    }
  }

  private onUiRequest(session: HostedSession, request: UiRequest): void {
    const choice = isDialog(request) && session.client ? doorChoice(request, this.options.door()) : null;
    // Faces see every request; one Patchbay answers itself says so, so no face asks the person.
    const event = choice === null ? request : { ...request, patchbayAnswer: choice };
    this.options.onEvent(session.id, event as unknown as Record<string, unknown>);
    if (choice !== null && isDialog(request)) {
      session.client!.answer(request.id, { value: choice });
      this.update(session, notice(session.state, 'info', `Patchbay answered "${request.title}" with its door: ${choice}`, this.now()));
      return;
    }
    this.update(session, reduceUiRequest(session.state, request, this.now()));
  }

  /**
   * pi-ide connects when its `/ide` command runs (later versions may also connect by
   * themselves). A hosted pi is Patchbay's own: if it has that command and has not reached
   * the door by itself, Patchbay runs it once, while pi is idle, and answers its dialog
   * with the door (onUiRequest).
   */
  private async connectIde(session: HostedSession): Promise<void> {
    session.ideTimer = null;
    const ready = (): boolean => !session.stopping && session.state.status === 'idle';
    const client = session.client;
    if (!client || !ready() || session.hasPiIde !== true || (client.pid !== null && this.options.sessionIdForPid(client.pid) !== null)) return;
    try {
      this.options.log(`pi ${session.id}: running /ide so its pi-ide reaches the door`);
      await client.request({ type: 'prompt', message: '/ide' }, NO_DEADLINE);
    } catch (err) {
      if (!session.stopping) this.options.log(`pi ${session.id}: could not run /ide: ${(err as Error).message}`);
    }
  }

  private onExit(session: HostedSession, exit: PiExit): void {
    if (!session.running) return;
    session.endedAt = this.now();
    this.update(session, reduceExit(session.state, exit.message, this.now(), session.stopping));
    session.settleWaiters(new PiExitedError('prompt', exit));
    session.clearTimers();
    this.remember(session);
    this.options.onEvent(session.id, { type: 'hosted_exit', code: exit.code, signal: exit.signal, message: exit.message });
    if (!session.stopping) {
      this.options.log(`pi ${session.id}: ${exit.message}`);
      void this.options.onFoldersChanged();
    }
  }
}

async function requireFolder(cwd: string, what: string): Promise<void> {
  const info = await stat(cwd).catch((err: NodeJS.ErrnoException) => {
    throw new HubError(`${what}: cannot use ${cwd}: ${err.code === 'ENOENT' ? 'no such folder' : err.message}`, err.code === 'ENOENT' ? 'not-found' : 'invalid');
  });
  if (!info.isDirectory()) throw new HubError(`${what}: ${cwd} is not a folder`);
}

function oneLine(text: string, max = 60): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function asBashResult(data: unknown): BashResult {
  const d = isObject(data) ? data : {};
  return {
    output: typeof d.output === 'string' ? d.output : '',
    ...(typeof d.exitCode === 'number' ? { exitCode: d.exitCode } : {}),
    cancelled: d.cancelled === true,
    truncated: d.truncated === true,
    ...(typeof d.fullOutputPath === 'string' ? { fullOutputPath: d.fullOutputPath } : {}),
  };
}

/** `get_commands` data as the commands faces list. */
export function parseCommands(data: unknown): PiCommandInfo[] {
  const list = isObject(data) && Array.isArray(data.commands) ? data.commands : [];
  return list.flatMap((c) => {
    if (!isObject(c) || typeof c.name !== 'string' || (c.source !== 'extension' && c.source !== 'prompt' && c.source !== 'skill')) return [];
    return [{ name: c.name, source: c.source, ...(typeof c.description === 'string' && c.description !== '' ? { description: c.description } : {}) }];
  });
}

/** Whether `get_commands` data lists an extension command of that name. */
export function hasExtensionCommand(data: unknown, name: string): boolean {
  return parseCommands(data).some((c) => c.name === name && c.source === 'extension');
}

/** Why an answer does not fit its dialog, or null when it does. */
export function answerProblem(method: string, options: string[] | undefined, answer: DialogAnswer): string | null {
  if (typeof answer !== 'object' || answer === null) return 'the answer must be an object';
  if ('cancelled' in answer) return answer.cancelled === true ? null : '"cancelled" must be true';
  if (method === 'confirm') {
    return 'confirmed' in answer && typeof answer.confirmed === 'boolean' ? null : 'a confirm dialog takes {confirmed: boolean} or {cancelled: true}';
  }
  if (!('value' in answer) || typeof answer.value !== 'string') return `a ${method} dialog takes {value: string} or {cancelled: true}`;
  if (method === 'select' && options && !options.includes(answer.value)) return `"${answer.value}" is not one of the options`;
  return null;
}
