// What the preload puts on `window.patchbay`: hub calls and the event stream, nothing more.
// Calls are answered as data, because only an error's message would cross the context
// bridge; `bridgeHub` turns them back into the HubApi, errors keeping their codes as they do
// over the browser face's WebSocket.
import { HubError, type HubApi, type HubEvent, type HubMethod, type ParamsOf, type ResultOf } from '../../src/api/types.ts';
import { isHubErrorCode } from '../../src/api/wire.ts';
import type { HubCallResponse } from './ipc.ts';

export interface PatchbayBridge {
  invoke(method: HubMethod, params: unknown): Promise<HubCallResponse>;
  /** Returns an unsubscribe function. */
  subscribe(listener: (event: HubEvent) => void): () => void;
}

export function bridgeHub(bridge: PatchbayBridge): HubApi {
  return {
    async call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
      const response = await bridge.invoke(method, params);
      if (response.ok) return response.result as ResultOf<M>;
      const { message, code } = response.error;
      throw isHubErrorCode(code) ? new HubError(message, code) : new Error(`Patchbay failed on ${method}: ${message}`);
    },
    subscribe: (listener) => bridge.subscribe(listener),
  };
}
