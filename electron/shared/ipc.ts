// The IPC contract between the main process and the preload: one map of channels, so a
// misspelt channel or a wrong payload is a compile error on both sides. Pure: no electron.
import { HubError, isHubMethod } from '../../src/api/types.ts';
import type { HubEvent, HubMethod } from '../../src/api/types.ts';
import type { WireError } from '../../src/api/wire.ts';

/** A HubApi command as it crosses IPC: the method is checked, params are the core's to check. */
export interface HubCallRequest {
  method: HubMethod;
  params: unknown;
}

/** Errors travel as data (the wire's form): Electron keeps only the message of a thrown error, not its code. */
export type HubCallResponse = { ok: true; result: unknown } | { ok: false; error: WireError };

/** Renderer → main requests: channel → [request, response]. */
export interface IpcInvokeChannels {
  'hub:call': [HubCallRequest, HubCallResponse];
}

/** Main → renderer pushes: channel → payload. */
export interface IpcEventChannels {
  'hub:event': HubEvent;
}

export type InvokeChannel = keyof IpcInvokeChannels;
export type RequestOf<C extends InvokeChannel> = IpcInvokeChannels[C][0];
export type ResponseOf<C extends InvokeChannel> = IpcInvokeChannels[C][1];
export type EventChannel = keyof IpcEventChannels;

/** A request from the renderer is untrusted input: each channel parses its own. */
export const REQUEST_PARSERS: { [C in InvokeChannel]: (value: unknown) => RequestOf<C> } = {
  'hub:call': parseHubCall,
};

export function parseHubCall(value: unknown): HubCallRequest {
  if (typeof value !== 'object' || value === null) throw new HubError('ipc hub:call: the request must be an object');
  const { method, params } = value as { method?: unknown; params?: unknown };
  if (!isHubMethod(method)) throw new HubError(`ipc hub:call: unknown method ${JSON.stringify(method)}`);
  return { method, params };
}
