// One WebSocket text message made of several buffers (a frame around a big string that stays in
// the frame it arrived in), sent as one frame whose payload is written piece by piece: nothing is
// copied (a 10 MiB copy costs ~35 ms here, mostly fresh pages). Not as fragments of one message:
// pi-ide.nvim's server refuses those ("Fragmented messages not supported") and drops the diff.
// ws has no call for a frame from several buffers, so the frame goes to ws's socket directly,
// which keeps its order among ws's own frames as long as ws writes its frames at once (no
// compression, no Blobs: its sender then never queues). A client's frame is masked with the zero
// key (RFC 6455 §5.3 allows any key; editor-socket.ts says why it is harmless on 127.0.0.1), so
// its payload goes as it is.
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/** ws's own fields (null before it is connected; absent on an object that only acts as a ws). */
interface WsInternals {
  _socket?: Socket | null;
  _isServer?: boolean;
  _sender?: { _state: number; _queue: unknown[] } | null;
}

/** A text frame's header (FIN set) for a payload of `length` bytes, with the zero mask when `masked`. */
export function frameHeader(length: number, masked: boolean): Buffer {
  const extra = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const header = Buffer.alloc(2 + extra + (masked ? 4 : 0));
  header[0] = 0x81;
  header[1] = (masked ? 0x80 : 0) | (extra === 0 ? length : extra === 2 ? 126 : 127);
  if (extra === 2) header.writeUInt16BE(length, 2);
  else if (extra === 8) header.writeBigUInt64BE(BigInt(length), 2);
  return header; // a masking key, when there is one, is the four zeros after the length
}

/**
 * Writes `pieces` as one text message on `ws`; false (nothing written) when ws's sender may be
 * holding frames back, and then the caller sends the message through ws as one buffer.
 */
export function sendWholeMessage(ws: WebSocket, pieces: readonly Buffer[], done?: (err?: Error | null) => void): boolean {
  const internals = ws as unknown as WsInternals;
  const socket = internals._socket;
  const sender = internals._sender;
  if (!socket || !sender || sender._state !== 0 || sender._queue.length > 0) return false;
  let length = 0;
  for (const piece of pieces) length += piece.length;
  socket.cork();
  socket.write(frameHeader(length, !internals._isServer));
  const last = pieces.length - 1;
  pieces.forEach((piece, i) => socket.write(piece, i === last ? done : undefined));
  socket.uncork();
  return true;
}
