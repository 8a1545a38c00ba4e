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

  send(data: Buffer | string, _options?: unknown, done?: () => void): void {
    this.sent.push(JSON.parse(data.toString()) as Record<string, unknown>);
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
  /** Every message the link sent, parsed, oldest first. */
  sent: Record<string, unknown>[];
  /** Delivers a frame as if the peer sent it. */
  receive(message: unknown): void;
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
    receive: (message) => socket.emit('message', Buffer.from(JSON.stringify(message))),
    drop: () => socket.close(),
  };
}

export type { RpcMessage };
