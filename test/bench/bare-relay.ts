/**
 * The baseline: a WebSocket pipe with no logic. Each agent connection gets one upstream
 * connection to an editor; frames are forwarded verbatim both ways (same bytes, same frame
 * type, no parsing); a close on either side closes the other. No token check, no ids, no log.
 *
 * The editor is chosen once per connection, from the URL path `/<port>/<token>`, or else the
 * default given at start. The token travels in pi's header.
 *
 * CLI (a child process of the benchmark):
 *   node --import tsx test/bench/bare-relay.ts [--editor-port N --editor-token T] [--heap-mb N]
 *
 * `--heap-mb N` (a diagnostic, `npm run bench -- --bare-heap-mb N`): the relay also keeps about N
 * MB of inert objects, so its heap is as big as Patchbay's. V8 starts incremental marking on its
 * allocation limit only once the old generation is over 8 MB; above that, every big frame it
 * allocates counts toward the limit and costs full collections. This shows what a pipe costs
 * with Patchbay's heap, apart from what Patchbay's own code costs.
 * stdout: {"ready":true,"port":N,"pid":N}; stdin: profileStart, profileStop (profiler.ts), stop.
 * Also stops on SIGTERM/SIGINT or stdin EOF.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { parseArgs } from 'node:util';
import WebSocket, { WebSocketServer, type RawData } from 'ws';
import { emit, isMain, serveCommands, startupFailed } from '../peers/cli.ts';
import { profilerCommands } from './profiler.ts';

export interface EditorTarget {
  port: number;
  token: string;
}

export interface BareRelayOptions {
  /** Where connections without a `/<port>/<token>` path go. */
  editor?: EditorTarget;
  /** Default 256 MiB, above any frame the benchmark sends. */
  maxPayload?: number;
}

const PI_AUTH_HEADER = 'x-pi-ide-authorization';

/** `/<port>/<token>` → the target; anything else → null. */
export function targetFromPath(url: string | undefined): EditorTarget | null {
  const match = /^\/(\d{1,5})\/([^/?#]+)$/.exec(url ?? '');
  return match ? { port: Number(match[1]), token: decodeURIComponent(match[2]!) } : null;
}

export class BareRelay {
  private readonly pipes = new Set<WebSocket>();
  private closing: Promise<void> | null = null;

  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    readonly port: number,
    private readonly options: BareRelayOptions,
  ) {
    wss.on('connection', (agent, req) => this.pipe(agent, targetFromPath(req.url) ?? options.editor ?? null));
  }

  static async start(options: BareRelayOptions = {}): Promise<BareRelay> {
    const maxPayload = options.maxPayload ?? 256 * 1024 * 1024;
    const wss = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false });
    const http = createServer((_req, res) => res.writeHead(426).end());
    http.on('upgrade', (req, socket: Socket, head) => wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req)));
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => {
        http.off('error', reject);
        resolve();
      });
    });
    return new BareRelay(http, wss, (http.address() as AddressInfo).port, { ...options, maxPayload });
  }

  private pipe(agent: WebSocket, target: EditorTarget | null): void {
    if (!target) {
      agent.close(1008, 'bare relay: no editor given');
      return;
    }
    const upstream = new WebSocket(`ws://127.0.0.1:${target.port}`, {
      headers: { [PI_AUTH_HEADER]: target.token },
      maxPayload: this.options.maxPayload,
      perMessageDeflate: false,
    });
    this.pipes.add(agent).add(upstream);
    // Frames the agent sends before the upstream is open wait here, in order.
    const early: [RawData, boolean][] = [];
    agent.on('message', (data, isBinary) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
      else early.push([data, isBinary]);
    });
    upstream.on('open', () => {
      for (const [data, isBinary] of early) upstream.send(data, { binary: isBinary });
      early.length = 0;
    });
    upstream.on('message', (data, isBinary) => {
      if (agent.readyState === WebSocket.OPEN) agent.send(data, { binary: isBinary });
    });
    const end = (ws: WebSocket): void => {
      this.pipes.delete(ws);
      if (ws.readyState === WebSocket.OPEN) ws.close();
      else if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
    };
    agent.on('close', () => {
      this.pipes.delete(agent);
      end(upstream);
    });
    upstream.on('close', () => {
      this.pipes.delete(upstream);
      end(agent);
    });
    // Either side's error ends in its 'close', which ends the other side.
    agent.on('error', () => {});
    upstream.on('error', () => {});
  }

  /** Drops every pipe and stops listening. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const ws of this.pipes) ws.terminate();
      this.pipes.clear();
      this.wss.close();
      this.http.closeAllConnections();
      await new Promise<void>((resolve) => this.http.close(() => resolve()));
    })();
    return this.closing;
  }
}

/** About `mb` MB of small live objects, as a program's own state would be. */
function inertHeap(mb: number): unknown[] {
  const objects: unknown[] = [];
  // ~56 bytes each: the object, its short string, its slot in the array.
  for (let i = 0; i < (mb * 1024 * 1024) / 56; i++) objects.push({ i, s: `item ${i}` });
  return objects;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'editor-port': { type: 'string' }, 'editor-token': { type: 'string' }, 'heap-mb': { type: 'string' } } });
  const heap = inertHeap(Number(values['heap-mb'] ?? 0));
  const port = values['editor-port'];
  const token = values['editor-token'];
  if ((port === undefined) !== (token === undefined)) throw new Error('bare-relay: --editor-port and --editor-token go together');
  const relay = await BareRelay.start(port !== undefined && token !== undefined ? { editor: { port: Number(port), token } } : {});
  emit({ ready: true, port: relay.port, pid: process.pid });
  serveCommands(profilerCommands(), () => {
    heap.length = 0; // held until the relay stops
    return relay.close();
  });
}

if (isMain(import.meta.url)) main().catch(startupFailed);
