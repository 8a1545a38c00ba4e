// An RpcLink over an in-memory socket, for unit tests of the relay's parts: what the link
// sends is recorded (parsed), and frames can be pushed in as if the peer sent them.
import { EventEmitter } from 'node:events';
import type { WebSocket } from 'ws';
import type { RpcMessage } from '../../src/protocol/jsonrpc.ts';
import { RpcLink, type LinkHandlers } from '../../src/relay/rpc-link.ts';

const OPEN = 1;
const CLOSED = 3;

class MemorySocket extends EventEmitter {
  readonly OPEN = OPEN;
  readonly CONNECTING = 0;
  readyState = OPEN;
  readonly sent: Record<string, unknown>[] = [];
  /** The same, as the bytes sent. */
  readonly sentBytes: Buffer[] = [];

  /** Fragments of a message not yet finished (ws's `fin: false`). */
  private fragments: Buffer[] = [];

  send(data: Buffer | string, options?: { fin?: boolean }, done?: () => void): void {
    this.fragments.push(Buffer.from(data));
    if (options?.fin === false) return;
    const bytes = Buffer.concat(this.fragments);
    this.fragments = [];
    this.sentBytes.push(bytes);
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(bytes.toString()) as Record<string, unknown>;
    } catch {
      parsed = { unparsable: bytes.toString('utf8', 0, 200) };
    }
    this.sent.push(parsed);
    done?.();
  }

  close(): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSED;
    this.emit('close');
  }
}

export interface FakeLink {
  link: RpcLink;
  /** Every message the link sent, parsed (`{unparsable}` when not JSON), oldest first. */
  sent: Record<string, unknown>[];
  /** The same, as the bytes sent. */
  sentBytes: Buffer[];
  /** Delivers a frame as if the peer sent it. */
  receive(message: unknown): void;
  /** Delivers these bytes as one frame. */
  receiveBytes(bytes: Buffer): void;
  /** The peer hangs up. */
  drop(): void;
}

export function fakeLink(label = 'peer', handlers: Partial<LinkHandlers> = {}): FakeLink {
  const socket = new MemorySocket();
  const link = new RpcLink(socket as unknown as WebSocket, label, {
    onRequest: () => {},
    onNotification: () => {},
    ...handlers,
  });
  return {
    link,
    sent: socket.sent,
    sentBytes: socket.sentBytes,
    receive: (message) => socket.emit('message', Buffer.from(JSON.stringify(message))),
    receiveBytes: (bytes) => socket.emit('message', bytes),
    drop: () => socket.close(),
  };
}

export type { RpcMessage };
