// The renderer's only door to the main process: `window.patchbay`, hub calls and events.
// No ipcRenderer, no Node: the page gets typed hub calls and the event stream, nothing else.
// Built as CommonJS in one file (electron.vite.config.ts): sandboxed preloads need that.
import { contextBridge, ipcRenderer } from 'electron';
import type { IpcRendererEvent } from 'electron';
import type { HubEvent } from '../../src/api/types.ts';
import type { EventChannel, InvokeChannel, IpcEventChannels, RequestOf, ResponseOf } from '../shared/ipc.ts';
import type { PatchbayBridge } from '../shared/bridge.ts';

function invoke<C extends InvokeChannel>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>> {
  return ipcRenderer.invoke(channel, request) as Promise<ResponseOf<C>>;
}

function on<C extends EventChannel>(channel: C, listener: (payload: IpcEventChannels[C]) => void): () => void {
  const wrapped = (_event: IpcRendererEvent, payload: IpcEventChannels[C]): void => listener(payload);
  ipcRenderer.on(channel, wrapped);
  return () => {
    ipcRenderer.removeListener(channel, wrapped);
  };
}

const bridge: PatchbayBridge = {
  invoke: (method, params) => invoke('hub:call', { method, params }),
  subscribe(listener: (event: HubEvent) => void): () => void {
    return on('hub:event', listener);
  },
};

contextBridge.exposeInMainWorld('patchbay', bridge);
