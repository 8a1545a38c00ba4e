// The page's WebSocket to `/api` as a MessageSocket (browser-hub.ts opens it, with the
// credential as a subprotocol). No node imports, no DOM types.
import type { MessageSocket } from '../api/remote.ts';

/** The part of the DOM WebSocket used here, so this compiles without the DOM lib. */
export interface BrowserWebSocket {
  readonly readyState: number;
  binaryType: string;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
  addEventListener(type: 'close', listener: (event: { code: number; reason: string }) => void): void;
}

const OPEN = 1;

/** A binary frame's UTF-8 text; null when it is not UTF-8. */
function utf8(data: ArrayBuffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(data);
  } catch {
    return null;
  }
}

/**
 * Frames sent before the handshake completes wait for it. Patchbay sends its big answers (a
 * diff's texts) as binary frames of UTF-8 JSON, which Chromium takes faster than text frames.
 */
export function browserMessageSocket(ws: BrowserWebSocket): MessageSocket {
  ws.binaryType = 'arraybuffer';
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
        const text = typeof event.data === 'string' ? event.data : event.data instanceof ArrayBuffer ? utf8(event.data) : null;
        if (text !== null) cb(text);
        else ws.close(1007, 'frames must be UTF-8 JSON');
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
