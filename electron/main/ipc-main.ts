// Typed registration of IPC handlers. Every handler gets the sender check and its channel's
// request parser for free, so no channel can forget either.
import type { IpcMainInvokeEvent } from 'electron';
import { REQUEST_PARSERS } from '../shared/ipc.ts';
import { toWireError } from '../../src/api/wire.ts';
import type { EventChannel, HubCallResponse, InvokeChannel, IpcEventChannels, RequestOf, ResponseOf } from '../shared/ipc.ts';
import type { HubApi, HubMethod, ParamsOf } from '../../src/api/types.ts';
import type { SenderFacts } from './trusted-sender.ts';

/** The part of an invoke event the checks read (Electron's event, or a test's fake). */
export type InvokeEvent = Pick<IpcMainInvokeEvent, 'senderFrame'> & { sender: { id: number } };

/** The part of `ipcMain` used here. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEvent, request: unknown) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

export function senderFacts(event: InvokeEvent): SenderFacts {
  const frame = event.senderFrame;
  return { frameUrl: frame?.url ?? null, isMainFrame: frame !== null && frame.parent === null, webContentsId: event.sender.id };
}

/**
 * Registers `handler` for `channel`. Requests from anyone but Patchbay's own windows are
 * refused with an error (logged: it means something loaded a page it should not have).
 * Returns the function that unregisters it.
 */
export function handle<C extends InvokeChannel>(
  ipc: IpcMainLike,
  channel: C,
  isTrusted: (sender: SenderFacts) => boolean,
  handler: (request: RequestOf<C>) => Promise<ResponseOf<C>>,
): () => void {
  const parse = REQUEST_PARSERS[channel];
  ipc.handle(channel, async (event, raw) => {
    const sender = senderFacts(event);
    if (!isTrusted(sender)) {
      console.error(`ipc ${channel}: refused a request from ${sender.frameUrl ?? 'a closed frame'} (webContents ${sender.webContentsId})`);
      throw new Error(`ipc ${channel}: sender not allowed`);
    }
    return handler(parse(raw));
  });
  return () => ipc.removeHandler(channel);
}

/** The `hub:call` handler: the hub's answer or its error, as data. */
export function hubCallHandler(hub: HubApi): (request: RequestOf<'hub:call'>) => Promise<HubCallResponse> {
  return async ({ method, params }) => {
    try {
      const result = await hub.call(method, params as ParamsOf<HubMethod>);
      return { ok: true, result };
    } catch (error) {
      const wire = toWireError(error);
      if (wire.code === 'internal') console.error(`hub ${method}:`, error);
      return { ok: false, error: wire };
    }
  };
}

/** The part of `webContents` that receives pushes. */
export interface EventTarget {
  send(channel: string, payload: unknown): void;
  isDestroyed(): boolean;
}

export function sendEvent<C extends EventChannel>(target: EventTarget, channel: C, payload: IpcEventChannels[C]): void {
  if (!target.isDestroyed()) target.send(channel, payload);
}
