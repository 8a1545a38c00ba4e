// Watches a WebSocket client's raw bytes for a message sent in fragments (a frame without FIN, or
// a continuation frame). pi-ide.nvim's and claudecode.nvim's servers (lua/*/server/client.lua)
// take a first fragment for a whole message and answer a continuation frame by closing the
// connection with 1003 "Unsupported data": the doubles of those two do the same.
import type { Socket } from 'node:net';

/**
 * Calls `onFragment` once, at the first fragmented message's first frame seen on `socket`: before
 * the WebSocket reading the same socket sees that chunk.
 */
export function watchForFragments(socket: Socket, onFragment: () => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  let skip = 0; // payload bytes of the current frame still to come
  let seen = false;
  socket.prependListener('data', (chunk: Buffer) => {
    if (seen) return;
    let data = chunk;
    if (skip > 0) {
      const taken = Math.min(skip, data.length);
      skip -= taken;
      data = data.subarray(taken);
    }
    buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
    while (skip === 0 && buffered.length >= 2) {
      const fin = (buffered[0]! & 0x80) !== 0;
      const opcode = buffered[0]! & 0x0f;
      const short = buffered[1]! & 0x7f;
      const masked = (buffered[1]! & 0x80) !== 0;
      const extra = short === 126 ? 2 : short === 127 ? 8 : 0;
      const headerLength = 2 + extra + (masked ? 4 : 0);
      if (buffered.length < headerLength) return;
      const length = extra === 0 ? short : extra === 2 ? buffered.readUInt16BE(2) : Number(buffered.readBigUInt64BE(2));
      if (opcode === 0 || (!fin && opcode < 8)) {
        seen = true;
        return onFragment();
      }
      const frameEnd = headerLength + length;
      if (buffered.length >= frameEnd) buffered = buffered.subarray(frameEnd);
      else {
        skip = frameEnd - buffered.length;
        buffered = Buffer.alloc(0);
      }
    }
  });
}
