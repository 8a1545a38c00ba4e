// Patchbay's one link to one editor instance (DESIGN §6): every session bound to the editor
// and Patchbay's own watch (tool list, focus, liveness, suggestions) share it, with requests'
// ids kept apart by the link: each carries an id the link minted, never a session's own.
// VS Code's extension serves one client at a time, so a second link would close the first:
// there is never a second. When another client takes the editor, Patchbay lets it have it
// (said once, shown in status) until an agent needs the editor or a long wait has passed.
import type { EditorLinkState } from '../api/types.ts';
import type { CoreHost } from '../core/host.ts';
import { portAccepting } from '../discovery/liveness.ts';
import { DisposableStore, type Disposable } from '../lifecycle/disposables.ts';
import type { RpcMessage, RpcNotification, RpcRequest } from '../protocol/jsonrpc.ts';
import type { ToolSpec } from '../protocol/mcp.ts';
import { adoptEditorLink, fetchTools, openEditorLink, type LiveEditor } from './editor-link.ts';
import type { Frame, LinkHandlers, RpcLink } from './rpc-link.ts';
import { ThrottledLog } from './throttled-log.ts';
import { editorMeta, type ConnMeta, type EditorMeta } from './conn-meta.ts';
import type { Socket } from 'node:net';

/** A lost link is opened again after this, doubling up to DOWN_RETRY_MAX_MS while it keeps failing. */
export const DOWN_RETRY_FIRST_MS = 1000;
export const DOWN_RETRY_MAX_MS = 30_000;
/** After another client took the editor: the first wait before taking it back unasked, doubling up to the max. */
export const TAKEN_RETRY_FIRST_MS = 60_000;
export const TAKEN_RETRY_MAX_MS = 10 * 60_000;
/** A link that stayed open this long resets the waits (and the "said once" of a takeover). */
const STABLE_MS = 60_000;
/** How long the check of whether the editor still listens may take, after a link closed. */
const STILL_THERE_MS = 500;
/** Frames the link dropped (malformed, answers to ids it did not send) are logged at most once per this. */
const DROPPED_LOG_INTERVAL_MS = 5000;

/** Why a link went away: it could not open, or it closed after opening. */
export type LinkLoss = 'handshake' | 'lost';

/** A link to an editor an earlier core opened, waiting for this core's connection to the editor. */
export interface ParkedLink {
  connId: string;
  socket: Socket;
  /** Bytes the earlier core read but did not consume. */
  head: Buffer;
  meta: EditorMeta;
}

export interface ConnectionDeps {
  version: string;
  /** Who opens the TCP connection (default: this process). */
  host?: CoreHost;
  /** A connection to this editor an earlier core had open (a restart): taken over instead of opening one. */
  parked?(): ParkedLink | null;
  /** Keeps what a next core needs of the link with the host. */
  keep?(connId: string, meta: ConnMeta): void;
  /** A taken-over link is open: what an earlier core asked on it (offers) is waited for here now. */
  onAdopted?(link: RpcLink): void;
  maxFrame(): number;
  onRequest(link: RpcLink, msg: RpcRequest, frame: Frame): void;
  onNotification(link: RpcLink, msg: RpcNotification, frame: Frame): void;
  /** Every frame on the link; `owner` is what the request it belongs to was sent for (a session). */
  onFrame(direction: 'in' | 'out', text: string, message: RpcMessage | null, bytes: number, owner: unknown): void;
  /** The link opened (diffs waiting for this editor can be shown now). */
  onOpened(): void;
  /** The link could not open, or closed by itself: discovery should look at the editor. */
  onLost(how: LinkLoss): void;
  onChange(): void;
  log(message: string): void;
  /** Waits, for tests. */
  retry?: { downFirstMs?: number; downMaxMs?: number; takenFirstMs?: number; takenMaxMs?: number };
}

type State =
  | { kind: 'idle' }
  | { kind: 'opening'; ready: Promise<RpcLink> }
  | { kind: 'open'; link: RpcLink; since: number }
  /** Lost or failed: opened again when the timer fires or an agent needs it. */
  | { kind: 'down'; retry: Disposable; problem: string }
  /** Another client has the editor (it serves one): Patchbay waits for a reason to take it back. */
  | { kind: 'taken'; retry: Disposable; problem: string }
  | { kind: 'closed' };

export class EditorConnection {
  /** The editor's tools, from its answer to `tools/list` (asked again when it says they changed). */
  tools: ToolSpec[] | null = null;
  /** The fetch of `tools` when the link last opened (see toolsSettled). */
  private toolsFetch: Promise<void> | null = null;
  private state: State = { kind: 'idle' };
  private readonly timers = new DisposableStore();
  private downWaitMs: number;
  private takenWaitMs: number;
  /** A takeover was logged and the link has not been stable since: the next one is not logged again. */
  private takenSaid = false;
  /** An agent can make the editor answer ids Patchbay no longer waits for (or send junk): a flood is not logged whole. */
  private readonly dropped: ThrottledLog;

  constructor(
    readonly editor: LiveEditor,
    private readonly deps: ConnectionDeps,
  ) {
    this.downWaitMs = this.waits.downFirstMs;
    this.takenWaitMs = this.waits.takenFirstMs;
    this.dropped = new ThrottledLog((line) => deps.log(line), DROPPED_LOG_INTERVAL_MS, Date.now);
  }

  private get waits(): Required<NonNullable<ConnectionDeps['retry']>> {
    const r = this.deps.retry ?? {};
    return {
      downFirstMs: r.downFirstMs ?? DOWN_RETRY_FIRST_MS,
      downMaxMs: r.downMaxMs ?? DOWN_RETRY_MAX_MS,
      takenFirstMs: r.takenFirstMs ?? TAKEN_RETRY_FIRST_MS,
      takenMaxMs: r.takenMaxMs ?? TAKEN_RETRY_MAX_MS,
    };
  }

  get alive(): boolean {
    return this.state.kind === 'open' && this.state.link.isOpen;
  }

  /** For the snapshot: the link's state, and why there is none when there is none. */
  get view(): { link: EditorLinkState; linkProblem: string | null } {
    const s = this.state;
    if (s.kind === 'open') return { link: 'open', linkProblem: null };
    if (s.kind === 'down' || s.kind === 'taken') return { link: s.kind, linkProblem: s.problem };
    return { link: s.kind === 'opening' ? 'opening' : 'down', linkProblem: null };
  }

  /** Timers and links still held: 0 once closed. */
  get resources(): number {
    return this.timers.size + (this.state.kind === 'open' ? 1 : 0);
  }

  /** The open link, if there is one now. */
  openLink(): RpcLink | null {
    return this.state.kind === 'open' && this.state.link.isOpen ? this.state.link : null;
  }

  /**
   * Resolves once the editor's own tool list is in, or could not be had (fetchTools gives up after
   * the handshake's timeout); at once when it is known or no link is open or opening.
   */
  toolsSettled(): Promise<void> {
    if (this.tools !== null) return Promise.resolve();
    const s = this.state;
    if (s.kind === 'opening') return s.ready.then(() => this.toolsFetch ?? undefined, () => undefined);
    return this.toolsFetch ?? Promise.resolve();
  }

  /** Keeps a link open: opens one unless one is open, opening, waiting to retry, or taken. */
  supervise(): void {
    if (this.state.kind === 'idle') void this.open().catch(() => {});
  }

  /** The link, opened now if need be: an agent needs the editor (even one another client took). */
  link(): Promise<RpcLink> {
    const s = this.state;
    if (s.kind === 'closed') return Promise.reject(new Error(`editor ${this.editor.ideName} (port ${this.editor.port}) is gone`));
    if (s.kind === 'open' && s.link.isOpen) return Promise.resolve(s.link);
    if (s.kind === 'opening') return s.ready;
    return this.open();
  }

  private open(): Promise<RpcLink> {
    const previous = this.state;
    if (previous.kind === 'down' || previous.kind === 'taken') this.timers.release(previous.retry);
    // Assigned once the handshake is done: a close before that is the open failing (below).
    let opened: RpcLink | null = null;
    const handlers: LinkHandlers = {
      onRequest: (msg, link, frame) => this.deps.onRequest(link, msg, frame),
      onNotification: (msg, link, frame) => this.deps.onNotification(link, msg, frame),
      onFrame: (direction, text, message, bytes, owner) => this.deps.onFrame(direction, text, message, bytes, owner),
      onMalformed: (problem) => this.dropped.note(problem),
      onClose: () => opened && void this.lost(opened),
    };
    const parked = this.deps.parked?.() ?? null;
    const linking = parked
      ? Promise.resolve(adoptEditorLink(this.editor, parked, this.deps.maxFrame(), handlers))
      : openEditorLink(this.editor, { name: 'patchbay', version: this.deps.version }, this.deps.maxFrame(), handlers, this.deps.host);
    const ready = linking.then(
      (link) => {
        if (this.state.kind === 'closed') {
          link.close();
          throw new Error(`editor ${this.editor.ideName} (port ${this.editor.port}) is gone`);
        }
        if (!link.isOpen) throw new Error(`${link.label}: closed right after the handshake`);
        opened = link;
        this.keep(link);
        link.onIdsReserved = () => this.keep(link);
        this.state = { kind: 'open', link, since: Date.now() };
        if (parked) this.deps.onAdopted?.(link);
        this.deps.onChange();
        this.deps.onOpened();
        if (this.tools === null) this.toolsFetch = this.fetchTools(link);
        return link;
      },
      (err: Error) => {
        if (this.state.kind !== 'closed') {
          this.deps.log(`editor ${this.editor.ideName} (port ${this.editor.port}): ${err.message}`);
          this.wait('down', err.message);
          this.deps.onLost('handshake');
        }
        throw err;
      },
    );
    this.state = { kind: 'opening', ready };
    this.deps.onChange();
    return ready;
  }

  /**
   * The editor said its tools changed (`notifications/tools/list_changed`: JetBrains' plugin,
   * claude-code-ide.el right after initialize): its list is asked for again. Resolves once the
   * new list is in (or could not be had: the old one stays).
   */
  async refreshTools(): Promise<void> {
    const link = this.openLink();
    if (!link) return;
    const tools = await fetchTools(link).catch((err: Error) => {
      this.deps.log(`${link.label}: its changed tool list could not be read: ${err.message}`);
      return null;
    });
    if (tools && this.openLink() === link) {
      this.tools = tools;
      this.deps.onChange();
    }
  }

  /** What a next core needs of the link, with the host. */
  private keep(link: RpcLink): void {
    if (link.connId !== null) this.deps.keep?.(link.connId, editorMeta(this.editor, link.ws.protocol, link.idsReserved));
  }

  private async fetchTools(link: RpcLink): Promise<void> {
    const tools = await fetchTools(link).catch((err: Error) => {
      this.deps.log(`${link.label}: no tool list: ${err.message}`);
      return null;
    });
    if (tools && this.tools === null) {
      this.tools = tools;
      this.deps.onChange();
    }
  }

  /**
   * The open link closed without Patchbay closing it. A close without a code while the editor
   * still listens is another client taking it (VS Code serves one); anything else is a loss.
   */
  private async lost(link: RpcLink): Promise<void> {
    const s = this.state;
    if (s.kind !== 'open' || s.link !== link) return; // closed on purpose, or already replaced
    if (Date.now() - s.since >= STABLE_MS) {
      this.downWaitMs = this.waits.downFirstMs;
      this.takenWaitMs = this.waits.takenFirstMs;
      this.takenSaid = false;
    }
    this.state = { kind: 'idle' };
    const taken = link.closeCode === 1005 && (await portAccepting(this.editor.port, STILL_THERE_MS));
    if (this.state.kind !== 'idle') return; // opened again meanwhile (an agent needed it), or closed
    if (taken) {
      const problem = `another client took its connection (it serves one client at a time); Patchbay connects again when an agent needs it`;
      if (!this.takenSaid) this.deps.log(`editor ${this.editor.ideName} (port ${this.editor.port}): ${problem}`);
      this.takenSaid = true;
      this.wait('taken', problem);
      this.deps.onChange();
      return;
    }
    this.wait('down', 'its connection closed');
    this.deps.onLost('lost');
    this.deps.onChange();
  }

  /** Waits before opening again, doubling the wait each time. */
  private wait(kind: 'down' | 'taken', problem: string): void {
    const waits = this.waits;
    const ms = kind === 'down' ? this.downWaitMs : this.takenWaitMs;
    if (kind === 'down') this.downWaitMs = Math.min(ms * 2, waits.downMaxMs);
    else this.takenWaitMs = Math.min(ms * 2, waits.takenMaxMs);
    const retry = this.timers.timeout(ms, () => {
      if (this.state.kind === kind) void this.open().catch(() => {});
    });
    this.state = { kind, retry, problem };
  }

  /** The editor went away or Patchbay stops. Safe to call twice. */
  close(): void {
    const s = this.state;
    this.state = { kind: 'closed' };
    this.timers.dispose();
    if (s.kind === 'open') s.link.close();
  }
}
