// The keeper: what `patchbay daemon` is. It owns what agents and editors must never lose — the
// listening sockets, a copy of every connection, the hosted pi processes and a record of every
// unanswered openDiff — and runs the core (everything else: routing, the inbox, discovery, the
// control server) as a child it can restart: after `patchbay restart` (the old core hands over
// at frame boundaries), or after the core died (within a moment; the connections it had
// registered go to the next one as they are). It does little, so it has little reason to die.
import { CoreProcess, type CoreEntry } from './core-process.ts';
import { OwnedProcess } from './owned-process.ts';
import { KEEPER_PROTOCOL, type ChildRecord, type CoreCrash, type CoreMessage, type HeldDiff, type KeeperMessage, type StartReason } from './protocol.ts';
import { KeeperSockets, type KeptConn } from './sockets.ts';

export interface KeeperOptions {
  entry: CoreEntry;
  log(message: string): void;
  /** Where the core's stderr goes (the daemon's). */
  stderr(text: string): void;
  /** A core's code loaded this long after it was started, or it is given up on. */
  helloTimeoutMs?: number;
  /** How long a core may take to end review cleanly at a full stop. */
  shutdownTimeoutMs?: number;
  /** How long an old core may take to hand over at frame boundaries. */
  handoverTimeoutMs?: number;
}

export interface Serving {
  door: number | null;
  control: string;
  warnings: string[];
  corePid: number;
}

/** Waits between starts of a core that keeps dying: the first again at once, then longer. */
const CRASH_WAITS_MS = [0, 250, 1000, 2000, 5000];
/** Crashes further apart than this do not add up. */
const CRASH_WINDOW_MS = 60_000;
/** Children still running when the keeper stops get this long after SIGTERM. */
const CHILD_GRACE_MS = 3000;
/** A stop asked during a restart waits this long at most for it to end, looking this often. */
const RESTART_SETTLE_MS = 15_000;
const RESTART_SETTLE_POLL_MS = 20;

type Phase = 'starting' | 'serving' | 'restarting' | 'stopping' | 'stopped';

interface Core {
  proc: CoreProcess;
  /** It got its init and every connection (it may be handed new ones). */
  attached: boolean;
  /** It handed over (a graceful restart): its exit is no crash. */
  handedOver: boolean;
  ready: boolean;
}

export class Keeper {
  private readonly sockets: KeeperSockets;
  private readonly children = new Map<string, OwnedProcess>();
  private readonly held = new Map<string, HeldDiff>();
  private readonly memory = new Map<string, unknown>();
  private phase: Phase = 'starting';
  private core: Core | null = null;
  /** A core started for a graceful restart, waiting for the old one to hand over. */
  private next: Core | null = null;
  private restarts = 0;
  private readonly since = Date.now();
  private crashes: number[] = [];
  private lastCrash: CoreCrash | null = null;
  private readonly waiters = new Set<{ resolve(serving: Serving): void; reject(err: Error): void }>();
  private relaunch: NodeJS.Timeout | null = null;
  private stoppedCore: (() => void) | null = null;
  private stopping: Promise<void> | null = null;

  constructor(private readonly options: KeeperOptions) {
    this.sockets = new KeeperSockets((conn) => this.accepted(conn), options.log);
  }

  get corePid(): number | null {
    return this.core?.proc.pid ?? null;
  }

  /** Starts the first core; resolves once it serves, rejects when it could not start (its stderr says why). */
  start(): Promise<Serving> {
    const serving = this.whenServing();
    this.launch('start');
    return serving;
  }

  /** A graceful restart (the desktop app's Restart; the core asks for its own). Resolves once the new core serves. */
  async restart(): Promise<Serving> {
    await this.beginRestart();
    return this.whenServing();
  }

  /** The full stop: the core ends review cleanly (pending diffs rejected, lockfiles back), then everything closes. */
  stop(reason: string): Promise<void> {
    // Once: a second signal while the first stop waits for a restart must not stop twice.
    this.stopping ??= this.stopOnce(reason);
    return this.stopping;
  }

  private async stopOnce(reason: string): Promise<void> {
    // The old core is handing over and no longer ends review: whichever core serves once the
    // restart settles (the next one, or the old one if the next did not start) does.
    await this.restartSettled(RESTART_SETTLE_MS);
    if (this.phase === 'stopped') return;
    const was = this.phase;
    this.phase = 'stopping';
    if (this.relaunch) clearTimeout(this.relaunch);
    this.next?.proc.kill();
    let core = this.core;
    if (core && !core.ready && was !== 'starting') {
      // A core starting after a crash: it ends review once it is up.
      await Promise.race([this.whenServing().catch(() => {}), sleep(10_000)]);
      core = this.core;
    }
    if (core?.ready && core.proc.alive) {
      const stopped = new Promise<void>((resolve) => (this.stoppedCore = resolve));
      await core.proc.send({ t: 'shutdown', reason });
      const ended = await Promise.race([stopped.then(() => true), core.proc.exited.then(() => false), sleep(this.options.shutdownTimeoutMs ?? 20_000).then(() => false)]);
      if (!ended) this.options.log('the core did not end review cleanly; pending edits were not rejected (the next start lists them)');
    }
    if (core) {
      await Promise.race([core.proc.exited, sleep(5000)]);
      core.proc.kill();
    }
    await this.stopChildren();
    await this.sockets.close();
    this.phase = 'stopped';
    for (const w of this.waiters) w.reject(new Error(`Patchbay stopped: ${reason}`));
    this.waiters.clear();
  }

  /** Until a restart under way has ended either way, or `ms` passed. */
  private async restartSettled(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.phase === 'restarting' && Date.now() < deadline) await sleep(RESTART_SETTLE_POLL_MS);
  }

  private whenServing(): Promise<Serving> {
    return new Promise((resolve, reject) => this.waiters.add({ resolve, reject }));
  }

  private launch(reason: StartReason): void {
    const core = this.fork();
    this.core = core;
    void core.proc.hello.then(() => this.attach(core, reason));
  }

  private fork(): Core {
    const core: Core = { proc: null as unknown as CoreProcess, attached: false, handedOver: false, ready: false };
    core.proc = new CoreProcess(this.options.entry, (_proc, msg) => this.onMessage(core, msg), this.options.stderr);
    void core.proc.exited.then((how) => this.onExit(core, how));
    return core;
  }

  /** Hands a core its state and every connection waiting for one. */
  private async attach(core: Core, reason: StartReason): Promise<void> {
    if (this.core !== core || !core.proc.alive) return;
    const pid = core.proc.pid;
    const waiting = this.sockets.waiting();
    const children: ChildRecord[] = [...this.children.values()].map((c) => ({ id: c.id, pid: c.pid ?? 0, meta: c.meta, unanswered: c.unansweredDialogs() }));
    await core.proc.send({
      t: 'init',
      protocol: KEEPER_PROTOCOL,
      keeperPid: process.pid,
      reason,
      crash: reason === 'crash' ? this.lastCrash : null,
      restarts: this.restarts,
      since: this.since,
      conns: waiting.length,
      held: [...this.held.values()],
      children,
      memory: Object.fromEntries(this.memory),
    });
    for (const conn of waiting) await this.handOver(core, conn);
    core.attached = true;
    await core.proc.send({ t: 'restored' });
    for (const child of this.children.values()) this.attachChild(child, core);
    if (!core.proc.alive) return;
    this.options.log(`core ${pid} started (${reason === 'start' ? 'first start' : reason === 'restart' ? 'restart' : 'after a crash'}; ${waiting.length} connections handed over)`);
  }

  private async handOver(core: Core, conn: KeptConn): Promise<void> {
    const sent = await core.proc.send({ t: 'conn', conn: this.sockets.record(conn) }, conn.socket, conn.durable);
    if (sent) this.sockets.handedTo(conn, core.proc.pid);
  }

  /** A new connection: to the core now, or when one is there. */
  private accepted(conn: KeptConn): void {
    const core = this.core;
    if (core?.attached && core.proc.alive && this.phase !== 'restarting') void this.handOver(core, conn);
  }

  private attachChild(child: OwnedProcess, core: Core): void {
    const send = (msg: KeeperMessage): void => void core.proc.send(msg);
    child.attach({
      out: (text) => send({ t: 'out', child: child.id, text }),
      err: (text) => send({ t: 'err', child: child.id, text }),
      exit: (code, signal) => {
        send({ t: 'exit', child: child.id, code, signal });
        this.children.delete(child.id);
      },
    });
  }

  private onMessage(core: Core, msg: CoreMessage): void {
    switch (msg.t) {
      case 'hello':
        if (msg.protocol !== KEEPER_PROTOCOL) {
          this.options.log(`core ${core.proc.pid} speaks keeper protocol ${msg.protocol}, this keeper ${KEEPER_PROTOCOL}: stop Patchbay and start it again to run the new version`);
          core.proc.kill();
        }
        return;
      case 'listen':
        void this.sockets.listen(msg).then(
          ({ port, fellBack }) => core.proc.send({ t: 'listening', req: msg.req, port, fellBack }),
          (err: NodeJS.ErrnoException) => core.proc.send({ t: 'failed', req: msg.req, error: err.message, ...(err.code ? { code: err.code } : {}) }),
        );
        return;
      case 'unlisten':
        void this.sockets.unlisten(msg.name);
        return;
      case 'connect':
        void this.sockets.connect(msg.host, msg.port).then(
          async (conn) => {
            const sent = await core.proc.send({ t: 'connected', req: msg.req, conn: conn.id }, conn.socket, true);
            if (sent) this.sockets.handedTo(conn, core.proc.pid);
            else this.sockets.drop(conn.id);
          },
          (err: NodeJS.ErrnoException) => core.proc.send({ t: 'failed', req: msg.req, error: err.message, ...(err.code ? { code: err.code } : {}) }),
        );
        return;
      case 'keep':
        this.sockets.keep(msg.conn, msg.meta);
        return;
      case 'drop':
        this.sockets.drop(msg.conn);
        return;
      case 'spawn':
        this.spawn(core, msg);
        return;
      case 'childMeta': {
        const child = this.children.get(msg.child);
        if (child) child.meta = msg.meta;
        return;
      }
      case 'stdin':
        this.children.get(msg.child)?.write(msg.text);
        return;
      case 'endStdin':
        this.children.get(msg.child)?.endInput();
        return;
      case 'signal':
        this.children.get(msg.child)?.signal(msg.signal, msg.group);
        return;
      case 'hold':
        this.held.set(msg.diff.id, msg.diff);
        return;
      case 'release':
        this.held.delete(msg.diff);
        return;
      case 'remember':
        this.memory.set(msg.key, msg.value);
        return;
      case 'ready':
        core.ready = true;
        if (this.phase !== 'stopping') this.phase = 'serving';
        this.crashes = this.crashes.filter((at) => Date.now() - at < CRASH_WINDOW_MS);
        for (const w of this.waiters) w.resolve({ door: msg.door, control: msg.control, warnings: msg.warnings, corePid: core.proc.pid });
        this.waiters.clear();
        return;
      case 'restart':
        void this.beginRestart(() => core.proc.send({ t: 'restarting', req: msg.req })).catch((err: Error) => {
          this.options.log(`restart refused: ${err.message}`);
          void core.proc.send({ t: 'failed', req: msg.req, error: err.message });
        });
        return;
      case 'handedOver':
        core.handedOver = true;
        for (const { conn, head } of msg.heads) {
          const kept = this.sockets.get(conn);
          if (kept && head !== '') kept.head = head;
        }
        for (const id of msg.broken) this.sockets.drop(id);
        return;
      case 'stopped':
        this.stoppedCore?.();
        return;
    }
  }

  private spawn(core: Core, msg: Extract<CoreMessage, { t: 'spawn' }>): void {
    const child = new OwnedProcess(msg, this.options.log);
    this.children.set(child.id, child);
    child.started.then(
      (pid) => {
        void core.proc.send({ t: 'spawned', req: msg.req, pid });
        if (this.core === core) this.attachChild(child, core);
      },
      (err: NodeJS.ErrnoException) => {
        this.children.delete(child.id);
        void core.proc.send({ t: 'failed', req: msg.req, error: err.message, ...(err.code ? { code: err.code } : {}) });
      },
    );
  }

  /**
   * Starts the next core, checks it speaks this keeper's protocol, then asks the current one to
   * hand over (`accepted` runs just before: the one who asked hears it while the old core serves).
   */
  private async beginRestart(accepted: () => Promise<unknown> = async () => {}): Promise<void> {
    if (this.phase !== 'serving' || !this.core) throw new Error(`Patchbay is ${this.phase === 'restarting' ? 'restarting already' : this.phase}`);
    this.phase = 'restarting';
    const old = this.core;
    const next = this.fork();
    this.next = next;
    const loaded = await Promise.race([
      next.proc.hello.then(() => true),
      next.proc.exited.then(() => false),
      sleep(this.options.helloTimeoutMs ?? 30_000).then(() => false),
    ]);
    if (!loaded || !next.proc.alive) {
      next.proc.kill();
      this.next = null;
      this.phase = 'serving';
      throw new Error(`the new core did not start: ${next.proc.lastLines().join(' / ') || 'no output'}`);
    }
    await accepted();
    // From here the old core gets nothing new: connections and child output wait for the next.
    old.attached = false;
    for (const child of this.children.values()) child.attach(null);
    this.restarts++;
    await old.proc.send({ t: 'handover' });
    const exited = await Promise.race([old.proc.exited.then(() => true), sleep(this.options.handoverTimeoutMs ?? 10_000).then(() => false)]);
    if (!exited) {
      this.options.log(`core ${old.proc.pid} did not hand over within ${this.options.handoverTimeoutMs ?? 10_000} ms; stopped (a connection mid-frame may break)`);
      old.proc.kill();
    }
  }

  private onExit(core: Core, how: { code: number | null; signal: NodeJS.Signals | null }): void {
    const pid = core.proc.pid;
    if (core === this.next) return; // a failed restart's core: beginRestart reports it
    if (core !== this.core) return;
    const lost = this.sockets.coreGone(pid);
    for (const child of this.children.values()) child.attach(null);
    if (this.phase === 'stopping' || this.phase === 'stopped') return;
    if (core.handedOver || (this.next && this.phase === 'restarting')) {
      // The graceful way: the next core was loaded and waits for its init.
      const next = this.next!;
      this.next = null;
      this.core = next;
      if (lost.length > 0) this.options.log(`${lost.length} connections not yet registered by the old core were closed`);
      void this.attach(next, 'restart');
      return;
    }
    const crash: CoreCrash = { at: Date.now(), pid, code: how.code, signal: how.signal, stderr: core.proc.lastLines() };
    if (this.phase === 'starting' && !core.ready && this.restarts === 0 && this.crashes.length === 0) {
      // The first core never served: the daemon fails to start, saying why.
      this.phase = 'stopped';
      const why = crash.stderr.at(-1) ?? `exit code ${how.code ?? how.signal}`;
      for (const w of this.waiters) w.reject(new Error(`the core did not start: ${why}`));
      this.waiters.clear();
      void this.stopChildren().then(() => this.sockets.close());
      return;
    }
    this.lastCrash = crash;
    this.crashes = [...this.crashes.filter((at) => crash.at - at < CRASH_WINDOW_MS), crash.at];
    const wait = CRASH_WAITS_MS[Math.min(this.crashes.length - 1, CRASH_WAITS_MS.length - 1)]!;
    this.restarts++;
    this.phase = 'starting';
    this.options.log(
      `core ${pid} died (${how.signal ?? `exit code ${how.code}`}); starting another${wait > 0 ? ` in ${wait} ms (${this.crashes.length} crashes in a minute)` : ''}; ${this.sockets.size} connections and ${this.held.size} held edits are kept${lost.length > 0 ? `, ${lost.length} half-open ones were closed` : ''}`,
    );
    this.core = null;
    this.relaunch = setTimeout(() => {
      this.relaunch = null;
      if (this.phase === 'starting') this.launch('crash');
    }, wait);
  }

  private async stopChildren(): Promise<void> {
    const running = [...this.children.values()].filter((c) => !c.exited);
    for (const child of running) child.signal('SIGTERM', true);
    await Promise.race([Promise.all(running.map((c) => new Promise<void>((resolve) => c.attach({ out() {}, err() {}, exit: () => resolve() })))), sleep(CHILD_GRACE_MS)]);
    for (const child of running) child.signal('SIGKILL', true);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
