// Bounds on connections that have not proven themselves yet. A loopback server accepts every
// TCP connection, so without a cap anyone on the machine can hold half-open sockets until the
// process runs out of file descriptors, and then nothing works: not discovery's probes, not
// the lockfiles, not the next agent. Each server keeps its waiting connections under a cap
// and a deadline; a connection stops counting once it upgrades with a valid credential.
import { readFileSync } from 'node:fs';
import type { Socket } from 'node:net';

export interface GateOptions {
  /** At most this many connections wait at once; one more pushes out the oldest. */
  maxPending: number;
  /** A connection that has not upgraded this long after it was accepted is cut. */
  deadlineMs: number;
  /** Hears each connection the gate cut, and why (for a rate-limited log). */
  onCut(reason: 'deadline' | 'crowded'): void;
}

/**
 * Pushing out the oldest (rather than refusing the newest) means a flood cannot lock a real
 * agent out: its upgrade arrives within a millisecond of connecting, long before `maxPending`
 * newer connections do, while a flood that only holds sockets is shed as it grows.
 */
export class ConnectionGate {
  /** Insertion order is age: the first entry is the oldest. */
  private readonly pending = new Map<Socket, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly options: GateOptions) {}

  /** How many connections are waiting right now. */
  get size(): number {
    return this.pending.size;
  }

  /** A new connection: it counts until it upgrades or closes. */
  admit(socket: Socket): void {
    if (this.closed) {
      socket.destroy();
      return;
    }
    if (this.pending.size >= this.options.maxPending) {
      const oldest = this.pending.keys().next().value;
      if (oldest !== undefined) this.cut(oldest, 'crowded');
    }
    const timer = setTimeout(() => this.cut(socket, 'deadline'), this.options.deadlineMs);
    timer.unref();
    this.pending.set(socket, timer);
    socket.once('close', () => this.forget(socket));
  }

  /** The connection proved itself: it no longer counts against the cap. */
  upgraded(socket: Socket): void {
    this.forget(socket);
  }

  /** Cuts every waiting connection; later ones are cut as they come. Safe to call twice. */
  close(): void {
    this.closed = true;
    for (const socket of [...this.pending.keys()]) {
      this.forget(socket);
      socket.destroy();
    }
  }

  private cut(socket: Socket, reason: 'deadline' | 'crowded'): void {
    this.forget(socket);
    socket.destroy();
    this.options.onCut(reason);
  }

  private forget(socket: Socket): void {
    const timer = this.pending.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.pending.delete(socket);
  }
}

/** Answers an upgrade request and hangs up; the socket stays under the gate's deadline until the peer is gone. */
export function refuse(socket: Socket, status: number, reason: string): void {
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** A peer that hangs up while it is being answered is not news. */
export function isHangUp(err: NodeJS.ErrnoException): boolean {
  return err.code === 'ECONNRESET' || err.code === 'EPIPE';
}

const FALLBACK_FD_LIMIT = 1024;

/** The soft limit on open files (Linux: /proc/self/limits); 1024 where it cannot be read. */
export function openFileLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number {
  try {
    const match = /^Max open files\s+(\d+|unlimited)\s/m.exec(read());
    if (match?.[1] === 'unlimited') return Number.MAX_SAFE_INTEGER;
    const value = Number(match?.[1]);
    return Number.isInteger(value) && value > 0 ? value : FALLBACK_FD_LIMIT;
  } catch {
    return FALLBACK_FD_LIMIT;
  }
}

/**
 * Waiting connections per listening server: an eighth of the descriptor limit (two servers
 * then hold at most a quarter), between 8 and 128. 120 descriptors → 15; 1024 → 128.
 */
export function pendingCapFor(fdLimit: number): number {
  return Math.max(8, Math.min(128, Math.floor(fdLimit / 8)));
}
