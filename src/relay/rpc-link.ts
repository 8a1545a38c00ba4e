// One JSON-RPC peer over one WebSocket: parses each frame once, dispatches it, and
// correlates the requests Patchbay sends (with its own ids) to their responses.
import type { RawData, WebSocket } from 'ws';
import {
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

export interface LinkHandlers {
  onRequest(msg: RpcRequest, link: RpcLink): void;
  onNotification(msg: RpcNotification, link: RpcLink): void;
  /** Every frame both ways, for the traffic inspector. */
  onFrame?(direction: 'in' | 'out', text: string, message: RpcMessage | null): void;
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
  resolve(response: RpcResponse): void;
  reject(err: Error): void;
}

export class RpcLink {
  private nextId = 1;
  private readonly pending = new Map<RpcId, Pending>();
  private closed = false;

  constructor(
    readonly ws: WebSocket,
    /** Who is on the other end, for messages: "editor nvim (port 4711)". */
    readonly label: string,
    private readonly handlers: LinkHandlers,
    /** Malformed frames get a -32700 answer (agents); editors' are only reported. */
    private readonly answerMalformed = true,
  ) {
    ws.on('message', (data: RawData) => this.receive(data));
    ws.on('close', () => this.shutdown());
    ws.on('error', () => this.shutdown());
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  get inFlight(): number {
    return this.pending.size;
  }

  private receive(data: RawData): void {
    const text = frameText(data);
    const parsed = parseFrame(text);
    this.handlers.onFrame?.('in', text, parsed.ok ? parsed.message : null);
    if (!parsed.ok) {
      this.handlers.onMalformed?.(`${this.label}: ${parsed.error.message}`);
      if (this.answerMalformed) this.send(errorResponse(parsed.id, parsed.error.code, parsed.error.message));
      return;
    }
    const message = parsed.message;
    if (message.kind === 'request') this.handlers.onRequest(message.msg, this);
    else if (message.kind === 'notification') this.handlers.onNotification(message.msg, this);
    else {
      const id = message.msg.id;
      const waiting = id === null ? undefined : this.pending.get(id);
      if (!waiting) {
        this.handlers.onMalformed?.(`${this.label}: response to unknown id ${JSON.stringify(id)}`);
        return;
      }
      this.pending.delete(id!);
      waiting.resolve(message.msg);
    }
  }

  /** Sends a message; resolves when it has been written (used to flush before closing). */
  send(message: RpcRequest | RpcNotification | RpcResponse): Promise<void> {
    if (!this.isOpen) return Promise.resolve();
    const text = JSON.stringify(message);
    this.handlers.onFrame?.('out', text, classify(message));
    return new Promise((resolve) => this.ws.send(text, () => resolve()));
  }

  respond(id: RpcId, value: unknown): Promise<void> {
    return this.send(result(id, value));
  }

  respondError(id: RpcId | null, code: number, message: string): Promise<void> {
    return this.send(errorResponse(id, code, message));
  }

  notify(method: string, params?: unknown): Promise<void> {
    return this.send(notification(method, params));
  }

  /** Sends a request with Patchbay's own id. Rejects if the link closes first. */
  request(method: string, params?: unknown): { id: RpcId; response: Promise<RpcResponse> } {
    const id = this.nextId++;
    if (!this.isOpen) return { id, response: Promise.reject(new LinkClosedError(this.label)) };
    const response = new Promise<RpcResponse>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    void this.send(request(id, method, params));
    return { id, response };
  }

  /** Stop waiting for a response (a deadline passed); a late answer is then reported and dropped. */
  forget(id: RpcId): void {
    this.pending.delete(id);
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

function classify(message: RpcRequest | RpcNotification | RpcResponse): RpcMessage {
  if ('method' in message) {
    return 'id' in message && message.id !== undefined
      ? { kind: 'request', msg: message as RpcRequest }
      : { kind: 'notification', msg: message };
  }
  return { kind: 'response', msg: message };
}

/** Binary frames are read as UTF-8 text too: some clients send JSON that way. */
function frameText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
