// Handing a live WebSocket from one core to the next over the same TCP connection (the keeper
// holds a copy of the socket, so the connection outlives the process). Two halves:
//   stopAtBoundary: the old core stops reading at a message boundary and gives back the bytes it
//     read but did not consume; nothing more is read into the dying process.
//   adoptWebSocket: the new core wraps the socket as an already open WebSocket, those bytes first.
// Both reach into ws's internals (its receiver's state and buffers, `setSocket`, as
// WebSocketServer.completeUpgrade uses it): ws is pinned at 8.23.0 in package.json, and
// test/core/ws-handover.test.ts fails if a version changes any of them.
import type { Socket } from 'node:net';
import { WebSocket } from 'ws';

/** What ws keeps that a handover needs (ws 8.23). */
interface WsInternals {
  _socket: Socket | null;
  /** A Writable: its 'drain' listener (receiverOnDrain) resumes the socket. */
  _receiver: {
    /** 0: waiting for the next frame's first bytes (GET_INFO). */
    _state: number;
    /** Non-zero while a fragmented message is incomplete. */
    _fragmented: number;
    _buffers: Buffer[];
    _bufferedBytes: number;
  } | null;
  _isServer: boolean;
  _protocol: string;
}

const GET_INFO = 0;

interface StreamHandle {
  reading: boolean;
  readStop(): number;
  readStart(): number;
}

function handleOf(socket: Socket): StreamHandle | null {
  return (socket as unknown as { _handle: StreamHandle | null })._handle;
}

function internals(ws: WebSocket): WsInternals {
  return ws as unknown as WsInternals;
}

/** Between two messages: no frame half read, no fragmented message open. */
function atBoundary(ws: WebSocket): boolean {
  const r = internals(ws)._receiver;
  return r !== null && r._state === GET_INFO && r._fragmented === 0;
}

/**
 * Stops reading `ws` at the next message boundary (now, if it is at one; else once the message
 * being received is whole, or never if that takes longer than the caller waits). Resolves with
 * the bytes read but not consumed: the next core reads them first.
 */
export function stopAtBoundary(ws: WebSocket): { stopped: Promise<Buffer>; cancel(): void } {
  const detach = (): Buffer => {
    const { _receiver: r, _socket: s } = internals(ws);
    const rest = r ? Buffer.concat(r._buffers) : Buffer.alloc(0);
    if (r) {
      // Emptied, the receiver's loop stops at this frame (it needs two bytes to go on).
      r._buffers = [];
      r._bufferedBytes = 0;
      // ws resumes the socket when its receiver drains after a big chunk (it paused for it): that
      // would read on, into this process, what the next core must read.
      (r as unknown as NodeJS.EventEmitter).removeAllListeners('drain');
    }
    if (!s) return rest;
    s.pause();
    s.removeAllListeners('data');
    const buffered: Buffer[] = [];
    for (let chunk = s.read() as Buffer | null; chunk !== null; chunk = s.read() as Buffer | null) buffered.push(chunk);
    // read() starts reading again when its buffer runs low: stopped only after it. And stopped
    // for good: whatever in the stream machinery resumes it later (ws on a drain, a scheduled
    // resume) must not read, into this process, bytes the next core is to read.
    const handle = handleOf(s);
    if (handle) {
      handle.reading = false;
      handle.readStop();
      handle.readStart = () => 0;
    }
    return Buffer.concat([rest, ...buffered]);
  };
  if (atBoundary(ws)) return { stopped: Promise.resolve(detach()), cancel: () => {} };
  let onMessage: () => void = () => {};
  const stopped = new Promise<Buffer>((resolve) => {
    // ws emits a message from inside its receiver's loop, its bytes consumed and the rest still buffered.
    onMessage = () => {
      if (internals(ws)._receiver?._fragmented) return;
      ws.off('message', onMessage);
      resolve(detach());
    };
    ws.on('message', onMessage);
  });
  return { stopped, cancel: () => ws.off('message', onMessage) };
}

/** Resolves once everything written to the socket has left this process (or it closed). */
export async function flushed(socket: Socket, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (socket.writableLength > 0 && !socket.destroyed) {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, left);
      socket.once('drain', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
  return true;
}

export interface AdoptOptions {
  /** Patchbay is the server (an agent's connection) or the client (its link to an editor). */
  role: 'server' | 'client';
  /** The subprotocol agreed at the upgrade (Claude Code's `mcp`). */
  protocol: string;
  maxPayload: number;
}

/** The socket as an open WebSocket (its upgrade done by an earlier core), `head` read first. */
export function adoptWebSocket(socket: Socket, head: Buffer, options: AdoptOptions): WebSocket {
  // As ws's server and client make theirs: pings answered, 30 s for a closing handshake.
  const Unconnected = WebSocket as unknown as new (address: null, protocols: undefined, options: object) => WebSocket;
  const ws = new Unconnected(null, undefined, { autoPong: true, closeTimeout: 30_000, maxPayload: options.maxPayload });
  const inner = internals(ws);
  // A client masks what it sends and reads unmasked frames: ws reads this in setSocket.
  inner._isServer = options.role === 'server';
  inner._protocol = options.protocol;
  (ws as unknown as { setSocket(socket: Socket, head: Buffer, opts: object): void }).setSocket(socket, head, {
    maxPayload: options.maxPayload,
    allowSynchronousEvents: true,
    skipUTF8Validation: false,
  });
  // A socket stopped by stopAtBoundary in this same process (tests): it may read again, and the
  // stream stops waiting for the read it had started when it was stopped.
  const handle = handleOf(socket);
  if (handle && Object.hasOwn(handle, 'readStart')) {
    delete (handle as Partial<StreamHandle>).readStart;
    (socket as unknown as { _readableState: { reading: boolean } })._readableState.reading = false;
  }
  if (socket.isPaused()) socket.resume();
  return ws;
}
