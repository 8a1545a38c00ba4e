// JSON-RPC 2.0 over one WebSocket, as every peer speaks it: one message per text frame.
// Deliberately independent of src/protocol so the doubles do not share the code under test.
import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';

export type RpcId = string | number;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Any frame a peer sends: request, notification or response. */
export interface RpcMessage {
  jsonrpc: '2.0';
  id?: RpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: RpcErrorObject;
}

export interface RpcRequestMessage extends RpcMessage {
  id: RpcId;
  method: string;
}

export interface RpcResponse {
  jsonrpc: '2.0';
  id: RpcId | null;
  result?: unknown;
  error?: RpcErrorObject;
}

/** Thrown by a request handler to answer with a JSON-RPC error. */
export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Returned by a request handler to leave the request unanswered (e.g. it was cancelled). */
export const NO_REPLY: unique symbol = Symbol('no reply');

export interface RpcHandlers {
  request?(msg: RpcRequestMessage): unknown | Promise<unknown>;
  notification?(msg: RpcMessage & { method: string }): void;
  /** Every frame, parsed, before it is dispatched. */
  frame?(msg: RpcMessage): void;
}

export type IdStyle = 'number' | 'string';

interface Pending {
  method: string;
  resolve(response: RpcResponse): void;
  reject(err: Error): void;
}

/** One end of a JSON-RPC connection. Frames that are not JSON are answered with -32700. */
export class RpcPeer {
  readonly received: RpcMessage[] = [];
  readonly malformed: string[] = [];
  /** Resolves when the socket has closed, cleanly or not. */
  readonly closed: Promise<{ code: number; reason: string }>;
  private readonly pending = new Map<RpcId, Pending>();
  private nextId = 1;

  constructor(
    readonly ws: WebSocket,
    private readonly handlers: RpcHandlers,
    private readonly idStyle: IdStyle = 'number',
    private readonly idPrefix = 'req',
    /** How frames are written (an editor in Lua writes numbers its own way: lua-json.ts). */
    private readonly encode: (msg: RpcMessage) => string = JSON.stringify,
  ) {
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        for (const [id, p] of this.pending) p.reject(new Error(`connection closed while waiting for ${p.method} (id ${id})`));
        this.pending.clear();
        resolve({ code, reason: reason.toString() });
      });
    });
    // A peer's socket errors end in 'close'; the owner learns of them there.
    ws.on('error', () => {});
    ws.on('message', (data, isBinary) => this.onFrame(isBinary ? '' : data.toString()));
  }

  get isOpen(): boolean {
    return this.ws.readyState === WebSocket.OPEN;
  }

  /** Sends one frame; false when the socket is no longer open. */
  send(msg: RpcMessage): boolean {
    if (!this.isOpen) return false;
    this.ws.send(this.encode(msg));
    return true;
  }

  notify(method: string, params?: unknown): boolean {
    return this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Sends a request; `response` rejects if the connection closes first. */
  start(method: string, params?: unknown): { id: RpcId; response: Promise<RpcResponse> } {
    const n = this.nextId++;
    const id: RpcId = this.idStyle === 'string' ? `${this.idPrefix}-${n}` : n;
    const response = new Promise<RpcResponse>((resolve, reject) => {
      if (!this.isOpen) {
        reject(new Error(`cannot send ${method}: connection is not open`));
        return;
      }
      this.pending.set(id, { method, resolve, reject });
      this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    });
    // Callers that fire and forget must not crash the process; callers that await still see the rejection.
    response.catch(() => {});
    return { id, response };
  }

  call(method: string, params?: unknown): Promise<RpcResponse> {
    return this.start(method, params).response;
  }

  /** Closes with a close frame. Safe to call twice. */
  close(code = 1000, reason = ''): void {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close(code, reason);
  }

  /** Drops the TCP connection without a close frame, like a killed process. */
  terminate(): void {
    this.ws.terminate();
  }

  private onFrame(text: string): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      this.malformed.push(text);
      this.send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${(err as Error).message}` } });
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.malformed.push(text);
      this.send({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: expected a JSON object' } });
      return;
    }
    const msg = value as RpcMessage;
    this.received.push(msg);
    this.handlers.frame?.(msg);
    if (typeof msg.method === 'string') {
      if (msg.id === undefined || msg.id === null) this.handlers.notification?.(msg as RpcMessage & { method: string });
      else void this.answer(msg as RpcRequestMessage);
      return;
    }
    if (msg.id !== undefined && msg.id !== null) {
      const p = this.pending.get(msg.id);
      if (!p) return; // a late or unknown answer: it stays in `received` for tests to inspect
      this.pending.delete(msg.id);
      p.resolve(msg as RpcResponse);
    }
  }

  private async answer(msg: RpcRequestMessage): Promise<void> {
    if (!this.handlers.request) {
      this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } });
      return;
    }
    try {
      const result = await this.handlers.request(msg);
      if (result !== NO_REPLY) this.send({ jsonrpc: '2.0', id: msg.id, result });
    } catch (err) {
      const error: RpcErrorObject =
        err instanceof RpcFailure
          ? { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) }
          : { code: -32603, message: `Internal error in ${msg.method}: ${(err as Error).message}` };
      this.send({ jsonrpc: '2.0', id: msg.id, error });
    }
  }
}

/** The upgrade was answered with an HTTP status instead of 101. */
export class UpgradeRefused extends Error {
  constructor(
    readonly status: number,
    url: string,
  ) {
    super(`${url} refused the WebSocket upgrade: HTTP ${status}`);
  }
}

/** Opens a client socket; rejects with UpgradeRefused when the server answers the upgrade with a status. */
export function openSocket(url: string, headers: Record<string, string>, protocols: string[] = []): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers, maxPayload: 256 * 1024 * 1024 });
    const onResponse = (req: { destroy(): void }, res: IncomingMessage): void => {
      res.resume();
      req.destroy();
      fail(new UpgradeRefused(res.statusCode ?? 0, url));
    };
    const onError = (err: Error): void => fail(new Error(`${url}: ${err.message}`));
    const onOpen = (): void => {
      detach();
      resolve(ws);
    };
    const detach = (): void => {
      ws.off('unexpected-response', onResponse);
      ws.off('error', onError);
      ws.off('open', onOpen);
    };
    const fail = (err: Error): void => {
      detach();
      ws.on('error', () => {}); // the abort below reports itself once more
      ws.terminate();
      reject(err);
    };
    ws.once('unexpected-response', onResponse);
    ws.once('error', onError);
    ws.once('open', onOpen);
  });
}

/** The text items of an MCP tool result (`{content:[{type:'text',text}]}`), or [] for anything else. */
export function toolTexts(result: unknown): string[] {
  const content = (result as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) return [];
  return content.map((item) => (typeof (item as { text?: unknown })?.text === 'string' ? (item as { text: string }).text : ''));
}

/** The openDiff answers an agent received, as their texts. */
export function diffAnswers(received: readonly RpcMessage[]): string[][] {
  return received
    .filter((m) => m.method === undefined && m.result !== undefined)
    .map((m) => toolTexts(m.result))
    .filter((texts) => texts[0] === 'FILE_SAVED' || texts[0] === 'DIFF_REJECTED');
}

export function textContent(...texts: string[]): { content: { type: 'text'; text: string }[] } {
  return { content: texts.map((text) => ({ type: 'text' as const, text })) };
}
