// HubApi on the far side of a text-message socket: ids correlate replies, events fan out.
// No node imports, so the browser renderer uses it as is.
import { HubError, type HubApi, type HubEvent, type HubMethod, type ParamsOf, type ResultOf } from './types.ts';
import { decodeServerFrame, encodeRequest, expandResult, isHubErrorCode } from './wire.ts';

/** The least a transport must offer: text frames both ways and one close notice. */
export interface MessageSocket {
  send(text: string): void;
  onMessage(cb: (text: string) => void): void;
  /** Called once; `err` says why when the close was not a normal one. */
  onClose(cb: (err?: Error) => void): void;
  close(): void;
}

export interface RemoteHub extends HubApi {
  /** Rejects every call still waiting; safe to call twice. */
  close(): void;
  /** Called once when the connection ends, whoever ended it (at once if it already has). */
  onClose(cb: (why: string) => void): void;
}

interface Pending {
  method: HubMethod;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** A listener's bug must not stop the others or the socket; it surfaces as an uncaught error. */
function report(err: unknown): void {
  queueMicrotask(() => {
    throw err;
  });
}

export function createRemoteHub(socket: MessageSocket): RemoteHub {
  const pending = new Map<number, Pending>();
  const listeners = new Set<(event: HubEvent) => void>();
  const closeListeners: ((why: string) => void)[] = [];
  let nextId = 1;
  /** Set once: why no more calls can be answered. */
  let closedBecause: string | null = null;

  const shutdown = (why: string): void => {
    if (closedBecause !== null) return;
    closedBecause = why;
    const waiting = [...pending.values()];
    pending.clear();
    for (const p of waiting) p.reject(new HubError(`${p.method}: ${why} before it answered`, 'unavailable'));
    for (const cb of closeListeners.splice(0)) notifyClosed(cb, why);
  };

  const notifyClosed = (cb: (why: string) => void, why: string): void => {
    try {
      cb(why);
    } catch (err) {
      report(err);
    }
  };

  const fail = (why: string): void => {
    shutdown(why);
    socket.close();
  };

  socket.onMessage((text) => {
    if (closedBecause !== null) return;
    let frame;
    try {
      frame = decodeServerFrame(text);
    } catch (err) {
      fail(`the connection to Patchbay was dropped: ${(err as Error).message}`);
      return;
    }
    if (frame.kind === 'event') {
      for (const listener of [...listeners]) {
        try {
          listener(frame.event);
        } catch (err) {
          report(err);
        }
      }
      return;
    }
    const call = pending.get(frame.id);
    if (!call) {
      fail(`the connection to Patchbay was dropped: it answered request ${frame.id}, which is not waiting`);
      return;
    }
    pending.delete(frame.id);
    if (frame.kind === 'result') call.resolve(expandResult(call.method, frame.result));
    else if (isHubErrorCode(frame.error.code)) call.reject(new HubError(frame.error.message, frame.error.code));
    else call.reject(new Error(`Patchbay failed on ${call.method}: ${frame.error.message}`));
  });

  socket.onClose((err) => {
    shutdown(err ? `the connection to Patchbay closed (${err.message})` : 'the connection to Patchbay closed');
  });

  return {
    call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
      if (closedBecause !== null) {
        return Promise.reject(new HubError(`${method}: ${closedBecause}`, 'unavailable'));
      }
      const id = nextId++;
      return new Promise<ResultOf<M>>((resolve, reject) => {
        pending.set(id, { method, resolve: resolve as (value: unknown) => void, reject });
        try {
          socket.send(encodeRequest(id, method, params));
        } catch (err) {
          pending.delete(id);
          reject(new HubError(`${method}: could not send to Patchbay: ${(err as Error).message}`, 'unavailable'));
        }
      });
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    close() {
      if (closedBecause === null) fail('the connection to Patchbay was closed by this client');
    },
    onClose(cb) {
      if (closedBecause === null) closeListeners.push(cb);
      else {
        const why = closedBecause;
        queueMicrotask(() => notifyClosed(cb, why));
      }
    },
  };
}
