// The renderer's only door to the main process: `window.patchbay`, a HubApi client.
// No ipcRenderer, no Node: the page gets typed hub calls and the event stream, nothing else.
// Built as CommonJS in one file (electron.vite.config.ts): sandboxed preloads need that.
import { contextBridge, ipcRenderer } from 'electron';
import type { IpcRendererEvent } from 'electron';
import type { HubEvent, HubMethod, ParamsOf, ResultOf } from '../../src/api/types.ts';
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
  async call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    const response = await invoke('hub:call', { method, params });
    if (response.ok) return response.result as ResultOf<M>;
    // Only an error's message crosses the context bridge, so that is all the page gets.
    throw new Error(response.error.message);
  },
  subscribe(listener: (event: HubEvent) => void): () => void {
    return on('hub:event', listener);
  },
};

contextBridge.exposeInMainWorld('patchbay', bridge);
