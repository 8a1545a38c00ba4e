// One UI, two transports: Electron's preload bridge, or the control server's WebSocket, with
// the browser's sign-in and reconnection (src/web/browser-hub.ts).
import type { HubApi } from '../../../src/api/types.ts';
import { connectBrowserHub, type ConnectionState } from '../../../src/web/browser-hub.ts';
import { signInSecretFrom } from '../../../src/web/browser-protocol.ts';
import { bridgeHub } from '../../../electron/shared/bridge.ts';
import { indexedDbSignIns } from './sign-in-store.ts';

export type { ConnectionState };

export interface HubConnection {
  api: HubApi;
  transport: 'electron' | 'websocket';
  /** The state now (what onState would call back with at once). */
  state(): ConnectionState;
  /** Calls `cb` now and on every change (Electron's bridge is always connected). */
  onState(cb: (state: ConnectionState) => void): () => void;
  /** Skips the wait before the next reconnect attempt. */
  retryNow(): void;
  close(): void;
}

export function connectHub(win: Window = window): HubConnection {
  const bridge = win.patchbay;
  if (bridge !== undefined) {
    return {
      api: bridgeHub(bridge),
      transport: 'electron',
      state: () => ({ kind: 'connected' }),
      onState: (cb) => {
        cb({ kind: 'connected' });
        return () => {};
      },
      retryNow: () => {},
      close: () => {},
    };
  }
  // A new sign-in link pasted into this tab changes only the hash: start over with it.
  win.addEventListener('hashchange', () => {
    if (signInSecretFrom(win.location.hash) !== null) win.location.reload();
  });
  const hub = connectBrowserHub({
    origin: win.location.origin,
    hash: win.location.hash,
    clearHash: () => win.history.replaceState(null, '', `${win.location.pathname}${win.location.search}`),
    // One sign-in per browser profile: every tab of this address shares it (other ports cannot read it).
    signIns: indexedDbSignIns(win),
    post: (url, body) =>
      win.fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, credentials: 'omit', cache: 'no-store' }),
    openSocket: (url, protocols) => new WebSocket(url, protocols),
  });
  return { api: hub, transport: 'websocket', state: () => hub.state, onState: (cb) => hub.onState(cb), retryNow: () => hub.retryNow(), close: () => hub.close() };
}
