// The measuring agent: a lean pi-like client (pi's header, `initialize` only) that does as
// little as possible per frame, so the numbers are the relay's and not the client's: requests
// go out serialised ahead of time (sendRequest), and a big answer is not decoded at all — its
// id is read from its first bytes and it is timed when it has arrived (a real pi decodes it,
// but that costs the same through either relay).
// It answers Patchbay's `listSuggestionModels` with an empty list, as an idle pi would.
import WebSocket, { type RawData } from 'ws';
import { withTimeout } from '../peers/wait.ts';
import { idInHead } from './lean-editor.ts';

/** Answers from this size on are left as bytes. */
const RAW_ANSWER = 64 * 1024;

export interface Response {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: unknown;
  error?: { code: number; message: string };
  /** A big answer, as the bytes that came, undecoded. */
  raw?: Buffer;
  /** performance.now() when it had arrived. */
  at: number;
}

interface Expectation {
  method: string;
  count: number;
  resolve(at: number): void;
}

export class BenchAgent {
  private nextId = 1;
  private readonly pending = new Map<number, (response: Response) => void>();
  private readonly counts = new Map<string, number>();
  private expectation: Expectation | null = null;
  readonly closed: Promise<void>;

  private constructor(readonly ws: WebSocket) {
    this.closed = new Promise((resolve) => ws.once('close', () => resolve()));
    ws.on('error', () => {}); // ends in 'close'; pending calls fail there
    ws.on('close', () => {
      for (const [id, settle] of this.pending) settle({ jsonrpc: '2.0', id, error: { code: -1, message: 'connection closed' }, at: performance.now() });
      this.pending.clear();
    });
    ws.on('message', (data: RawData) => this.receive(data as Buffer));
  }

  /** Connects with pi's token header and completes `initialize`. */
  static async connect(url: string, token: string, timeoutMs = 10_000): Promise<BenchAgent> {
    const ws = new WebSocket(url, { headers: { 'x-pi-ide-authorization': token }, perMessageDeflate: false, maxPayload: 256 * 1024 * 1024 });
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', (err) => reject(new Error(`${url}: ${err.message}`)));
        ws.once('unexpected-response', (_req, res) => reject(new Error(`${url}: upgrade refused with HTTP ${res.statusCode}`)));
      }),
      timeoutMs,
      `connecting to ${url}`,
    ).catch((err: Error) => {
      ws.on('error', () => {});
      ws.terminate();
      throw err;
    });
    const agent = new BenchAgent(ws);
    const init = await withTimeout(
      agent.call('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'pi-ide', version: '0.1.0' } }),
      timeoutMs,
      `initialize on ${url}`,
    );
    if (init.error) throw new Error(`${url}: initialize failed: ${init.error.message}`);
    return agent;
  }

  call(method: string, params?: unknown): Promise<Response> {
    const id = this.nextId++;
    return this.sendRequest(id, JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  }

  /** A fresh id, for a request the caller serializes itself (outside its timer). */
  reserveId(): number {
    return this.nextId++;
  }

  /** Sends an already serialized request carrying `id`. */
  sendRequest(id: number, text: string | Buffer): Promise<Response> {
    if (this.ws.readyState !== WebSocket.OPEN) return Promise.reject(new Error('bench agent: connection is not open'));
    const response = new Promise<Response>((resolve) => this.pending.set(id, resolve));
    this.ws.send(text);
    return response;
  }

  /** Resolves with performance.now() when `count` more notifications of `method` have arrived. */
  expect(method: string, count: number): Promise<number> {
    if (this.expectation) throw new Error('bench agent: one expectation at a time');
    this.counts.set(method, 0);
    return new Promise((resolve) => {
      this.expectation = {
        method,
        count,
        resolve: (at) => {
          this.expectation = null;
          resolve(at);
        },
      };
    });
  }

  /** Notifications of `method` since the last `expect` of it. */
  received(method: string): number {
    return this.counts.get(method) ?? 0;
  }

  /** Abandons an unmet expectation (after a timeout), so the next one can start. */
  cancelExpectation(): void {
    this.expectation = null;
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.OPEN || this.ws.readyState === WebSocket.CONNECTING) this.ws.close();
    return withTimeout(this.closed, 2000, 'bench agent close').catch(() => {
      this.ws.terminate();
    });
  }

  private receive(data: Buffer): void {
    const at = performance.now();
    if (data.length >= RAW_ANSWER) {
      const id = Number(idInHead(data));
      const settle = this.pending.get(id);
      if (!settle) return;
      this.pending.delete(id);
      settle({ jsonrpc: '2.0', id, raw: data, at });
      return;
    }
    const msg = JSON.parse(data.toString()) as { id?: number | string | null; method?: string; result?: unknown; error?: unknown };
    if (typeof msg.method === 'string') {
      if (msg.id === undefined || msg.id === null) return this.onNotification(msg.method);
      const answer =
        msg.method === 'listSuggestionModels'
          ? { jsonrpc: '2.0', id: msg.id, result: { models: [] } }
          : { jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${msg.method}` } };
      this.ws.send(JSON.stringify(answer));
      return;
    }
    if (typeof msg.id !== 'number') return;
    const settle = this.pending.get(msg.id);
    if (!settle) return;
    this.pending.delete(msg.id);
    settle({ ...(msg as Omit<Response, 'at'>), at });
  }

  private onNotification(method: string): void {
    const n = (this.counts.get(method) ?? 0) + 1;
    this.counts.set(method, n);
    const e = this.expectation;
    if (e && e.method === method && n >= e.count) e.resolve(performance.now());
  }
}
