// Patchbay's own link to one editor: its tool list, focus (selection_changed) and liveness.
// It is kept only while no session has a link to the editor: every link gets a copy of each
// selection_changed, so a spare one would double the editor's work.
import { DisposableStore, type Disposable } from '../lifecycle/disposables.ts';
import type { RpcNotification, RpcRequest } from '../protocol/jsonrpc.ts';
import type { ToolSpec } from '../protocol/mcp.ts';
import { fetchTools, openEditorLink, type LiveEditor } from './editor-link.ts';
import type { Frame, RpcLink } from './rpc-link.ts';

/** After a monitor link is lost, it is opened again this long after (if still needed). */
export const MONITOR_RETRY_MS = 1000;
/** How long the monitor stays once a session has a link of its own. */
export const MONITOR_RETIRE_MS = 1000;

export interface MonitorDeps {
  version: string;
  maxFrame(): number;
  /** Open links sessions have to this editor instance now. */
  sessionLinks(): number;
  /** Requests of the editor's that still wait for an agent's answer on this link. */
  waiting(link: RpcLink): number;
  onRequest(link: RpcLink, msg: RpcRequest, frame: Frame): void;
  onCancel(link: RpcLink, msg: RpcNotification): void;
  onFocus(): void;
  /** The link failed: discovery should check the editor now. */
  onSuspect(): void;
  onChange(): void;
  log(message: string): void;
}

type State =
  | { kind: 'idle' }
  | { kind: 'opening' }
  | { kind: 'open'; link: RpcLink; retiring: Disposable | null }
  /** Being closed on purpose: a session link took over. */
  | { kind: 'retired' }
  | { kind: 'closed' };

export class EditorMonitor {
  /** The editor's tools, from its first answer to `tools/list`. */
  tools: ToolSpec[] | null = null;
  private state: State = { kind: 'idle' };
  private readonly timers = new DisposableStore();

  constructor(
    readonly editor: LiveEditor,
    private readonly deps: MonitorDeps,
  ) {}

  /** Read through a getter: the state changes while `open` awaits. */
  private get closed(): boolean {
    return this.state.kind === 'closed';
  }

  get alive(): boolean {
    return this.state.kind === 'open' && this.state.link.isOpen;
  }

  /** Timers and links still held: 0 once closed. */
  get resources(): number {
    return this.timers.size + (this.state.kind === 'open' ? 1 : 0);
  }

  /** Keeps exactly one kind of watch on the editor: this link only while no session has one. */
  supervise(): void {
    const shared = this.deps.sessionLinks() > 0;
    const state = this.state;
    if (state.kind === 'open' && shared && this.tools !== null && state.retiring === null) {
      // Not at once: the editor may have just picked this link for a request (it picks any
      // client), and its answer and cancellation travel on the same link.
      state.retiring = this.timers.timeout(MONITOR_RETIRE_MS, () => this.retire(state));
    } else if ((state.kind === 'idle' || state.kind === 'retired') && !shared) {
      void this.open();
    }
  }

  private retire(from: Extract<State, { kind: 'open' }>): void {
    from.retiring = null;
    if (this.state !== from || this.deps.sessionLinks() === 0) return;
    if (this.deps.waiting(from.link) > 0) return; // settling a request calls supervise again
    this.state = { kind: 'retired' };
    from.link.close();
  }

  private async open(): Promise<void> {
    this.state = { kind: 'opening' };
    // Assigned once the handshake is done: a close before that is the open failing (below).
    let opened: RpcLink | null = null;
    try {
      const link = await openEditorLink(this.editor, { name: 'patchbay', version: this.deps.version }, this.deps.maxFrame(), {
        onRequest: (msg, link, frame) => this.deps.onRequest(link, msg, frame),
        onNotification: (msg, link) => {
          if (msg.method === 'request_cancelled') this.deps.onCancel(link, msg);
          else if (msg.method === 'selection_changed') this.deps.onFocus();
        },
        onMalformed: (problem) => this.deps.log(problem),
        onClose: () => opened && this.lost(opened),
      });
      if (this.closed) return link.close();
      if (!link.isOpen) throw new Error(`${link.label}: closed right after the handshake`);
      opened = link;
      const open: State = { kind: 'open', link, retiring: null };
      this.state = open;
      this.deps.onChange();
      this.tools ??= await fetchTools(link).catch((err: Error) => {
        this.deps.log(`${link.label}: no tool list: ${err.message}`);
        return null;
      });
      if (this.state !== open) return;
      this.deps.onChange();
      this.supervise();
    } catch (err) {
      this.deps.log(`monitor for ${this.editor.ideName} (port ${this.editor.port}): ${(err as Error).message}`);
      if (this.closed) return;
      this.state = { kind: 'idle' };
      this.deps.onSuspect();
    }
  }

  private lost(link: RpcLink): void {
    const state = this.state;
    if (state.kind !== 'open' || state.link !== link) return; // retired or closed on purpose
    if (state.retiring) this.timers.release(state.retiring);
    this.state = { kind: 'idle' };
    this.deps.onSuspect();
    this.deps.onChange();
    this.timers.timeout(MONITOR_RETRY_MS, () => {
      if (this.state.kind === 'idle') this.supervise();
    });
  }

  /** The editor went away or Patchbay stops. Safe to call twice. */
  close(): void {
    const state = this.state;
    this.state = { kind: 'closed' };
    this.timers.dispose();
    if (state.kind === 'open') state.link.close();
  }
}
