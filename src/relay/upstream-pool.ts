// One session's connections to editors (DESIGN §6): one per editor instance, opened on first
// use, so the editor sees each agent as its own client, exactly as without Patchbay.
import type { RpcMessage, RpcNotification, RpcRequest } from '../protocol/jsonrpc.ts';
import { openEditorLink, type LiveEditor } from './editor-link.ts';
import type { Frame, RpcLink } from './rpc-link.ts';

export interface UpstreamEvents {
  onRequest(editor: LiveEditor, link: RpcLink, msg: RpcRequest, frame: Frame): void;
  onNotification(editor: LiveEditor, link: RpcLink, msg: RpcNotification, frame: Frame): void;
  onFrame(editor: LiveEditor, direction: 'in' | 'out', text: string, message: RpcMessage | null, bytes: number): void;
  onMalformed(problem: string): void;
  /** A link to this editor opened. */
  onOpened(editor: LiveEditor): void;
  /** A link to this editor failed to open (`failed`) or closed after it had opened. */
  onClosed(editor: LiveEditor, how: 'failed' | 'closed'): void;
}

interface Upstream {
  editor: LiveEditor;
  /** Set once open. */
  link: RpcLink | null;
  ready: Promise<RpcLink>;
}

export class UpstreamPool {
  /** By editor id. */
  private readonly upstreams = new Map<string, Upstream>();
  private closed = false;

  constructor(
    private readonly clientInfo: () => { name: string; version: string },
    private readonly maxFrame: () => number,
    private readonly events: UpstreamEvents,
  ) {}

  /** The link to this editor instance, opened on first use; a restarted editor gets a new one. */
  linkTo(editor: LiveEditor): Promise<RpcLink> {
    if (this.closed) return Promise.reject(new Error(`editor ${editor.id}: the session has closed`));
    const existing = this.upstreams.get(editor.id);
    if (existing && existing.editor.port === editor.port && (existing.link === null || existing.link.isOpen)) return existing.ready;
    existing?.link?.close();
    // Assigned before any of the callbacks below can run (opening is asynchronous).
    let upstream: Upstream | undefined;
    const forget = (): void => {
      if (this.upstreams.get(editor.id) === upstream) this.upstreams.delete(editor.id);
    };
    const ready = openEditorLink(editor, this.clientInfo(), this.maxFrame(), {
      onRequest: (msg, link, frame) => this.events.onRequest(editor, link, msg, frame),
      onNotification: (msg, link, frame) => this.events.onNotification(editor, link, msg, frame),
      onFrame: (direction, text, message, bytes) => this.events.onFrame(editor, direction, text, message, bytes),
      onMalformed: (problem) => this.events.onMalformed(problem),
      onClose: () => {
        forget();
        this.events.onClosed(editor, 'closed');
      },
    }).then((link) => {
      upstream!.link = link;
      if (this.closed) link.close();
      else this.events.onOpened(editor);
      return link;
    });
    ready.catch(() => {
      forget();
      this.events.onClosed(editor, 'failed');
    });
    upstream = { editor, link: null, ready };
    this.upstreams.set(editor.id, upstream);
    return ready;
  }

  /** The open link to this editor instance, if there is one now. */
  openLink(editor: LiveEditor): RpcLink | null {
    const up = this.upstreams.get(editor.id);
    return up?.link?.isOpen && up.editor.port === editor.port ? up.link : null;
  }

  /** The open link to an editor by id, whichever instance it reaches. */
  openLinkById(editorId: string): RpcLink | null {
    const link = this.upstreams.get(editorId)?.link;
    return link?.isOpen ? link : null;
  }

  /** Links to editors other than `keep` close once nothing waits on them. */
  prune(keep: string | null): void {
    for (const [editorId, up] of this.upstreams) {
      if (editorId !== keep && up.link && up.link.inFlight === 0) {
        this.upstreams.delete(editorId);
        up.link.close();
      }
    }
  }

  /** This editor instance went away: its link closes now. */
  drop(editor: LiveEditor): void {
    const up = this.upstreams.get(editor.id);
    if (!up || up.editor.port !== editor.port) return;
    this.upstreams.delete(editor.id);
    up.link?.close();
  }

  /** Closes every link; links still opening close as they open. Safe to call twice. */
  close(): void {
    this.closed = true;
    for (const up of this.upstreams.values()) up.link?.close();
    this.upstreams.clear();
  }

  get size(): number {
    return this.upstreams.size;
  }
}
