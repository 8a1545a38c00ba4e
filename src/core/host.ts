// What the core runs on: the listening sockets, the connections and the child processes a
// restart or a crash of the core must not take from the peers on the other end. Under
// `patchbay daemon` the keeper owns them (src/keeper/; keeper-host.ts is the core's side of
// it). Run in one process (tests, embedders) they are the core's own: LocalHost, where
// nothing outlives the core and nothing is handed over.
import type { ChildProcess } from 'node:child_process';
import { onExitDrained, spawnPiped } from '../lifecycle/spawn-piped.ts';
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { HeldDiff } from '../keeper/protocol.ts';
import { listenOn } from './listen.ts';

export interface ListenSpec {
  host: string;
  port: number;
  /** When `port` is taken, any free port instead (the caller says so loudly). */
  fallBack: boolean;
  /** Its connections outlive a core (the doors) or go with it (the control server's). */
  durable: boolean;
}

export interface Listener {
  readonly port: number;
  /** `port` was asked for and another program held it. */
  readonly fellBack: boolean;
  /** Stops listening (a door closed while Patchbay runs on). */
  close(): Promise<void>;
}

/** A connection the core was given; `id` names it to the host (keep, drop). */
export interface HostSocket {
  id: string;
  socket: Socket;
}

export interface ChildSpec {
  id: string;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  detached: boolean;
  /** What a next core needs to take it over (opaque to the host). */
  meta: unknown;
}

/** A child process the host runs for the core: its stdout comes as whole lines. */
export interface OwnedChild {
  readonly id: string;
  /** Its pid once started (null before, and when it could not start). */
  readonly pid: number | null;
  /** Resolves with its pid, or rejects when it could not start (ENOENT…). */
  readonly started: Promise<number>;
  write(text: string): void;
  endInput(): void;
  /** `group`: its whole process group (it was started detached). */
  signal(signal: NodeJS.Signals, group: boolean): void;
  /** Replaces what a next core gets of it. */
  keep(meta: unknown): void;
  /** What the core before this one kept with it (a child taken over after a restart); else undefined. */
  readonly kept: unknown;
  onStdout(listener: (text: string) => void): void;
  onStderr(listener: (text: string) => void): void;
  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void;
}

export interface CoreHost {
  /** The pid peers see (lockfiles name it): the keeper's, which outlives cores. */
  readonly pid: number;
  /** Pids of this Patchbay's own processes (the keeper and the core). */
  readonly ownPids: ReadonlySet<number>;
  listen(name: string, spec: ListenSpec, onSocket: (conn: HostSocket) => void): Promise<Listener>;
  connect(host: string, port: number): Promise<HostSocket>;
  /** What a next core needs to take this connection over; replaces what was kept before. */
  keep(id: string, meta: unknown): void;
  /** The connection is over: the host's copy goes too (else the peer never sees it end). */
  drop(id: string): void;
  spawn(spec: ChildSpec): OwnedChild;
  /** An agent's openDiff that no decision answered yet (its bytes in `file`). */
  hold(diff: HeldDiff): void;
  release(diffId: string): void;
  /** Small values a next core of this keeper starts with (tokens). */
  remember(key: string, value: unknown): void;
  /** Restarts the core gracefully (only a keeper can); resolves once the next core is loaded and this one is to hand over. */
  restart?(): Promise<void>;
}

let localIds = 0;

/** The core's own sockets and children: nothing outlives it. */
export class LocalHost implements CoreHost {
  readonly pid = process.pid;
  readonly ownPids: ReadonlySet<number> = new Set([process.pid]);
  private readonly memory = new Map<string, unknown>();

  async listen(name: string, spec: ListenSpec, onSocket: (conn: HostSocket) => void): Promise<Listener> {
    const server: Server = createServer((socket) => onSocket({ id: `${name}-${++localIds}`, socket }));
    const { port, fellBack } = await listenOn(server, spec);
    return { port, fellBack, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }

  connect(host: string, port: number): Promise<HostSocket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port });
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve({ id: `connect-${++localIds}`, socket });
      });
      socket.once('error', reject);
    });
  }

  keep(): void {}
  drop(): void {}
  hold(): void {}
  release(): void {}

  remember(key: string, value: unknown): void {
    this.memory.set(key, value);
  }

  spawn(spec: ChildSpec): OwnedChild {
    return new LocalChild(spec);
  }
}

/** A child of the core's own, its stdout cut at line ends as the keeper cuts it. */
class LocalChild implements OwnedChild {
  readonly id: string;
  readonly started: Promise<number>;
  private readonly child: ChildProcess;
  private partial = '';
  readonly kept: unknown = undefined;

  get pid(): number | null {
    return this.child.pid ?? null;
  }

  constructor(spec: ChildSpec) {
    this.id = spec.id;
    ({ child: this.child, started: this.started } = spawnPiped(spec));
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  endInput(): void {
    this.child.stdin!.end();
  }

  signal(signal: NodeJS.Signals, group: boolean): void {
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      if (group) process.kill(-pid, signal);
      else this.child.kill(signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  keep(): void {}

  onStdout(listener: (text: string) => void): void {
    this.child.stdout!.setEncoding('utf8');
    this.child.stdout!.on('data', (chunk: string) => {
      const text = this.partial + chunk;
      const end = text.lastIndexOf('\n');
      this.partial = end < 0 ? text : text.slice(end + 1);
      if (end >= 0) listener(text.slice(0, end + 1));
    });
    this.child.stdout!.on('end', () => {
      if (this.partial !== '') listener(this.partial);
      this.partial = '';
    });
  }

  onStderr(listener: (text: string) => void): void {
    this.child.stderr!.setEncoding('utf8');
    this.child.stderr!.on('data', listener);
  }

  onExit(listener: (code: number | null, signal: NodeJS.Signals | null) => void): void {
    onExitDrained(this.child, listener);
  }
}
