// The page's WebSocket to `/api` as a MessageSocket (browser-hub.ts opens it, with the
// credential as a subprotocol). No node imports, no DOM types.
import type { MessageSocket } from '../api/remote.ts';

/** The part of the DOM WebSocket used here, so this compiles without the DOM lib. */
export interface BrowserWebSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}

const OPEN = 1;

/** Frames sent before the handshake completes wait for it. */
export function browserMessageSocket(ws: BrowserWebSocket): MessageSocket {
  const queued: string[] = [];
  let opened = ws.readyState === OPEN;
  ws.addEventListener('open', () => {
    opened = true;
    for (const text of queued.splice(0)) ws.send(text);
  });
  return {
    send(text) {
      if (opened) ws.send(text);
      else queued.push(text);
    },
    onMessage(cb) {
      ws.addEventListener('message', (event) => {
        if (typeof event.data === 'string') cb(event.data);
        else ws.close(1003, 'text frames only');
      });
    },
    onClose(cb) {
      ws.addEventListener('close', ({ code, reason }) => {
        // Browsers hide the HTTP status of a refused handshake.
        if (!opened) cb(new Error('Patchbay did not accept the connection'));
        else if (code === 1000) cb();
        else cb(new Error(reason || `closed with code ${code}`));
      });
    },
    close: () => ws.close(1000),
  };
}
