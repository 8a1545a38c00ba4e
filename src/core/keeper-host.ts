// The core's side of the keeper (src/keeper/): CoreHost over the IPC channel to the process
// that started it. Listening, connecting and spawning are requests the keeper answers; sockets
// arrive as handles beside `conn` and `connected`. What the keeper handed over from the last
// core (connections with what it registered for them, held diffs, running children) is
// `restored` once `init` and every connection have come.
import type { Socket } from 'node:net';
import type { ChildRecord, ConnRecord, CoreCrash, CoreMessage, HeldDiff, KeeperMessage, StartReason } from '../keeper/protocol.ts';
import { KEEPER_PROTOCOL } from '../keeper/protocol.ts';
import type { ChildSpec, CoreHost, HostSocket, Listener, ListenSpec, OwnedChild } from './host.ts';

/** A connection the last core had registered, with the bytes it read and did not consume. */
export interface RestoredConn {
  id: string;
  socket: Socket;
  meta: unknown;
  head: Buffer;
}

export interface Restored {
  reason: StartReason;
  crash: CoreCrash | null;
  restarts: number;
  /** When the keeper started (the daemon's start). */
  since: number;
  conns: RestoredConn[];
  held: HeldDiff[];
  children: KeeperChild[];
  memory: Record<string, unknown>;
}

type Reply = Extract<KeeperMessage, { req: number }>;
/** A request as the caller writes it: the host numbers it. */
type Request = Extract<CoreMessage, { req: number }> extends infer M ? (M extends unknown ? Omit<M, 'req'> : never) : never;

export class KeeperHost implements CoreHost {
  pid = 0;
  ownPids: ReadonlySet<number> = new Set([process.pid]);
  private nextReq = 0;
  private readonly replies = new Map<number, { resolve(msg: Reply, socket?: Socket): void }>();
  private readonly listeners = new Map<string, (conn: HostSocket) => void>();
  /** Connections that came before their listener's handler (a new core starts its parts one by one). */
  private readonly early = new Map<string, HostSocket[]>();
  private readonly children = new Map<string, KeeperChild>();
  private restoring: Restored | null = null;
  private resolveRestored!: (restored: Restored) => void;
  /** Everything the keeper handed over, once it has all come. */
  readonly restored: Promise<Restored> = new Promise((resolve) => (this.resolveRestored = resolve));
  /** The keeper asks for a graceful handover or a full stop. */
  onHandover: () => void = () => {};
  onShutdown: (reason: string) => void = () => {};

  constructor(private readonly post: (msg: CoreMessage) => void) {}

  hello(): void {
    this.post({ t: 'hello', protocol: KEEPER_PROTOCOL });
  }

  /** Every message from the keeper comes here (with its socket, when it carries one). */
  handle(msg: KeeperMessage, socket?: Socket): void {
    switch (msg.t) {
      case 'init':
        this.pid = msg.keeperPid;
        this.ownPids = new Set([process.pid, msg.keeperPid]);
        this.restoring = {
          reason: msg.reason,
          crash: msg.crash,
          restarts: msg.restarts,
          since: msg.since,
          conns: [],
          held: msg.held,
          children: msg.children.map((c) => this.adoptChild(c)),
          memory: msg.memory,
        };
        return;
      case 'conn':
        if (socket) this.received(msg.conn, socket);
        return;
      case 'restored':
        if (this.restoring) this.resolveRestored(this.restoring);
        this.restoring = null;
        return;
      case 'out':
        this.children.get(msg.child)?.emit('out', msg.text);
        return;
      case 'err':
        this.children.get(msg.child)?.emit('err', msg.text);
        return;
      case 'exit': {
        const child = this.children.get(msg.child);
        this.children.delete(msg.child);
        child?.exited(msg.code, msg.signal as NodeJS.Signals | null);
        return;
      }
      case 'handover':
        this.onHandover();
        return;
      case 'shutdown':
        this.onShutdown(msg.reason);
        return;
      default: {
        const waiting = this.replies.get(msg.req);
        this.replies.delete(msg.req);
        waiting?.resolve(msg, socket);
      }
    }
  }

  private received(record: ConnRecord, socket: Socket): void {
    if (record.meta !== null && this.restoring) {
      this.restoring.conns.push({ id: record.id, socket, meta: record.meta, head: Buffer.from(record.head ?? '', 'base64') });
      return;
    }
    if (record.meta !== null) {
      // Registered, yet not part of a restore: nothing here knows it any more.
      this.drop(record.id);
      socket.destroy();
      return;
    }
    const conn = { id: record.id, socket };
    const handler = this.listeners.get(record.via);
    if (handler) handler(conn);
    else this.early.set(record.via, [...(this.early.get(record.via) ?? []), conn]);
  }

  private request(msg: Request): Promise<{ msg: Reply; socket?: Socket | undefined }> {
    const req = ++this.nextReq;
    return new Promise((resolve, reject) => {
      this.replies.set(req, {
        resolve: (reply, socket) => {
          if (reply.t === 'failed') reject(Object.assign(new Error(reply.error), reply.code ? { code: reply.code } : {}));
          else resolve({ msg: reply, socket });
        },
      });
      this.post({ ...msg, req } as CoreMessage);
    });
  }

  async listen(name: string, spec: ListenSpec, onSocket: (conn: HostSocket) => void): Promise<Listener> {
    const { msg } = await this.request({ t: 'listen', name, ...spec });
    if (msg.t !== 'listening') throw new Error(`listen ${name}: unexpected answer ${msg.t}`);
    this.listeners.set(name, onSocket);
    for (const conn of this.early.get(name) ?? []) onSocket(conn);
    this.early.delete(name);
    return {
      port: msg.port,
      fellBack: msg.fellBack,
      close: async () => {
        this.listeners.delete(name);
        this.post({ t: 'unlisten', name });
      },
    };
  }

  async connect(host: string, port: number): Promise<HostSocket> {
    const { msg, socket } = await this.request({ t: 'connect', host, port });
    if (msg.t !== 'connected' || !socket) throw new Error(`connect ${host}:${port}: unexpected answer ${msg.t}`);
    return { id: msg.conn, socket };
  }

  keep(id: string, meta: unknown): void {
    this.post({ t: 'keep', conn: id, meta });
  }

  drop(id: string): void {
    this.post({ t: 'drop', conn: id });
  }

  hold(diff: HeldDiff): void {
    this.post({ t: 'hold', diff });
  }

  release(diffId: string): void {
    this.post({ t: 'release', diff: diffId });
  }

  remember(key: string, value: unknown): void {
    this.post({ t: 'remember', key, value });
  }

  /** Asks the keeper for a graceful restart; resolves once the next core is loaded and this one is about to hand over. */
  async restart(): Promise<void> {
    await this.request({ t: 'restart' });
  }

  spawn(spec: ChildSpec): OwnedChild {
    const child = new KeeperChild(spec.id, this.post);
    this.children.set(spec.id, child);
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(spec.env)) if (value !== undefined) env[key] = value;
    child.starting(
      this.request({ t: 'spawn', id: spec.id, command: spec.command, args: spec.args, cwd: spec.cwd, env, detached: spec.detached, meta: spec.meta }).then(({ msg }) => {
        if (msg.t !== 'spawned') throw new Error(`spawn: unexpected answer ${msg.t}`);
        return msg.pid;
      }),
    );
    return child;
  }

  private adoptChild(record: ChildRecord): KeeperChild {
    const child = new KeeperChild(record.id, this.post, record);
    this.children.set(record.id, child);
    child.starting(Promise.resolve(record.pid));
    // The dialogs it still waits on come first, as if pi had just asked.
    for (const line of record.unanswered) child.emit('out', line);
    return child;
  }
}

type ChildEvent = { kind: 'out' | 'err'; text: string };

/** A child the keeper runs: its output comes in `out`/`err` messages, and waits until someone listens. */
export class KeeperChild implements OwnedChild {
  pid: number | null = null;
  started!: Promise<number>;
  private readonly waiting: ChildEvent[] = [];
  private stdout: ((text: string) => void) | null = null;
  private stderr: ((text: string) => void) | null = null;
  private exitListener: ((code: number | null, signal: NodeJS.Signals | null) => void) | null = null;
  private exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;

  constructor(
    readonly id: string,
    private readonly post: (msg: CoreMessage) => void,
    /** What the last core kept of it (a child taken over). */
    readonly record: ChildRecord | null = null,
  ) {}

  get kept(): unknown {
    return this.record?.meta;
  }

  starting(pid: Promise<number>): void {
    this.started = pid.then((n) => (this.pid = n));
    this.started.catch(() => {});
  }

  write(text: string): void {
    this.post({ t: 'stdin', child: this.id, text });
  }

  endInput(): void {
    this.post({ t: 'endStdin', child: this.id });
  }

  signal(signal: NodeJS.Signals, group: boolean): void {
    this.post({ t: 'signal', child: this.id, signal, group });
  }

  keep(meta: unknown): void {
    this.post({ t: 'childMeta', child: this.id, meta });
  }

  // What waited is handed on a moment later: the owner is still wiring itself up when it listens.
  onStdout(listener: (text: string) => void): void {
    this.stdout = listener;
    queueMicrotask(() => this.flush());
  }

  onStderr(listener: (text: string) => void): void {
    this.stderr = listener;
    queueMicrotask(() => this.flush());
  }

  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void {
    this.exitListener = listener;
    queueMicrotask(() => {
      if (this.exit && this.stdout) listener(this.exit.code, this.exit.signal);
    });
  }

  emit(kind: 'out' | 'err', text: string): void {
    this.waiting.push({ kind, text });
    this.flush();
  }

  exited(code: number | null, signal: NodeJS.Signals | null): void {
    this.exit = { code, signal };
    this.flush();
    if (this.exitListener && this.stdout) this.exitListener(code, signal);
  }

  private flush(): void {
    if (!this.stdout || !this.stderr) return;
    while (this.waiting.length > 0) {
      const event = this.waiting.shift()!;
      if (event.kind === 'out') this.stdout(event.text);
      else this.stderr(event.text);
    }
  }
}
