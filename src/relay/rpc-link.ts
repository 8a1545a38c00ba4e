// One JSON-RPC peer over one WebSocket: parses each frame once, dispatches it, and
// correlates the requests Patchbay sends to their responses. Frames that pass through
// unchanged are forwarded as the bytes that arrived, so relaying costs one parse, not a
// parse and a re-serialization (agents send whole files). A big answer to a request that
// asked for it is not even decoded: its big strings stay bytes (LazyText) until read.
import type { Socket } from 'node:net';
import type { RawData, WebSocket } from 'ws';
import {
  classifyMessage,
  errorResponse,
  notification,
  parseFrame,
  request,
  result,
  type RpcId,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
} from '../protocol/jsonrpc.ts';
import { parseLazily } from '../protocol/lazy-json.ts';

/** How many given-up requests' owners are remembered for their late answers. */
const FORGOTTEN_KEPT = 64;
/** Frames from this size on may be read lazily (a whole file in FILE_SAVED). */
export const LAZY_FRAME_BYTES = 1024 * 1024;
/** Strings from this size on stay undecoded in a lazily read frame. */
const LAZY_STRING_BYTES = 64 * 1024;
/** What the traffic log gets of a lazily read frame (it shows the start only). */
const PREVIEW_BYTES = 4096;

/** A frame as it arrived: its bytes (to forward as is) and their text (the start only, for a frame read lazily). */
export interface Frame {
  bytes: Buffer;
  text: string;
}

export interface Reply {
  msg: RpcResponse;
  frame: Frame;
}

export interface LinkHandlers {
  onRequest(msg: RpcRequest, link: RpcLink, frame: Frame): void;
  onNotification(msg: RpcNotification, link: RpcLink, frame: Frame): void;
  /**
   * Every frame both ways, for the traffic inspector. `owner`: whom the request was sent for
   * (relay/request's `owner`), on the request going out and on its answer coming in.
   */
  onFrame?(direction: 'in' | 'out', text: string, message: RpcMessage | null, bytes: number, owner?: unknown): void;
  onClose?(): void;
  /** A frame that is not JSON-RPC; the link has already answered it if it could. */
  onMalformed?(problem: string): void;
}

export class LinkClosedError extends Error {
  constructor(what: string) {
    super(`${what}: connection closed`);
    this.name = 'LinkClosedError';
  }
}

interface Pending {
  resolve(reply: Reply): void;
  reject(err: Error): void;
  /** A big answer may come with its big strings as LazyText (the caller passes it on unread). */
  lazy: boolean;
  owner: unknown;
}

export class RpcLink {
  private nextId = 1;
  private readonly pending = new Map<RpcId, Pending>();
  /** Owners of requests given up on (forget), for their late answers' log entries; the newest few. */
  private readonly forgotten = new Map<RpcId, unknown>();
  private closed = false;
  /** The WebSocket close code, once closed (1005: the peer closed without one). */
  closeCode: number | null = null;

  constructor(
    readonly ws: WebSocket,
    /** Who is on the other end, for messages: "editor nvim (port 4711)". */
    readonly label: string,
    private readonly handlers: LinkHandlers,
    /** Malformed frames get a -32700 answer (agents); editors' are only reported. */
    private readonly answerMalformed = true,
  ) {
    ws.on('message', (data: RawData) => this.receive(toBuffer(data)));
    ws.on('close', (code: number) => {
      this.closeCode = code;
      this.shutdown();
    });
    ws.on('error', () => this.shutdown());
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  private receive(bytes: Buffer): void {
    if (bytes.length >= LAZY_FRAME_BYTES && this.receiveLazily(bytes)) return;
    const text = bytes.toString('utf8');
    const parsed = parseFrame(text);
    const answeredId = parsed.ok && parsed.message.kind === 'response' ? parsed.message.msg.id : null;
    const owner = answeredId === null ? undefined : (this.pending.get(answeredId)?.owner ?? this.forgotten.get(answeredId));
    if (answeredId !== null) this.forgotten.delete(answeredId);
    this.handlers.onFrame?.('in', text, parsed.ok ? parsed.message : null, bytes.length, owner);
    if (!parsed.ok) {
      this.handlers.onMalformed?.(`${this.label}: ${parsed.error.message}`);
      if (this.answerMalformed) this.send(errorResponse(parsed.id, parsed.error.code, parsed.error.message));
      return;
    }
    const message = parsed.message;
    const frame = { bytes, text };
    if (message.kind === 'request') this.handlers.onRequest(message.msg, this, frame);
    else if (message.kind === 'notification') this.handlers.onNotification(message.msg, this, frame);
    else {
      const id = message.msg.id;
      const waiting = id === null ? undefined : this.pending.get(id);
      if (!waiting) {
        this.handlers.onMalformed?.(`${this.label}: response to unknown id ${JSON.stringify(id)}`);
        return;
      }
      this.pending.delete(id!);
      waiting.resolve({ msg: message.msg, frame });
    }
  }

  /**
   * A big answer to a request that asked for one read lazily: true when it was (and is
   * handled). Anything else (a request, a malformed frame) goes the usual way.
   */
  private receiveLazily(bytes: Buffer): boolean {
    if (![...this.pending.values()].some((p) => p.lazy)) return false;
    const value = parseLazily(bytes, LAZY_STRING_BYTES);
    if (value === undefined) return false;
    const parsed = classifyMessage(value);
    if (!parsed.ok || parsed.message.kind !== 'response') return false;
    const msg = parsed.message.msg;
    const waiting = msg.id === null ? undefined : this.pending.get(msg.id);
    if (!waiting?.lazy) return false;
    const frame = { bytes, text: bytes.toString('utf8', 0, PREVIEW_BYTES) };
    this.handlers.onFrame?.('in', frame.text, parsed.message, bytes.length, waiting.owner);
    this.pending.delete(msg.id!);
    waiting.resolve({ msg, frame });
    return true;
  }

  /** Serializes and sends. */
  send(message: RpcRequest | RpcNotification | RpcResponse, owner?: unknown): void {
    this.write(JSON.stringify(message), classify(message), undefined, owner);
  }

  /** Like send, resolving once written: replies that must reach the agent before a close. */
  sendAndWait(message: RpcRequest | RpcNotification | RpcResponse): Promise<void> {
    return new Promise((resolve) => this.write(JSON.stringify(message), classify(message), resolve));
  }

  /** Sends a frame received elsewhere, byte for byte; `sent` runs once it is written (or cannot be). */
  forward(frame: Frame, message: RpcMessage, sent?: () => void, owner?: unknown): void {
    if (!this.isOpen) return sent?.();
    this.handlers.onFrame?.('out', frame.text, message, frame.bytes.length, owner);
    this.corkUntilNextTick();
    this.ws.send(frame.bytes, { binary: false }, sent && (() => sent()));
  }

  private write(text: string, message: RpcMessage, done?: () => void, owner?: unknown): void {
    if (!this.isOpen) return done?.();
    // One encoding: the bytes measured for the log are the bytes ws sends.
    const bytes = Buffer.from(text, 'utf8');
    this.handlers.onFrame?.('out', text, message, bytes.length, owner);
    this.corkUntilNextTick();
    this.ws.send(bytes, { binary: false }, done && (() => done()));
  }

  private corked = false;

  /**
   * Frames sent in one tick leave in one write: an editor's burst of selection_changed
   * costs one syscall, not one each. ws corks around each frame itself; this outer cork
   * (on its socket, which ws does not expose otherwise) holds them until the tick ends.
   */
  private corkUntilNextTick(): void {
    const socket = (this.ws as unknown as { _socket?: Socket })._socket;
    if (this.corked || !socket) return;
    this.corked = true;
    socket.cork();
    process.nextTick(() => {
      this.corked = false;
      socket.uncork();
    });
  }

  respond(id: RpcId, value: unknown): void {
    this.send(result(id, value));
  }

  respondError(id: RpcId | null, code: number, message: string): void {
    this.send(errorResponse(id, code, message));
  }

  notify(method: string, params?: unknown): void {
    this.send(notification(method, params));
  }

  /** Sends a request with an id of Patchbay's own. Rejects if the link closes first. `owner`: see onFrame. */
  request(method: string, params?: unknown, owner?: unknown): { id: RpcId; response: Promise<Reply> } {
    while (this.pending.has(this.nextId)) this.nextId++;
    const id = this.nextId++;
    const response = this.expect(id, false, owner);
    this.send(request(id, method, params), owner);
    return { id, response };
  }

  /**
   * Relays an agent's request. Its own id is kept when free on this link, so the answer can
   * go back byte for byte; `frame` (the request as it arrived) is sent as is when given.
   * `lazyAnswer`: a big answer may hold LazyText strings (see receiveLazily).
   */
  relay(msg: RpcRequest, frame: Frame | null, lazyAnswer = false, owner?: unknown): { id: RpcId; response: Promise<Reply> } {
    // Taken by another request on this link (another session's, on a shared link): a new id.
    if (this.pending.has(msg.id)) return this.request(msg.method, msg.params, owner);
    const response = this.expect(msg.id, lazyAnswer, owner);
    if (frame) this.forward(frame, { kind: 'request', msg }, undefined, owner);
    else this.send(msg, owner);
    return { id: msg.id, response };
  }

  private expect(id: RpcId, lazy = false, owner?: unknown): Promise<Reply> {
    if (!this.isOpen) return Promise.reject(new LinkClosedError(this.label));
    return new Promise<Reply>((resolve, reject) => this.pending.set(id, { resolve, reject, lazy, owner }));
  }

  /** Stop waiting for a response (a deadline passed); a late answer is then reported and dropped. */
  forget(id: RpcId): void {
    const owner = this.pending.get(id)?.owner;
    this.pending.delete(id);
    // A late answer is still logged for whom it was asked (the traffic inspector shows it).
    if (owner !== undefined) {
      this.forgotten.set(id, owner);
      if (this.forgotten.size > FORGOTTEN_KEPT) this.forgotten.delete(this.forgotten.keys().next().value!);
    }
  }

  close(): void {
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.close();
    this.shutdown();
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(new LinkClosedError(this.label));
    this.handlers.onClose?.();
  }
}

/** Answers request `id` on `to` with a reply from the other side: as bytes when nothing changes. */
export function answer(to: RpcLink, id: RpcId, reply: Reply, translate: ((r: RpcResponse) => RpcResponse) | null): void {
  if (!translate && reply.msg.id === id) return to.forward(reply.frame, { kind: 'response', msg: reply.msg });
  to.send({ ...(translate ? translate(reply.msg) : reply.msg), id });
}

function classify(message: RpcRequest | RpcNotification | RpcResponse): RpcMessage {
  if ('method' in message) {
    return 'id' in message && message.id !== undefined
      ? { kind: 'request', msg: message as RpcRequest }
      : { kind: 'notification', msg: message };
  }
  return { kind: 'response', msg: message };
}

/** Binary frames are read as UTF-8 text too: some clients send JSON that way. */
function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
