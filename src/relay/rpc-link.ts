// One JSON-RPC peer over one WebSocket: parses each frame once, dispatches it, and
// correlates the requests Patchbay sends to their responses.
//
// Every request Patchbay sends on a link carries an id it minted there (a small integer from
// the link's own counter), never the id of whoever asked (DESIGN §6): sessions share an
// editor's link, and editors re-encode numbers (lua-cjson keeps 14 significant digits, so
// 7.000000000000001 comes back as 7), so an id a sender chose could come back as another
// request's. An answer is matched only to what Patchbay sent under that id, and goes back to
// whoever asked under the id they used. Frames are passed on as the bytes that arrived where
// they can be: a big frame read lazily keeps its big strings as bytes (LazyText), and is sent
// on under Patchbay's id by replacing only the id's bytes (relaying costs no copy of a whole
// file); a small one is encoded again.
import type { Socket } from 'node:net';
import type { RawData, WebSocket } from 'ws';
import { sendWholeMessage, sendWholeText } from '../transport/whole-message.ts';
import { costLimit, peekEnvelope, UNWEIGHED_BELOW, weighFrame, type Envelope } from '../protocol/frame-cost.ts';
import {
  classifyMessage,
  errorResponse,
  INVALID_REQUEST,
  notification,
  parseFrame,
  type ParseResult,
  request,
  result,
  routedOnly,
  type RpcId,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  type RpcResponse,
  UnreadResponse,
} from '../protocol/jsonrpc.ts';
import { AnswerMemo } from '../protocol/answer-memo.ts';
import { checkedEnvelope } from '../protocol/json-check.ts';
import { knownRequestJson, RequestMemo } from '../protocol/request-memo.ts';
import { QUOTE, topLevelIdAt } from '../protocol/json-scan.ts';
import { encodeJsonPieces, LazyText, parseLazily, type ByteRange } from '../protocol/lazy-json.ts';

/** Frames from this size on may be read lazily (a whole file in FILE_SAVED). */
export const LAZY_FRAME_BYTES = 1024 * 1024;
/** Strings from this size on stay undecoded in a lazily read frame. */
const LAZY_STRING_BYTES = 64 * 1024;
/**
 * What the values of a frame read lazily may cost (frame-cost.ts): one is a whole file and a few
 * small fields, far below this. A frame over it is weighed, and parsed whole or refused.
 */
const LAZY_COST_LIMIT = 64 * 1024;
/** What the traffic log gets of a lazily read frame (it shows the start only). */
const PREVIEW_BYTES = 4096;
/** How many given-up requests' owners are remembered for their late answers. */
const FORGOTTEN_KEPT = 64;
/**
 * Ids Patchbay mints go up to this and start again at 1 (skipping any still waiting): small
 * integers every peer's JSON keeps exact (lua-cjson's 14 digits, a Kotlin Int).
 */
const MAX_MINTED_ID = 2 ** 31 - 1;
/** Ids are reserved this many at a time for a core that may follow on the same connection (see onIdsReserved). */
export const ID_BLOCK = 1000;

/**
 * A frame as it arrived: its bytes and their text (the start only, for a frame over
 * PREVIEW_BYTES: the whole is not kept twice). `cost`: about what its parsed values cost
 * (frame-cost.ts), when it was weighed (see frameHeld). `idAt`: where its top-level "id" value
 * sits in `bytes`, for a frame read lazily (see parseLazily): it is sent on under another id with
 * only those bytes replaced.
 */
export interface Frame {
  bytes: Buffer;
  text: string;
  cost?: number;
  idAt?: ByteRange | null;
}

/** About what holding a frame costs, its bytes and its parsed values together: what the pending budget counts. */
export function frameHeld(frame: Frame): number {
  const weight = frame.cost === undefined ? weighFrame(frame.bytes) : null;
  return frame.bytes.length + (frame.cost ?? (weight?.ok ? weight.cost : costLimit(frame.bytes.length)));
}

/**
 * A frame made here around big strings still in other frames (encodeJsonPieces): its pieces
 * are written as one frame (whole-message.ts), so a whole file is never copied into a new buffer.
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
  /** It has already gone to whoever asked (AnswerReading.passOn). */
  passedOn?: boolean;
}

/**
 * Where an answer goes the moment it arrives: to `to`, under the asker's `id`, as `answer` sends
 * it (its bytes with only the id replaced). `unlessError`: an error answer is left to the caller.
 */
export interface PassOn {
  to: RpcLink;
  id: RpcId;
  unlessError?: boolean;
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
  /** A frame that is not JSON-RPC, or not read (see weighFrame); the link has already answered it if it could. */
  onMalformed?(problem: string): void;
  /**
   * A request too costly to read (see weighFrame), by its envelope: the handler answers it (an
   * openDiff with DIFF_REJECTED). Default: an error answer.
   */
  onRefused?(request: Envelope & { id: RpcId; method: string }, problem: string): void;
}

/** Frames received on every link in this process: whether it changed tells traffic from quiet (release-memory.ts). */
let framesReceived = 0;
export function receivedFrames(): number {
  return framesReceived;
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
  passOn: PassOn | undefined;
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
  /**
   * The answer goes back to the asker as it arrives, in the same turn (no hop through the
   * response's promise, which then resolves with `passedOn`): a relayed call's answer leaves
   * before anything the editor sent after it, and a few µs sooner. Every answer is, Patchbay's
   * own error for one too costly to read included, but for errors under `unlessError`.
   */
  passOn?: PassOn | undefined;
}

/** How a message is sent: `lazy`, it holds LazyText strings, sent as the bytes they arrived in; `owner`, see onFrame. */
export interface SendOptions {
  lazy?: boolean;
  owner?: unknown;
}

export class RpcLink {
  private nextId = 1;
  private readonly pending = new Map<RpcId, Pending>();
  /** How many of them pass their answer on (AnswerReading.passOn): only then is a frame checked for one. */
  private passingOn = 0;
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
    framesReceived++;
    if (bytes.length >= LAZY_FRAME_BYTES && this.receiveLazily(bytes)) return;
    // Weighed before anything is made of it, unless it is too small to need it (frame-cost.ts).
    const weight = bytes.length < UNWEIGHED_BELOW ? null : weighFrame(bytes);
    if (weight?.ok === false) return this.refuse(bytes, weight.problem);
    const text = bytes.toString('utf8');
    const routed = routedOnly(text);
    if (routed) {
      this.handlers.onFrame?.('in', text, { kind: 'notification', msg: routed }, bytes.length);
      return this.handlers.onNotification(routed, this, { bytes, text });
    }
    if (this.passingOn > 0 && this.passedOn(bytes, text, weight?.cost)) return;
    const parsed = this.parsed(bytes, text);
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
    const frame = arrivedFrame(bytes, text, weight?.cost);
    if (message.kind === 'request') this.handlers.onRequest(message.msg, this, frame);
    else if (message.kind === 'notification') this.handlers.onNotification(message.msg, this, frame);
    else this.answered(message.msg, frame);
  }

  /** The last small answer checked here: the next one like it needs no check (answer-memo.ts). */
  private lastAnswer: AnswerMemo | null = null;

  /** The last small request parsed here: the next one like it is read from it (request-memo.ts). */
  private lastRequest: RequestMemo | null = null;

  private parsed(bytes: Buffer, text: string): ParseResult {
    const remembered = this.lastRequest?.read(text);
    if (remembered) return { ok: true, message: { kind: 'request', msg: remembered } };
    const parsed = parseFrame(text);
    if (parsed.ok && parsed.message.kind === 'request') this.lastRequest = RequestMemo.of(bytes, text, parsed.message.msg);
    return parsed;
  }

  /**
   * An answer to a request whose answer is passed on (AnswerReading.passOn), checked to be JSON
   * on its bytes and sent on under the asker's id without being parsed: true when it was. Any
   * other frame, or one the check is unsure of, is parsed as usual (false).
   */
  private passedOn(bytes: Buffer, text: string, cost: number | undefined): boolean {
    const remembered = this.lastAnswer?.match(bytes);
    const envelope = remembered ?? checkedEnvelope(bytes);
    const idAt = envelope?.idAt;
    // Patchbay's ids are numbers: an answer under a string id is not to anything it sent.
    if (!envelope || !idAt || envelope.method || !(envelope.result || envelope.error) || bytes[idAt.start] === QUOTE) return false;
    if (!remembered) this.lastAnswer = AnswerMemo.of(bytes, envelope);
    const id = Number(bytes.toString('latin1', idAt.start, idAt.end));
    const waiting = this.pending.get(id);
    const passOn = waiting?.passOn;
    if (!waiting || !passOn || (passOn.unlessError && envelope.error)) return false;
    this.stopWaiting(id, waiting);
    this.forgotten.delete(id);
    const msg = new UnreadResponse(id, text);
    this.handlers.onFrame?.('in', text, { kind: 'response', msg }, bytes.length, waiting.owner);
    const frame = arrivedFrame(bytes, text, cost);
    // What settle() does, done here: the same through settle() and answer() (the frame given its
    // idAt) cost 5–8 % more relay CPU a call (A/B of 8 rounds of 3,000 calls, in both orders).
    passOn.to.forward(underId(frame, idAt, passOn.id), { kind: 'response', msg: { jsonrpc: '2.0', id: passOn.id } });
    waiting.resolve({ msg, frame, passedOn: true });
    return true;
  }

  /** A response: to what Patchbay sent under its id, or dropped (and reported) when it sent nothing under it. */
  private answered(msg: RpcResponse, frame: Frame): void {
    const id = msg.id;
    const waiting = id === null ? undefined : this.pending.get(id);
    if (!waiting) {
      this.handlers.onMalformed?.(`${this.label}: dropped an answer to id ${JSON.stringify(id)?.slice(0, 100)}, which Patchbay did not send or no longer waits for`);
      return;
    }
    this.stopWaiting(id!, waiting);
    settle(waiting, { msg, frame });
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
    const read = readLazily(bytes, known);
    if (read === undefined) return false;
    const parsed = classifyMessage(read.value);
    if (!parsed.ok) return false;
    const frame = read.frame;
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
    this.answered(msg, frame);
    return true;
  }

  /**
   * A frame not read (weighFrame's `problem`), answered by its envelope: a response ends the
   * wait of its request with an error; a request is answered (onRefused, else an error); a
   * notification is dropped. Each is reported.
   */
  private refuse(bytes: Buffer, problem: string): void {
    const envelope = peekEnvelope(bytes);
    const { id, method } = envelope;
    const waiting = envelope.response && id !== null ? this.pending.get(id) : undefined;
    this.handlers.onFrame?.('in', bytes.toString('utf8', 0, PREVIEW_BYTES), null, bytes.length, waiting?.owner);
    if (id !== null && method !== null && !envelope.response && this.handlers.onRefused) return this.handlers.onRefused({ ...envelope, id, method }, problem);
    this.handlers.onMalformed?.(`${this.label}: ${problem}${id === null ? '' : ` (id ${JSON.stringify(id).slice(0, 100)})`}`);
    if (waiting) {
      this.stopWaiting(id!, waiting);
      const msg = errorResponse(id, INVALID_REQUEST, `Patchbay: ${problem}`);
      const text = JSON.stringify(msg);
      settle(waiting, { msg, frame: { bytes: Buffer.from(text, 'utf8'), text } });
    } else if (id !== null && method !== null && !envelope.response) {
      this.respondError(id, INVALID_REQUEST, `Patchbay: ${problem}`);
    }
  }

  /** Serializes and sends. */
  send(message: RpcRequest | RpcNotification | RpcResponse, options: SendOptions = {}): void {
    this.write(message, options.lazy === true, options.owner);
  }

  /** Like send, resolving once written: replies that must reach the agent before a close. */
  sendAndWait(message: RpcRequest | RpcNotification | RpcResponse, options: SendOptions = {}): Promise<void> {
    return new Promise((resolve) => this.write(message, options.lazy === true, options.owner, resolve));
  }

  /** Sends a frame received elsewhere (or made of such), byte for byte; `sent` runs once it is written (or cannot be). */
  forward(frame: OutFrame, message: RpcMessage, sent?: () => void, owner?: unknown): void {
    if (!this.isOpen) return sent?.();
    if ('pieces' in frame) {
      this.handlers.onFrame?.('out', frame.text, message, sizeOf(frame.pieces), owner);
      return this.sendPieces(frame.pieces, sent);
    }
    this.handlers.onFrame?.('out', frame.text, message, frame.bytes.length, owner);
    this.sendPieces([frame.bytes], sent);
  }

  /** `json`: the message's JSON, when the caller has it (knownRequestJson). */
  private write(message: RpcRequest | RpcNotification | RpcResponse, lazy: boolean, owner: unknown, done?: () => void, json?: string): void {
    if (!this.isOpen) return done?.();
    if (lazy) return this.forward(encodedFrame(message), classify(message), done, owner);
    // One encoding, written straight into the frame: the bytes measured for the log are the bytes sent.
    const text = json ?? JSON.stringify(message);
    const length = Buffer.byteLength(text, 'utf8');
    this.handlers.onFrame?.('out', text, classify(message), length, owner);
    this.batchRestOfTick();
    if (sendWholeText(this.ws, text, length, done && (() => done()))) return;
    this.ws.send(text, { binary: false }, done && (() => done()));
  }

  /**
   * One text message in one frame, written by whole-message.ts (a small one in one write, where
   * ws writes a header and a payload apart; a big one's pieces as they are); through ws when its
   * sender may be holding frames back.
   */
  private sendPieces(pieces: readonly Buffer[], done?: () => void): void {
    this.batchRestOfTick();
    if (sendWholeMessage(this.ws, pieces, done && (() => done()))) return;
    this.ws.send(pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces), { binary: false }, done && (() => done()));
  }

  /** A frame was written this tick: the next ones wait for the tick's end, corked. */
  private sentThisTick = false;
  private corked = false;

  /**
   * The first frame of a tick leaves at once (a request relayed one at a time waits for
   * nothing); the ones after it in the same tick leave in one write at its end: an editor's
   * burst of selection_changed costs one syscall, not one each. ws corks around each frame
   * itself; this outer cork (on its socket, which ws does not expose otherwise) holds the rest.
   */
  private batchRestOfTick(): void {
    const socket = this.socket();
    if (this.corked || !socket) return;
    if (!this.sentThisTick) {
      this.sentThisTick = true;
      process.nextTick(this.endOfTick);
      return;
    }
    this.corked = true;
    socket.cork();
  }

  /** Made once, not per frame: a frame relayed one at a time schedules it every time. */
  private readonly endOfTick = (): void => {
    this.sentThisTick = false;
    if (!this.corked) return;
    this.corked = false;
    this.socket()?.uncork();
  };

  private socket(): Socket | undefined {
    return (this.ws as unknown as { _socket?: Socket })._socket;
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
   * The next id of Patchbay's own on this link: one it is not waiting on, and inside a block
   * reserved for this core (a next core on the same connection starts past it).
   */
  private mint(): number {
    for (;;) {
      const id = this.nextId;
      this.nextId = id >= MAX_MINTED_ID ? 1 : id + 1;
      if (this.pending.has(id)) continue;
      if (this.onIdsReserved && id >= this.reservedUntil) {
        this.reservedUntil = id + ID_BLOCK;
        this.onIdsReserved(this.reservedUntil);
      }
      return id;
    }
  }

  /**
   * Sends a request under an id minted here. Rejects if the link closes first. `lazy`: it holds
   * LazyText (sent as their bytes), and a big answer may come back holding LazyText too.
   */
  request(method: string, params?: unknown, reading: { lazy?: boolean } & Omit<AnswerReading, 'lazyAnswer'> = {}): { id: number; response: Promise<Reply> } {
    return this.sendRequest(method, params, reading.lazy === true, reading);
  }

  private sendRequest(method: string, params: unknown, lazy: boolean, reading: Omit<AnswerReading, 'lazyAnswer'>): { id: number; response: Promise<Reply> } {
    const id = this.mint();
    // Sent first, then awaited: its answer cannot be read before this turn ends.
    this.write(request(id, method, params), lazy, reading.owner, undefined, lazy ? undefined : knownRequestJson(id, method, params));
    return { id, response: this.expect(id, lazy, reading) };
  }

  /**
   * Relays someone's request (an agent's to an editor, an editor's to an agent) under an id
   * minted here; the caller answers them under their own id (see `answer`). A frame read lazily
   * (`frame.idAt`) is sent as its bytes with only the id replaced; any other is encoded again.
   * `reading`: a big answer may hold LazyText strings (see receiveLazily).
   */
  relay(msg: RpcRequest, frame: Frame | null, reading: AnswerReading = {}): { id: number; response: Promise<Reply> } {
    if (!frame?.idAt) return this.sendRequest(msg.method, msg.params, reading.lazyAnswer === true, reading);
    const id = this.mint();
    this.forward(underId(frame, frame.idAt, id), { kind: 'request', msg: { ...msg, id } }, undefined, reading.owner);
    return { id, response: this.expect(id, reading.lazyAnswer === true, reading) };
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
  expectAnswer(id: RpcId, reading: AnswerReading = {}): Promise<Reply> {
    return this.expect(id, reading.lazyAnswer === true, reading);
  }

  /** Requests sent and not answered whose answer does not wait on a person (see AnswerReading.held). */
  unansweredQuick(): RpcId[] {
    return [...this.pending].filter(([, p]) => !p.held).map(([id]) => id);
  }

  /** Gives up on one request (a handover that cannot wait for it): it rejects with `err`. */
  abandon(id: RpcId, err: Error): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.stopWaiting(id, waiting);
    waiting.reject(err);
  }

  /** A request is no longer waited for (answered, refused, given up). */
  private stopWaiting(id: RpcId, waiting: Pending): void {
    this.pending.delete(id);
    if (waiting.passOn) this.passingOn--;
  }

  private expect(id: RpcId, lazy: boolean, reading: Omit<AnswerReading, 'lazyAnswer'>): Promise<Reply> {
    if (!this.isOpen) return Promise.reject(new LinkClosedError(this.label));
    // Built field by field, always the same shape: this runs for every request relayed.
    const limit = reading.deadline;
    const deadline = limit ? { at: Date.now() + limit.ms, ms: limit.ms, what: limit.what } : undefined;
    if (deadline) this.wakeBy(deadline.at);
    return new Promise<Reply>((resolve, reject) => {
      if (reading.passOn) this.passingOn++;
      this.pending.set(id, { resolve, reject, lazy, expected: reading.expected, deadline, owner: reading.owner, held: reading.held === true, passOn: reading.passOn });
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
    const waiting = this.pending.get(id);
    const owner = waiting?.owner;
    if (waiting) this.stopWaiting(id, waiting);
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
    this.passingOn = 0;
    for (const p of waiting) p.reject(new LinkClosedError(this.label));
    this.handlers.onClose?.();
  }
}

/** A frame read whole as it arrived: its text kept up to PREVIEW_BYTES (see Frame), its cost when it was weighed. */
export function arrivedFrame(bytes: Buffer, text: string, cost: number | undefined): Frame {
  return frameOf(bytes, text.length <= PREVIEW_BYTES ? text : bytes.toString('utf8', 0, PREVIEW_BYTES), cost, undefined);
}

/**
 * A big frame read as the relay reads it when it arrives (see receiveLazily): its value, with
 * its big strings as LazyText, and the frame they stay in. Undefined when it is not read so
 * (parseLazily says when); it is then parsed whole.
 */
export function readLazily(bytes: Buffer, known: readonly LazyText[] = []): { value: unknown; frame: Frame } | undefined {
  const read = parseLazily(bytes, LAZY_STRING_BYTES, known, LAZY_COST_LIMIT);
  return read && { value: read.value, frame: frameOf(bytes, bytes.toString('utf8', 0, PREVIEW_BYTES), read.cost, read.idAt) };
}

/**
 * Every frame that arrives is made here, with the same fields in the same order: the relay's
 * optimized code, which reads frames of small requests, does not meet a frame of a new shape
 * (and is not thrown away) when the first big one arrives.
 */
function frameOf(bytes: Buffer, text: string, cost: number | undefined, idAt: ByteRange | null | undefined): Frame {
  return { bytes, text, cost, idAt };
}

/** Ends a request's wait with its answer, which goes on to the asker first when it is to be passed on (AnswerReading.passOn). */
function settle(waiting: Pending, reply: Reply): void {
  const passOn = waiting.passOn;
  if (!passOn || (passOn.unlessError && reply.msg.error)) return waiting.resolve(reply);
  answer(passOn.to, passOn.id, reply, null);
  waiting.resolve({ ...reply, passedOn: true });
}

/** A message holding LazyText as the frame it is sent as (its big strings as the bytes they came in). */
function encodedFrame(message: RpcRequest | RpcNotification | RpcResponse): PiecedFrame {
  const pieces = encodeJsonPieces(message);
  const head = pieces[0]!;
  return { pieces, text: head.toString('utf8', 0, Math.min(head.length, PREVIEW_BYTES)) };
}

/**
 * A frame under another id: its bytes with only the id's replaced (`idAt`), as pieces of the
 * frame it came in (nothing is copied until whole-message.ts writes it; a whole file in it never
 * is); its text, for the traffic log, from the new bytes.
 */
export function underId(frame: Frame, idAt: ByteRange, id: RpcId): PiecedFrame {
  const idText = JSON.stringify(id);
  const pieces = [frame.bytes.subarray(0, idAt.start), Buffer.from(idText, 'utf8'), frame.bytes.subarray(idAt.end)];
  // A text of one unit per byte (ASCII, as answers mostly are) has the id at the same offsets.
  if (frame.text.length === frame.bytes.length) return { pieces, text: frame.text.slice(0, idAt.start) + idText + frame.text.slice(idAt.end) };
  const head = Buffer.concat([pieces[0]!.subarray(0, PREVIEW_BYTES), pieces[1]!, pieces[2]!.subarray(0, PREVIEW_BYTES)]);
  return { pieces, text: head.toString('utf8', 0, PREVIEW_BYTES) };
}

/**
 * Answers request `id` on `to` with a reply from the other side (which came under Patchbay's
 * id). Not translated, it goes as its bytes with only the id replaced: where the lazy reader
 * found it, or where a walk of the top-level object finds it once (a reply carrying "id" twice
 * means what its reader decides, so it is encoded again). Anything else is encoded again
 * (LazyText in it as the bytes they came in).
 */
export function answer(to: RpcLink, id: RpcId, reply: Reply, translate: ((r: RpcResponse) => RpcResponse) | null): void {
  const lazy = reply.frame.idAt !== undefined;
  if (!translate) {
    const idAt = lazy ? reply.frame.idAt : topLevelIdAt(reply.frame.bytes);
    if (idAt) return to.forward(underId(reply.frame, idAt, id), { kind: 'response', msg: { ...reply.msg, id } });
  }
  to.send({ ...(translate ? translate(reply.msg) : reply.msg), id }, { lazy });
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
