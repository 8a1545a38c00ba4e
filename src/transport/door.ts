// The door: one loopback WebSocket server that agents connect to.
// The token is checked before the upgrade; the header that carried it names the dialect.
// Its listening socket and its connections are the host's (core/host.ts): under the daemon the
// keeper accepts them and hands each over, so a connection outlives the core that served it.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Dialect } from '../api/types.ts';
import { LocalHost, type CoreHost, type Listener } from '../core/host.ts';
import { AUTH_HEADER } from '../protocol/dialect.ts';
import { ConnectionGate, isHangUp, refuse } from './connection-gate.ts';
import { RefusalLog } from './refusal-log.ts';
import { tokensEqual } from './tokens.ts';

export interface DoorConnection {
  ws: WebSocket;
  dialect: Dialect;
  /** The agent's ephemeral port, to find its process. */
  remotePort: number;
  /** The door's own port (Patchbay serves several: the main door and those for editors' terminals). */
  localPort: number;
  /** Claude Code offers subprotocol `mcp`; it is echoed. */
  protocol: string;
  /** The host's name for the connection (what a next core needs of it is kept under it). */
  connId: string;
  /** The remote whose token it carried (it came through that remote's tunnel), or null. */
  remote: string | null;
}

/** A token of a remote's: the dialect it stands for, and which remote (src/remote/). */
export interface DoorKey {
  dialect: Dialect;
  token: string;
  remote: string;
}

export interface DoorOptions {
  host: string;
  port: number;
  tokens: Partial<Record<Dialect, string>>;
  /** The remotes' tokens now (each connection of a remote has its own). */
  remoteKeys?: () => readonly DoorKey[];
  maxPayload: number;
  onConnection: (conn: DoorConnection) => void;
  log: (message: string) => void;
  /** Connections waiting to upgrade at once (see ConnectionGate). */
  maxPending: number;
  /** A connection must upgrade this soon after connecting. */
  upgradeDeadlineMs: number;
  /** Who listens and holds the connections (default: this process). */
  coreHost?: CoreHost;
  /** The listener's name to the host (one per door). */
  name?: string;
  /** When `port` is taken by another program, listen on any port (the caller says so). */
  fallBack?: boolean;
}

/** Which dialect's token the request carries, if any matches. */
export function authenticate(req: IncomingMessage, tokens: Partial<Record<Dialect, string>>): Dialect | null {
  for (const dialect of ['pi', 'claude'] as const) {
    const expected = tokens[dialect];
    const given = req.headers[AUTH_HEADER[dialect]];
    if (expected && typeof given === 'string' && tokensEqual(given, expected)) return dialect;
  }
  return null;
}

/** The remote key the request carries, if any matches: it names the dialect by its header, as a local token does. */
export function remoteKeyOf(req: IncomingMessage, keys: readonly DoorKey[]): DoorKey | null {
  for (const key of keys) {
    const given = req.headers[AUTH_HEADER[key.dialect]];
    if (typeof given === 'string' && tokensEqual(given, key.token)) return key;
  }
  return null;
}

export class Door {
  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    private readonly gate: ConnectionGate,
    private readonly refusals: RefusalLog,
    private readonly listener: Listener,
  ) {}

  get port(): number {
    return this.listener.port;
  }

  /** The port asked for was held by another program: this door listens elsewhere. */
  get fellBack(): boolean {
    return this.listener.fellBack;
  }

  /** Connections that have connected but not upgraded (at most `maxPending`). */
  get pendingConnections(): number {
    return this.gate.size;
  }

  static async open(options: DoorOptions): Promise<Door> {
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: options.maxPayload,
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false),
    });
    const refusals = new RefusalLog({ log: options.log, source: 'door' });
    const gate = new ConnectionGate({
      maxPending: options.maxPending,
      deadlineMs: options.upgradeDeadlineMs,
      onCut: (why) => refusals.refused(why === 'deadline' ? `no upgrade within ${options.upgradeDeadlineMs} ms` : 'too many connections waiting'),
    });
    const http = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', connection: 'close' }).end('Patchbay door: WebSocket only\n');
    });
    const host = options.coreHost ?? new LocalHost();
    const connIds = new WeakMap<Socket, string>();
    http.on('connection', (socket: Socket) => gate.admit(socket));
    http.on('upgrade', (req, socket: Socket, head) => {
      // Node leaves an upgrading socket without an error listener: a client that resets
      // while it is being refused would otherwise crash the process. ws adds its own below.
      const onError = (err: NodeJS.ErrnoException): void => {
        if (!isHangUp(err)) options.log(`door: connection error before upgrade: ${err.message}`);
      };
      socket.on('error', onError);
      // Browsers always send Origin; agents never do. A page must not reach the door.
      if (req.headers.origin !== undefined) {
        refusals.refused('a browser Origin', req.headers.origin);
        return refuse(socket, 403, 'Forbidden');
      }
      const local = authenticate(req, options.tokens);
      const key = local === null ? remoteKeyOf(req, options.remoteKeys?.() ?? []) : null;
      const dialect = local ?? key?.dialect;
      if (!dialect) {
        refusals.refused('missing or wrong token');
        return refuse(socket, 401, 'Unauthorized');
      }
      socket.off('error', onError);
      gate.upgraded(socket);
      wss.handleUpgrade(req, socket, head, (ws) => {
        const connId = connIds.get(socket) ?? '';
        options.onConnection({ ws, dialect, remotePort: socket.remotePort ?? 0, localPort: socket.localPort ?? 0, protocol: ws.protocol, connId, remote: key?.remote ?? null });
      });
    });
    http.on('clientError', (_err, socket) => socket.destroy());
    const listener = await host.listen(
      options.name ?? 'door',
      { host: options.host, port: options.port, fallBack: options.fallBack === true, durable: true },
      ({ id, socket }) => {
        connIds.set(socket, id);
        // However it ends (refused, cut, closed by either side), the host's copy goes with it.
        socket.once('close', () => host.drop(id));
        http.emit('connection', socket);
      },
    );
    return new Door(http, wss, gate, refusals, listener);
  }

  private closing: Promise<void> | null = null;

  /** Stops listening and drops every connection. A second call waits for the first. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.gate.close();
      this.refusals.close();
      for (const ws of this.wss.clients) ws.terminate();
      this.wss.close();
      // A client still sending its request headers would hold close() up for the headers timeout.
      this.http.closeAllConnections();
      void this.listener.close().then(resolve);
    });
    return this.closing;
  }
}
