// One WebSocket text message made of several buffers (a frame around a big string that stays in
// the frame it arrived in), sent as one frame whose payload is written piece by piece: nothing big
// is copied (a 10 MiB copy costs ~35 ms here, mostly fresh pages), and a small one goes in one
// write with its header. Not as fragments of one message: pi-ide.nvim's server refuses those
// ("Fragmented messages not supported") and drops the diff. ws has no call for a frame from
// several buffers, so the frame goes to ws's socket directly, which keeps its order among ws's own
// frames as long as ws writes its frames at once (no compression, no Blobs: its sender then never
// queues). A client's frame is masked with the zero key (RFC 6455 §5.3 allows any key;
// editor-socket.ts says why it is harmless on 127.0.0.1), so its payload goes as it is.
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/** ws's own fields (null before it is connected; absent on an object that only acts as a ws). */
interface WsInternals {
  _socket?: Socket | null;
  _isServer?: boolean;
  _sender?: { _state: number; _queue: unknown[] } | null;
}

/** How long a text frame's header is for a payload of `length` bytes. */
function headerLength(length: number, masked: boolean): number {
  return 2 + (length < 126 ? 0 : length < 65536 ? 2 : 8) + (masked ? 4 : 0);
}

/** Writes a text frame's header (FIN set) at the start of `target`; its masking key, when masked, is four zeros. */
function writeHeader(target: Buffer, length: number, masked: boolean): void {
  target[0] = 0x81;
  const mask = masked ? 0x80 : 0;
  if (length < 126) target[1] = mask | length;
  else if (length < 65536) {
    target[1] = mask | 126;
    target.writeUInt16BE(length, 2);
  } else {
    target[1] = mask | 127;
    target.writeBigUInt64BE(BigInt(length), 2);
  }
  if (masked) target.writeUInt32BE(0, headerLength(length, true) - 4);
}

/** A text frame's header (FIN set) for a payload of `length` bytes, with the zero mask when `masked`. */
export function frameHeader(length: number, masked: boolean): Buffer {
  const header = Buffer.allocUnsafe(headerLength(length, masked));
  writeHeader(header, length, masked);
  return header;
}

/** A whole small frame to fill: its header written, room for its `length` bytes of payload at the end. */
function headedFrame(length: number, masked: boolean): Buffer {
  const frame = Buffer.allocUnsafe(headerLength(length, masked) + length);
  writeHeader(frame, length, masked);
  return frame;
}

/**
 * Messages up to this size are copied with their header into one buffer and written once: a
 * header and a payload written apart go as a corked writev, which costs more than copying a few
 * KiB (a getDiagnostics relayed both ways: ~3 % less of the relay's CPU per call here).
 */
export const ONE_WRITE_BYTES = 16 * 1024;

/** ws's socket, when a frame may be written to it directly (ws's sender holds nothing back), and whether its frames are masked. */
function directSocket(ws: WebSocket): { socket: Socket; masked: boolean } | null {
  const internals = ws as unknown as WsInternals;
  const socket = internals._socket;
  const sender = internals._sender;
  if (!socket || !sender || sender._state !== 0 || sender._queue.length > 0) return null;
  return { socket, masked: !internals._isServer };
}

/**
 * Writes `pieces` as one text message on `ws`; false (nothing written) when ws's sender may be
 * holding frames back, and then the caller sends the message through ws as one buffer.
 */
export function sendWholeMessage(ws: WebSocket, pieces: readonly Buffer[], done?: (err?: Error | null) => void): boolean {
  const direct = directSocket(ws);
  if (!direct) return false;
  const { socket, masked } = direct;
  let length = 0;
  for (const piece of pieces) length += piece.length;
  if (length <= ONE_WRITE_BYTES) {
    const frame = headedFrame(length, masked);
    let at = frame.length - length;
    for (const piece of pieces) at += piece.copy(frame, at);
    socket.write(frame, done);
    return true;
  }
  socket.cork();
  socket.write(frameHeader(length, masked));
  const last = pieces.length - 1;
  pieces.forEach((piece, i) => socket.write(piece, i === last ? done : undefined));
  socket.uncork();
  return true;
}

/**
 * Writes `text` (`length` bytes as UTF-8) as one text message on `ws`, a small one encoded
 * straight behind its header (no buffer of its own to copy from); false as sendWholeMessage.
 */
export function sendWholeText(ws: WebSocket, text: string, length: number, done?: (err?: Error | null) => void): boolean {
  if (length > ONE_WRITE_BYTES) return sendWholeMessage(ws, [Buffer.from(text, 'utf8')], done);
  const direct = directSocket(ws);
  if (!direct) return false;
  const frame = headedFrame(length, direct.masked);
  frame.write(text, frame.length - length, 'utf8');
  direct.socket.write(frame, done);
  return true;
}
