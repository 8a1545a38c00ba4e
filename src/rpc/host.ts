// The hosted pi sessions Patchbay started: each is one `pi --mode rpc` child (PiRpcClient) and
// the state its records build (hosted.ts). The host turns HubApi's pi.* commands into RPC
// commands, keeps dialogs and their deadlines, and tells the hub when something changed.
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import type { DialogAnswer, HostedDetail, HostedView } from '../api/types.ts';
import { HubError } from '../api/types.ts';
import { DisposableStore, type Disposable } from '../lifecycle/disposables.ts';
import { PiCommandError, PiExitedError, PiRpcClient, type PiExit } from './client.ts';
import {
  expireDialogs,
  initialHostedState,
  modelName,
  nextDialogExpiry,
  notice,
  reduceEvent,
  reduceExit,
  reduceGetState,
  reduceUiRequest,
  removeDialog,
  reviewState,
  type HostedState,
} from './hosted.ts';
import { doorChoice, type DoorAddress } from './ide-dialog.ts';
import { isDialog, type RpcCommand, type RpcEvent, type UiRequest } from './protocol.ts';

export interface PiHostOptions {
  /** The pi program and its leading arguments (`['pi']`, or `[node, cli.js]`), read at each start: a setting can change it. */
  command(): readonly string[];
  /** The children's environment (the hub adds `PI_IDE_LOCK_DIR`). */
  env: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  commandTimeoutMs: number;
  stopGraceMs: number;
  /** How long a new pi gets to reach the door by itself before its `/ide` is run (null: never). */
  ideConnectMs: number | null;
  /** How long a prompt to a pi whose pi-ide is not at the door yet waits for it before it is refused. */
  reviewWaitMs: number;
  /** Every record pi sends, raw, plus `{type:"hosted_exit", message}` when it exits. */
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
}

export interface StartRequest {
  cwd: string;
  model?: string;
  args?: string[];
}

/** pi's own `abort` waits until the run is idle; a prompt of an extension command waits for the command. */
const NO_DEADLINE = { timeoutMs: null };

function hubError(err: unknown): HubError {
  if (err instanceof HubError) return err;
  if (err instanceof PiCommandError) return new HubError(err.message, 'invalid');
  if (err instanceof PiExitedError) return new HubError(err.message, 'unavailable');
  return new HubError(err instanceof Error ? err.message : String(err), 'unavailable');
}

class HostedSession {
  state: HostedState = initialHostedState();
  client: PiRpcClient | null = null;
  stopping = false;
  /** Whether pi lists pi-ide's `/ide` command (null until asked, as it starts). */
  hasPiIde: boolean | null = null;
  /** The door session its pi-ide opened, while it is connected. */
  doorSession: string | null = null;
  /** Prompts held until its pi-ide reaches the door (or pi exits). */
  readonly reviewWaiters = new Set<{ ready(): void; failed(err: Error): void }>();
  /** Its timers (dialog expiry, the pi-ide connection wait), released when it ends. */
  readonly timers = new DisposableStore();
  private expiry: Disposable | null = null;
  ideTimer: Disposable | null = null;

  constructor(
    readonly id: string,
    readonly cwd: string,
    readonly startedAt: number,
  ) {}

  /** Re-arms the one timer that drops dialogs pi has resolved by timeout. */
  scheduleExpiry(now: number, onExpire: () => void): void {
    if (this.expiry) this.timers.release(this.expiry);
    this.expiry = null;
    const next = nextDialogExpiry(this.state);
    if (next === null) return;
    this.expiry = this.timers.timeout(Math.max(0, next - now), onExpire);
  }

  clearTimers(): void {
    this.timers.dispose();
    this.expiry = null;
    this.ideTimer = null;
  }

  get review() {
    return reviewState(this.hasPiIde, this.doorSession);
  }

  /** Wakes the prompts held for review: all go once it is no longer connecting; all fail with `err`. */
  settleWaiters(err?: Error): void {
    if (!err && this.review === 'connecting') return;
    for (const waiter of [...this.reviewWaiters]) (err ? waiter.failed(err) : waiter.ready());
    this.reviewWaiters.clear();
  }

  live(): PiRpcClient {
    if (!this.client) throw new HubError(`pi session ${this.id} has not started yet`, 'unavailable');
    if (this.state.status === 'exited') throw new HubError(`pi session ${this.id} has exited: ${this.state.exit}`, 'unavailable');
    return this.client;
  }
}

export class PiHost {
  private readonly sessions = new Map<string, HostedSession>();
  private readonly now: () => number;
  private closing: Promise<void> | null = null;

  constructor(private readonly options: PiHostOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Folders of the sessions that are starting or running. */
  folders(): string[] {
    return [...this.sessions.values()].filter((s) => s.state.status !== 'exited').map((s) => s.cwd);
  }

  pids(): Set<number> {
    const pids = new Set<number>();
    for (const s of this.sessions.values()) if (s.client?.pid != null) pids.add(s.client.pid);
    return pids;
  }

  views(): HostedView[] {
    return [...this.sessions.values()].map((s) => this.view(s));
  }

  async start(request: StartRequest): Promise<HostedView> {
    if (this.closing) throw new HubError('Patchbay is shutting down', 'unavailable');
    const { cwd, model, args = [] } = request;
    if (typeof cwd !== 'string' || !isAbsolute(cwd)) throw new HubError(`pi.start: "cwd" must be an absolute path, got ${JSON.stringify(cwd)}`);
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new HubError('pi.start: "args" must be a list of strings');
    if (model !== undefined && (typeof model !== 'string' || model.trim() === '')) throw new HubError('pi.start: "model" must be a non-empty string');
    const info = await stat(cwd).catch((err: NodeJS.ErrnoException) => {
      throw new HubError(`pi.start: cannot use ${cwd}: ${err.code === 'ENOENT' ? 'no such folder' : err.message}`);
    });
    if (!info.isDirectory()) throw new HubError(`pi.start: ${cwd} is not a folder`);

    const session = new HostedSession(`pi-${randomBytes(4).toString('hex')}`, cwd, this.now());
    this.sessions.set(session.id, session);
    this.options.onChange();
    try {
      await this.options.onFoldersChanged();
      if (this.closing) throw new HubError('Patchbay is shutting down', 'unavailable');
      if (!this.sessions.has(session.id)) throw new HubError(`pi session ${session.id} was stopped while starting`, 'conflict');
      session.client = this.spawn(session, [...(model !== undefined ? ['--model', model] : []), ...args]);
      const state = await session.client.request({ type: 'get_state' }, { timeoutMs: this.options.startTimeoutMs });
      // Whether its edits can be reviewed at all: pi-ide brings the `/ide` command.
      session.hasPiIde = hasExtensionCommand(await session.client.request({ type: 'get_commands' }), 'ide');
      session.doorSession = session.client.pid === null ? null : this.options.sessionIdForPid(session.client.pid);
      this.update(session, reduceGetState(session.state, state));
    } catch (err) {
      await this.discard(session);
      throw hubError(err);
    }
    this.options.log(`pi ${session.id}: started in ${cwd} (pid ${session.client.pid}, ${session.review})`);
    this.scheduleIde(session);
    return this.view(session);
  }

  /**
   * Holds a prompt while the pi's pi-ide is not at the door: sent now, its edits would be
   * written unreviewed. Refused if pi-ide does not arrive in time.
   */
  private async untilReviewed(session: HostedSession, command: string): Promise<void> {
    if (session.review !== 'connecting' || session.state.status === 'exited' || session.client === null) return;
    const waitMs = this.options.reviewWaitMs;
    await new Promise<void>((resolve, reject) => {
      const timer = session.timers.timeout(waitMs, () => {
        session.reviewWaiters.delete(waiter);
        reject(
          new HubError(
            `${command}: pi session ${session.id}: its pi-ide has not reached Patchbay's door within ${Math.round(waitMs / 1000)} s, ` +
              'so its edits would be written without review; the prompt was not sent. ' +
              "Check that pi can see Patchbay's lockfile (patchbay status lists the door), or run /ide in that pi",
            'unavailable',
          ),
        );
      });
      const waiter = {
        ready: () => {
          session.timers.release(timer);
          resolve();
        },
        failed: (err: Error) => {
          session.timers.release(timer);
          reject(hubError(err));
        },
      };
      session.reviewWaiters.add(waiter);
    });
  }

  /** After `ideConnectMs` without pi-ide at the door, its `/ide` is run (once per wait). */
  private scheduleIde(session: HostedSession): void {
    const { ideConnectMs } = this.options;
    if (ideConnectMs === null || session.ideTimer !== null || session.review !== 'connecting') return;
    session.ideTimer = session.timers.timeout(ideConnectMs, () => void this.connectIde(session));
  }

  detail(id: string): HostedDetail {
    const session = this.get(id);
    const { transcript, dialogs, statusLines, stats } = session.state;
    return { ...this.view(session), transcript, dialogs, statusLines, stats };
  }

  async prompt(id: string, text: string, streamingBehavior?: 'steer' | 'followUp'): Promise<void> {
    if (typeof text !== 'string' || text.trim() === '') throw new HubError('pi.prompt: "text" must not be empty');
    if (streamingBehavior !== undefined && streamingBehavior !== 'steer' && streamingBehavior !== 'followUp') {
      throw new HubError(`pi.prompt: "streamingBehavior" must be "steer" or "followUp", got ${JSON.stringify(streamingBehavior)}`);
    }
    // `/ide` is how pi-ide reaches the door: it must not wait for itself.
    if (!/^\/ide(\s|$)/.test(text.trim())) await this.untilReviewed(this.get(id), 'pi.prompt');
    const command: RpcCommand = { type: 'prompt', message: text, ...(streamingBehavior ? { streamingBehavior } : {}) };
    await this.command(id, command, NO_DEADLINE);
  }

  /**
   * The door's sessions changed: a hosted pi's pi-ide may have arrived (its held prompts go)
   * or left (it never reconnects by itself, so its `/ide` is run again).
   */
  doorSessionsChanged(): void {
    for (const session of this.sessions.values()) {
      const pid = session.client?.pid ?? null;
      if (pid === null || session.state.status === 'exited') continue;
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

  async stats(id: string): Promise<unknown> {
    const data = await this.command(id, { type: 'get_session_stats' });
    const session = this.get(id);
    session.state = { ...session.state, stats: data };
    return data;
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
   * Stops the pi and forgets the session; with `keep`, a session whose pi had started stays
   * listed as exited, its transcript readable, until a stop without `keep` removes it.
   */
  async stop(id: string, keep = false): Promise<void> {
    const session = this.get(id);
    if (!keep || session.client === null) return this.discard(session);
    session.stopping = true;
    await session.client.close();
    session.clearTimers();
    this.options.onChange();
    void this.options.onFoldersChanged();
  }

  /** Timers and running pis it holds: 0 once closed. */
  get resources(): number {
    let n = 0;
    for (const s of this.sessions.values()) n += s.timers.size + (s.client && s.state.status !== 'exited' ? 1 : 0);
    return n;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const all = [...this.sessions.values()];
      for (const s of all) s.stopping = true;
      await Promise.all(all.map((s) => s.client?.close()));
      for (const s of all) s.clearTimers();
      this.sessions.clear();
    })();
    return this.closing;
  }

  // ── internals ────────────────────────────────────────────────────────────

  /** Stops the session's pi (if it got that far) and forgets the session; its folder leaves the door. */
  private async discard(session: HostedSession): Promise<void> {
    session.stopping = true;
    await session.client?.close();
    session.clearTimers();
    this.sessions.delete(session.id);
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
    const pid = s.client?.pid ?? null;
    return {
      id: s.id,
      cwd: s.cwd,
      pid,
      status: s.state.status,
      model: s.state.model,
      thinkingLevel: s.state.thinkingLevel,
      startedAt: s.startedAt,
      exit: s.state.exit,
      sessionId: pid === null || s.state.status === 'exited' ? null : this.options.sessionIdForPid(pid),
      review: s.review,
      pendingDialogs: s.state.dialogs.length,
    };
  }

  /** New state; the hub hears of it when what `views()` shows changed. */
  private update(session: HostedSession, next: HostedState): void {
    const before = session.state;
    session.state = next;
    if (next.dialogs !== before.dialogs) session.scheduleExpiry(this.now(), () => this.expire(session));
    if (
      next.status !== before.status ||
      next.model !== before.model ||
      next.thinkingLevel !== before.thinkingLevel ||
      next.dialogs.length !== before.dialogs.length ||
      next.exit !== before.exit
    ) {
      this.options.onChange();
    }
  }

  private expire(session: HostedSession): void {
    const now = this.now();
    this.update(session, expireDialogs(session.state, now));
    // Timers run on a monotonic clock and may fire a hair before Date.now() reaches the deadline.
    session.scheduleExpiry(now, () => this.expire(session));
  }

  private spawn(session: HostedSession, args: string[]): PiRpcClient {
    const { options } = this;
    return new PiRpcClient({
      command: options.command(),
      args,
      cwd: session.cwd,
      env: options.env,
      commandTimeoutMs: options.commandTimeoutMs,
      stopGraceMs: options.stopGraceMs,
      log: options.log,
      onEvent: (event) => this.onEvent(session, event),
      onUiRequest: (request) => this.onUiRequest(session, request),
      onExit: (exit) => this.onExit(session, exit),
    });
  }

  private onEvent(session: HostedSession, event: RpcEvent): void {
    this.update(session, reduceEvent(session.state, event, this.now()));
    this.options.onEvent(session.id, event);
    if (event.type === 'agent_settled') void this.refreshStats(session);
  }

  /** Token and cost figures follow each run without the face having to ask. */
  private async refreshStats(session: HostedSession): Promise<void> {
    if (!session.client || session.state.status === 'exited') return;
    try {
      const data = await session.client.request({ type: 'get_session_stats' });
      session.state = { ...session.state, stats: data };
    } catch (err) {
      if (session.state.status !== 'exited') this.options.log(`pi ${session.id}: stats after a run: ${(err as Error).message}`);
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
    this.update(session, reduceExit(session.state, exit.message, this.now(), session.stopping));
    session.settleWaiters(new PiExitedError('prompt', exit));
    session.clearTimers();
    this.options.onEvent(session.id, { type: 'hosted_exit', code: exit.code, signal: exit.signal, message: exit.message });
    if (!session.stopping) {
      this.options.log(`pi ${session.id}: ${exit.message}`);
      void this.options.onFoldersChanged();
    }
  }
}

/** Whether `get_commands` data lists an extension command of that name. */
export function hasExtensionCommand(data: unknown, name: string): boolean {
  const commands = (data as { commands?: unknown } | null)?.commands;
  return (
    Array.isArray(commands) &&
    commands.some((c) => typeof c === 'object' && c !== null && (c as { name?: unknown }).name === name && (c as { source?: unknown }).source === 'extension')
  );
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
