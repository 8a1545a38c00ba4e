// The keeper's sockets: the listening ones (the doors, the control server's port) and a copy of
// every connection it accepted or opened for its core. The keeper never reads from them: they
// are accepted paused (`pauseOnConnect`) or paused before they connect, so their reading never
// starts here, and only a core reads (each byte once). A connection the core registered
// (`meta`) outlives the core; one it never registered (half through its HTTP upgrade) does not.
import { connect, createServer, type Server, type Socket } from 'node:net';
import { listenOn } from '../core/listen.ts';
import type { ConnRecord, ListenRequest } from './protocol.ts';

export interface KeptConn {
  id: string;
  via: string;
  socket: Socket;
  /** Outlives a core (the keeper keeps its copy) or is handed over once and forgotten. */
  durable: boolean;
  meta: unknown;
  /** Unread bytes a core handed back with it (base64). */
  head?: string;
  /** The pid of the core it was handed to (null: waiting for one). */
  heldBy: number | null;
}

interface KeptListener {
  name: string;
  server: Server;
  port: number;
  host: string;
  durable: boolean;
}

export class KeeperSockets {
  private readonly listeners = new Map<string, KeptListener>();
  private readonly conns = new Map<string, KeptConn>();
  private nextId = 0;

  constructor(
    /** A new connection for the core (or to wait for one). */
    private readonly accepted: (conn: KeptConn) => void,
    private readonly log: (message: string) => void,
  ) {}

  get size(): number {
    return this.conns.size;
  }

  /** Listens (or answers with the listener already open under that name: a core restarted). */
  async listen(req: ListenRequest): Promise<{ port: number; fellBack: boolean }> {
    const open = this.listeners.get(req.name);
    if (open) {
      // The same name wanted elsewhere: a new core with other settings. The old listener goes.
      if (open.host === req.host && (req.port === 0 || req.port === open.port)) return { port: open.port, fellBack: false };
      await this.unlisten(req.name);
    }
    const server = createServer({ pauseOnConnect: true }, (socket) => this.accept(req.name, req.durable, socket));
    const { port, fellBack } = await listenOn(server, req);
    server.on('error', (err) => this.log(`${req.name}: accept failed: ${err.message}`));
    this.listeners.set(req.name, { name: req.name, server, port, host: req.host, durable: req.durable });
    return { port, fellBack };
  }

  async unlisten(name: string): Promise<void> {
    const open = this.listeners.get(name);
    if (!open) return;
    this.listeners.delete(name);
    // Its connections are the core's to close; the listening socket goes now.
    await new Promise<void>((resolve) => {
      open.server.close(() => resolve());
      // server.close waits for connections handed to a child process to be reported closed: not for us.
      setImmediate(resolve);
    });
  }

  listenerNames(): string[] {
    return [...this.listeners.keys()];
  }

  /** Opens a connection for the core, paused before it connects (so it never reads here). */
  connect(host: string, port: number): Promise<KeptConn> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.pause();
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(this.add('connect', true, socket));
      });
    });
  }

  get(id: string): KeptConn | undefined {
    return this.conns.get(id);
  }

  keep(id: string, meta: unknown): void {
    const conn = this.conns.get(id);
    if (conn) conn.meta = meta;
  }

  /** The core is done with it: the last copy closes, so the peer sees it end. */
  drop(id: string): void {
    const conn = this.conns.get(id);
    if (!conn) return;
    this.conns.delete(id);
    conn.socket.destroy();
  }

  /** The core that held these died: what it never registered cannot be taken over (its bytes were read). */
  coreGone(pid: number): string[] {
    const lost: string[] = [];
    for (const conn of this.conns.values()) {
      if (conn.heldBy !== pid) continue;
      conn.heldBy = null;
      if (conn.meta === null || conn.meta === undefined) {
        lost.push(conn.id);
        this.drop(conn.id);
      }
    }
    return lost;
  }

  /** Every connection a new core takes over, oldest first. */
  waiting(): KeptConn[] {
    return [...this.conns.values()].filter((c) => c.heldBy === null);
  }

  /** A connection handed to a core: durable ones stay kept, the others are the core's alone now. */
  handedTo(conn: KeptConn, pid: number): void {
    delete conn.head;
    if (conn.durable) conn.heldBy = pid;
    else this.conns.delete(conn.id);
  }

  record(conn: KeptConn): ConnRecord {
    return { id: conn.id, via: conn.via, meta: conn.meta ?? null, ...(conn.head ? { head: conn.head } : {}) };
  }

  /** Closes every listener and connection (the full stop). */
  async close(): Promise<void> {
    for (const id of [...this.conns.keys()]) this.drop(id);
    await Promise.all([...this.listeners.keys()].map((name) => this.unlisten(name)));
  }

  private accept(via: string, durable: boolean, socket: Socket): void {
    this.accepted(this.add(via, durable, socket));
  }

  private add(via: string, durable: boolean, socket: Socket): KeptConn {
    // Never read here, so errors can only be a reset seen on a write we never make: nothing to do.
    socket.on('error', () => {});
    const conn: KeptConn = { id: `c${++this.nextId}`, via, socket, durable, meta: null, heldBy: null };
    this.conns.set(conn.id, conn);
    return conn;
  }
}
