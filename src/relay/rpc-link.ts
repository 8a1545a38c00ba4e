// One JSON-RPC peer over one WebSocket: parses each frame once, dispatches it, and
// correlates the requests Patchbay sends to their responses. Frames that pass through
// unchanged are forwarded as the bytes that arrived, so relaying costs one parse, not a
// parse and a re-serialization (agents send whole files). A big answer to a request that
// asked for it, or a big request its handler takes so, is not even decoded: its big strings
// stay bytes (LazyText) until read, and are sent on as those bytes.
import type { Socket } from 'node:net';
import type { RawData, WebSocket } from 'ws';
import {
  classifyMessage,
  errorResponse,
  notification,
  parseFrame,
  request,
  result,
  routedOnly,
  type RpcId,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
} from '../protocol/jsonrpc.ts';
import { encodeJsonPieces, LazyText, parseLazily } from '../protocol/lazy-json.ts';

/** Frames from this size on may be read lazily (a whole file in FILE_SAVED). */
export const LAZY_FRAME_BYTES = 1024 * 1024;
/** Strings from this size on stay undecoded in a lazily read frame. */
const LAZY_STRING_BYTES = 64 * 1024;
/** What the traffic log gets of a lazily read frame (it shows the start only). */
const PREVIEW_BYTES = 4096;
/** How many given-up requests' owners are remembered for their late answers. */
const FORGOTTEN_KEPT = 64;
/** Ids are reserved this many at a time for a core that may follow on the same connection (see onIdsReserved). */
export const ID_BLOCK = 1000;

/** A frame as it arrived: its bytes (to forward as is) and their text (the start only, for a frame read lazily). */
export interface Frame {
  bytes: Buffer;
  text: string;
}

/**
 * A frame made here around big strings still in other frames (encodeJsonPieces): its pieces
 * are sent as the fragments of one message, so a whole file is never copied into a new buffer.
 */
export interface PiecedFrame {
  pieces: Buffer[];
  text: string;
}

/** What forward and relay send: a frame as it arrived, or one in pieces. */
export type OutFrame = Frame | PiecedFrame;

function sizeOf(pieces: readonly Buffer[]): number {
  let n = 0;
  for (const piece of pieces) n += piece.length;
  return n;
}

export interface Reply {
  msg: RpcResponse;
  frame: Frame;
}

export interface LinkHandlers {
  /**
   * Whether a big request may reach onRequest with its big strings as LazyText (the handler
   * then never decodes what it only passes on). Default: never; the request is parsed whole.
   */
  takesLazily?(msg: RpcRequest): boolean;
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
  /** A big string the answer is expected to hold (the file an editor saves unchanged): see parseLazily. */
  expected?: LazyText | undefined;
  /** When waiting stops (Date.now()), and what the request was, for the error then. */
  deadline?: { at: number; ms: number; what: string } | undefined;
  owner: unknown;
  held: boolean;
}

/** How a request's answer is read: lazily (a big one), and which big string it likely holds. */
export interface AnswerReading {
  lazyAnswer?: boolean;
  expected?: LazyText | undefined;
  /**
   * Stop waiting after this long (the request is forgotten and the response rejects with
   * "<what>: no answer within <ms> ms"). One timer per link serves every deadline: a call
   * costs no timer of its own (getDiagnostics has one before every model call).
   */
  deadline?: { ms: number; what: string } | undefined;
  /** Whom the request is sent for (see LinkHandlers.onFrame). */
  owner?: unknown;
  /**
   * Its answer waits on a person (an openDiff): a handover to the next core does not wait for
   * it, and that core waits for it instead (expectAnswer).
   */
  held?: boolean;
}

/** How a message is sent: `lazy`, it holds LazyText strings, sent as the bytes they arrived in; `owner`, see onFrame. */
export interface SendOptions {
  lazy?: boolean;
  owner?: unknown;
}

export class RpcLink {
  private nextId = 1;
  private readonly pending = new Map<RpcId, Pending>();
  /** Owners of requests given up on (forget, a deadline), for their late answers' log entries; the newest few. */
  private readonly forgotten = new Map<RpcId, unknown>();
  private closed = false;
  /** The WebSocket close code, once closed (1005: the peer closed without one). */
  closeCode: number | null = null;
  /** The host's name for the connection under it (core/host.ts), once known. */
  connId: string | null = null;
  /**
   * Hears each new block of ids this link may use: a core that takes the connection over after
   * this one (a restart, a crash) starts above it, so an answer to an old request is never
   * taken for the answer to a new one.
   */
  onIdsReserved: ((until: number) => void) | null = null;
  private reservedUntil = 0;

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
    const routed = routedOnly(text);
    if (routed) {
      this.handlers.onFrame?.('in', text, { kind: 'notification', msg: routed }, bytes.length);
      return this.handlers.onNotification(routed, this, { bytes, text });
    }
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
   * A big answer to a request that asked for one, or a big request its handler takes, read
   * lazily: true when it was (and is handled). Anything else (a malformed frame, a message
   * nobody takes lazily) goes the usual way.
   */
  private receiveLazily(bytes: Buffer): boolean {
    const waitingLazily = [...this.pending.values()].filter((p) => p.lazy);
    if (!this.handlers.takesLazily && waitingLazily.length === 0) return false;
    const known = waitingLazily.flatMap((p) => (p.expected ? [p.expected] : []));
    const value = parseLazily(bytes, LAZY_STRING_BYTES, known);
    if (value === undefined) return false;
    const parsed = classifyMessage(value);
    if (!parsed.ok) return false;
    const frame = { bytes, text: bytes.toString('utf8', 0, PREVIEW_BYTES) };
    if (parsed.message.kind === 'request') {
      const msg = parsed.message.msg;
      if (!this.handlers.takesLazily?.(msg)) return false;
      this.handlers.onFrame?.('in', frame.text, parsed.message, bytes.length);
      // Handed on (and so forwarded) after the event loop's next turn: the small frames other
      // sessions sent meanwhile go first, rather than wait behind reading and sending a whole file.
      setImmediate(() => this.handlers.onRequest(msg, this, frame));
      return true;
    }
    if (parsed.message.kind !== 'response') return false;
    const msg = parsed.message.msg;
    const waiting = msg.id === null ? undefined : this.pending.get(msg.id);
    if (!waiting?.lazy) return false;
    this.handlers.onFrame?.('in', frame.text, parsed.message, bytes.length, waiting.owner);
    this.pending.delete(msg.id!);
    waiting.resolve({ msg, frame });
    return true;
  }

  /** Serializes and sends. */
  send(message: RpcRequest | RpcNotification | RpcResponse, options: SendOptions = {}): void {
    this.write(message, options);
  }

  /** Like send, resolving once written: replies that must reach the agent before a close. */
  sendAndWait(message: RpcRequest | RpcNotification | RpcResponse, options: SendOptions = {}): Promise<void> {
    return new Promise((resolve) => this.write(message, options, resolve));
  }

  /** Sends a frame received elsewhere (or made of such), byte for byte; `sent` runs once it is written (or cannot be). */
  forward(frame: OutFrame, message: RpcMessage, sent?: () => void, owner?: unknown): void {
    if (!this.isOpen) return sent?.();
    if ('pieces' in frame) {
      this.handlers.onFrame?.('out', frame.text, message, sizeOf(frame.pieces), owner);
      return this.sendPieces(frame.pieces, sent);
    }
    this.handlers.onFrame?.('out', frame.text, message, frame.bytes.length, owner);
    this.sendBytes(frame.bytes, sent);
  }

  private write(message: RpcRequest | RpcNotification | RpcResponse, { lazy = false, owner }: SendOptions, done?: () => void): void {
    if (!this.isOpen) return done?.();
    if (lazy) return this.forward(encodedFrame(message), classify(message), done, owner);
    // One encoding: the bytes measured for the log are the bytes ws sends.
    const text = JSON.stringify(message);
    const bytes = Buffer.from(text, 'utf8');
    this.handlers.onFrame?.('out', text, classify(message), bytes.length, owner);
    this.sendBytes(bytes, done);
  }

  private sendBytes(bytes: Buffer, done?: () => void): void {
    this.corkUntilNextTick();
    this.ws.send(bytes, { binary: false }, done && (() => done()));
  }

  /** One text message, its pieces as its fragments (sent at once, so nothing comes between them). */
  private sendPieces(pieces: readonly Buffer[], done?: () => void): void {
    this.corkUntilNextTick();
    const last = pieces.length - 1;
    pieces.forEach((piece, i) => this.ws.send(piece, { binary: false, fin: i === last }, i === last && done ? () => done() : undefined));
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

  /**
   * Sends a request with an id of Patchbay's own. Rejects if the link closes first. `lazy`: it
   * holds LazyText (sent as their bytes), and a big answer may come back holding LazyText too.
   */
  request(method: string, params?: unknown, { lazy = false, ...reading }: { lazy?: boolean } & Omit<AnswerReading, 'lazyAnswer'> = {}): { id: RpcId; response: Promise<Reply> } {
    while (this.pending.has(this.nextId)) this.nextId++;
    const id = this.nextId++;
    if (this.onIdsReserved && id >= this.reservedUntil) {
      this.reservedUntil = id + ID_BLOCK;
      this.onIdsReserved(this.reservedUntil);
    }
    const response = this.expect(id, { ...reading, lazyAnswer: lazy });
    this.send(request(id, method, params), { lazy, owner: reading.owner });
    return { id, response };
  }

  /**
   * Relays an agent's request. Its own id is kept when free on this link, so the answer can
   * go back byte for byte; `frame` (the request as it arrived) is sent as is when given.
   * `reading`: a big answer may hold LazyText strings (see receiveLazily).
   */
  relay(msg: RpcRequest, frame: OutFrame | null, reading?: AnswerReading): { id: RpcId; response: Promise<Reply> } {
    // Its id is taken here: sent again under one of ours (a big request may hold LazyText).
    if (this.pending.has(msg.id)) {
      const size = frame === null ? 0 : 'pieces' in frame ? sizeOf(frame.pieces) : frame.bytes.length;
      const lazy = size >= LAZY_FRAME_BYTES && reading?.lazyAnswer === true;
      return this.request(msg.method, msg.params, { lazy, expected: reading?.expected, deadline: reading?.deadline, owner: reading?.owner, held: reading?.held });
    }
    const response = this.expect(msg.id, reading);
    if (frame) this.forward(frame, { kind: 'request', msg }, undefined, reading?.owner);
    else this.send(msg, { owner: reading?.owner });
    return { id: msg.id, response };
  }

  /** Ids below this may be in use on the connection (what a next core starts at). */
  get idsReserved(): number {
    return Math.max(this.reservedUntil, this.nextId);
  }

  /** A link taken over from an earlier core: its ids start where that core's reservation ended. */
  startIdsAt(first: number): void {
    this.nextId = Math.max(this.nextId, first);
    this.reservedUntil = first;
  }

  /**
   * Waits for the answer to a request an earlier core sent on this connection (an openDiff
   * offered before a restart): it is matched here like one of this link's own.
   */
  expectAnswer(id: RpcId, reading?: AnswerReading): Promise<Reply> {
    return this.expect(id, reading);
  }

  /** Requests sent and not answered whose answer does not wait on a person (see AnswerReading.held). */
  unansweredQuick(): RpcId[] {
    return [...this.pending].filter(([, p]) => !p.held).map(([id]) => id);
  }

  /** Gives up on one request (a handover that cannot wait for it): it rejects with `err`. */
  abandon(id: RpcId, err: Error): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    waiting.reject(err);
  }

  private expect(id: RpcId, reading?: AnswerReading): Promise<Reply> {
    if (!this.isOpen) return Promise.reject(new LinkClosedError(this.label));
    // Built field by field, always the same shape: this runs for every request relayed.
    const limit = reading?.deadline;
    const deadline = limit ? { at: Date.now() + limit.ms, ms: limit.ms, what: limit.what } : undefined;
    if (deadline) this.wakeBy(deadline.at);
    return new Promise<Reply>((resolve, reject) => {
      this.pending.set(id, { resolve, reject, lazy: reading?.lazyAnswer === true, expected: reading?.expected, deadline, owner: reading?.owner, held: reading?.held === true });
    });
  }

  private deadlineTimer: NodeJS.Timeout | null = null;
  private deadlineAt = Infinity;

  /** The one deadline timer fires by `at` (an earlier one already set is kept). */
  private wakeBy(at: number): void {
    if (this.deadlineTimer && this.deadlineAt <= at) return;
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineAt = at;
    this.deadlineTimer = setTimeout(() => this.expire(), Math.max(0, at - Date.now()));
  }

  /** Rejects the requests whose deadline has passed; sets the timer for the next one. */
  private expire(): void {
    this.deadlineTimer = null;
    this.deadlineAt = Infinity;
    const now = Date.now();
    let next = Infinity;
    for (const [id, p] of this.pending) {
      if (!p.deadline) continue;
      if (p.deadline.at > now) next = Math.min(next, p.deadline.at);
      else {
        this.forget(id);
        p.reject(new Error(`${p.deadline.what}: no answer within ${p.deadline.ms} ms`));
      }
    }
    if (next < Infinity) this.wakeBy(next);
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
    if (this.deadlineTimer) clearTimeout(this.deadlineTimer);
    this.deadlineTimer = null;
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const p of waiting) p.reject(new LinkClosedError(this.label));
    this.handlers.onClose?.();
  }
}

/** A message holding LazyText as the frame it is sent as (its big strings as the bytes they came in). */
export function encodedFrame(message: RpcRequest | RpcNotification | RpcResponse): PiecedFrame {
  const pieces = encodeJsonPieces(message);
  const head = pieces[0]!;
  return { pieces, text: head.toString('utf8', 0, Math.min(head.length, PREVIEW_BYTES)) };
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
