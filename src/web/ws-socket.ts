// A node `ws` WebSocket as the MessageSocket that createRemoteHub speaks over.
import type { WebSocket } from 'ws';
import type { MessageSocket } from '../api/remote.ts';

/** A close is normal only with code 1000; anything else comes with its reason. */
export function closeError(code: number, reason: string, cause: Error | null): Error | undefined {
  if (cause) return cause;
  if (code === 1000) return undefined;
  if (reason) return new Error(reason);
  return new Error(code === 1006 ? 'connection lost' : `closed with code ${code}`);
}

export function wsMessageSocket(ws: WebSocket): MessageSocket {
  let lastError: Error | null = null;
  ws.on('error', (err) => {
    lastError = err;
  });
  return {
    send: (text) => ws.send(text),
    onMessage(cb) {
      ws.on('message', (data, isBinary) => {
        if (isBinary) ws.close(1003, 'text frames only');
        else cb(data.toString());
      });
    },
    onClose(cb) {
      ws.once('close', (code, reason) => cb(closeError(code, reason.toString(), lastError)));
    },
    close: () => ws.close(1000),
  };
}
