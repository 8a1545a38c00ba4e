// One UI, two transports: Electron's preload bridge, or the control server's WebSocket.
import { createRemoteHub } from '../../../src/api/remote.ts';
import type { HubApi } from '../../../src/api/types.ts';
import { browserMessageSocket, controlSocketUrl } from '../../../src/web/browser-socket.ts';
import { bridgeHub } from '../../../electron/shared/bridge.ts';

export interface HubConnection {
  api: HubApi;
  transport: 'electron' | 'websocket';
  /** Called when the connection is lost for good (never for Electron's bridge). */
  onLost(cb: (why: string) => void): void;
  close(): void;
}

export function connectHub(win: Window = window): HubConnection {
  const bridge = win.patchbay;
  if (bridge !== undefined) {
    return { api: bridgeHub(bridge), transport: 'electron', onLost: () => {}, close: () => {} };
  }
  const socket = browserMessageSocket(new WebSocket(controlSocketUrl(win.location)));
  const api = createRemoteHub(socket);
  return {
    api,
    transport: 'websocket',
    onLost: (cb) => socket.onClose((err) => cb(err?.message ?? 'Patchbay closed the connection')),
    close: () => api.close(),
  };
}
