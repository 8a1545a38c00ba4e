// The hub a long-lived face (the desktop app) shows: the running daemon's when there is one,
// else its own, with a control server so the CLI and `patchbay open` reach it. Two hubs would
// fight over the lock dirs, so there is only ever one. When the daemon it follows goes away,
// it follows the one that replaced it or becomes the hub itself: the tray never shows a dead
// connection, and agents find a door again.
import type { RemoteHub } from '../api/remote.ts';
import { HubError, type HubApi, type HubEvent, type HubMethod, type ParamsOf, type ResultOf } from '../api/types.ts';
import { createHub } from '../hub.ts';
import type { HubOptions } from '../options.ts';
import type { StoreBackend } from '../settings/store.ts';
import { answeringDaemon, connectControl } from './control-client.ts';
import { startControlServer } from './control-server.ts';
import { InstanceHeldError, acquireInstanceLock } from './instance-lock.ts';
import { checkHome } from '../fs/home-check.ts';

export interface ShellHub extends HubApi {
  /** false while it follows a daemon: closing then only disconnects, its pending diffs stay. */
  readonly owned: boolean;
  /** Which hub it shows, for logs and the About line. */
  readonly description: string;
  /** Hears why the hub was lost (again after each failed attempt), then null once one is shown again (its snapshot follows). */
  onConnection(cb: (lost: string | null) => void): () => void;
  close(reason: string): Promise<void>;
}

export interface ShellHubDeps {
  log: (message: string) => void;
  /** The built renderer the own control server serves (the browser face). */
  rendererDir?: string;
  /** How config.json is opened by the own hub (the desktop app: electron-store). */
  storeBackend?: StoreBackend;
  /** First wait between attempts after the daemon went away; doubles up to 5 s. */
  retryMs?: number;
}

/** One hub shown: the daemon's over its control socket, or our own. */
interface Backend {
  api: HubApi;
  owned: boolean;
  description: string;
  close(reason: string): Promise<void>;
  /** The daemon's connection ended (never called for our own hub). */
  onLost?(cb: (why: string) => void): void;
}

const MAX_RETRY_MS = 5000;
/** Attempts at start while another hub holds the lock without answering yet. */
const START_ATTEMPTS = 8;

async function ownBackend(options: HubOptions, deps: ShellHubDeps): Promise<Backend> {
  // Before anything in it is read or asked: another user's home could name programs to run.
  await checkHome(options.home);
  // Held while this hub lives: a daemon started meanwhile is refused, naming us.
  const lock = await acquireInstanceLock(options.home, 'desktop app');
  let hub;
  try {
    hub = await createHub(options, { log: deps.log, ...(deps.storeBackend ? { storeBackend: deps.storeBackend } : {}) });
  } catch (err) {
    await lock.release();
    throw err;
  }
  let server;
  try {
    server = await startControlServer({
      hub,
      host: options.host,
      port: options.controlPort,
      home: options.home,
      version: options.version,
      maxPending: options.maxPendingConnections,
      upgradeDeadlineMs: options.upgradeDeadlineMs,
      log: deps.log,
      ...(deps.rendererDir ? { staticDir: deps.rendererDir } : {}),
    });
  } catch (err) {
    await hub.close('the control server did not start');
    await lock.release();
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    api: hub,
    owned: true,
    description: `control server ${server.url}`,
    close: (reason) =>
      (closing ??= (async () => {
        // The control server first, so no command lands on a hub that is closing.
        await server.close();
        await hub.close(reason);
        await lock.release();
      })()),
  };
}

function remoteBackend(remote: RemoteHub, description: string): Backend {
  return { api: remote, owned: false, description, close: async () => remote.close(), onLost: (cb) => remote.onClose(cb) };
}

export async function connectShellHub(options: HubOptions, deps: ShellHubDeps): Promise<ShellHub> {
  const listeners = new Set<(event: HubEvent) => void>();
  const connectionListeners = new Set<(lost: string | null) => void>();
  const firstRetryMs = deps.retryMs ?? 250;
  let backend: Backend | null = null;
  let unsubscribe: () => void = () => {};
  let lostBecause = '';
  let closed = false;
  let retryTimer: NodeJS.Timeout | null = null;

  const emit = (event: HubEvent): void => {
    for (const listener of [...listeners]) listener(event);
  };
  const connection = (lost: string | null): void => {
    for (const listener of [...connectionListeners]) listener(lost);
  };

  /** The daemon if one runs, else our own hub. Throws when neither can be had right now. */
  const attach = async (): Promise<Backend> => {
    const daemon = await answeringDaemon(options.home);
    if (daemon === null) return ownBackend(options, deps);
    return remoteBackend(await connectControl(options.home), `the daemon (pid ${daemon.pid}) at ${daemon.host}:${daemon.port}`);
  };

  const show = (next: Backend): void => {
    backend = next;
    unsubscribe = next.api.subscribe(emit);
    next.onLost?.((why) => lost(next, why));
    deps.log(`showing ${next.owned ? 'its own hub' : next.description}`);
  };

  /** The daemon we followed is gone: find or become the hub again, until it works. */
  const lost = (gone: Backend, why: string): void => {
    if (closed || backend !== gone) return;
    unsubscribe();
    backend = null;
    lostBecause = why;
    deps.log(`lost the daemon (${why}); reconnecting`);
    connection(why);
    retry(firstRetryMs);
  };

  const retry = (waitMs: number): void => {
    retryTimer = setTimeout(() => {
      retryTimer = null;
      attach().then(
        async (next) => {
          if (closed) return next.close('Patchbay is quitting');
          show(next);
          connection(null);
          // Faces redraw from this; whatever they held came from the hub that went away.
          emit({ type: 'snapshot', snapshot: await next.api.call('snapshot', undefined) });
        },
        (err: Error) => {
          if (closed) return;
          lostBecause = `${err.message}; still trying`;
          deps.log(`cannot reconnect yet: ${err.message}`);
          connection(lostBecause);
          retry(Math.min(waitMs * 2, MAX_RETRY_MS));
        },
      ).catch((err: Error) => deps.log(`after reconnecting: ${err.message}`));
    }, waitMs);
  };

  /** A hub that holds the lock but does not answer yet is starting: give it a few seconds to. */
  const firstAttach = async (): Promise<Backend> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await attach();
      } catch (err) {
        if (!(err instanceof InstanceHeldError) || attempt >= START_ATTEMPTS) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(firstRetryMs * attempt, MAX_RETRY_MS)));
      }
    }
  };

  show(await firstAttach());

  return {
    get owned() {
      return backend?.owned ?? false;
    },
    get description() {
      return backend?.description ?? `no hub (${lostBecause})`;
    },
    call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
      if (backend === null) {
        return Promise.reject(new HubError(`${method}: Patchbay is reconnecting (${lostBecause})`, 'unavailable'));
      }
      return backend.api.call(method, params);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    onConnection(cb) {
      connectionListeners.add(cb);
      return () => {
        connectionListeners.delete(cb);
      };
    },
    async close(reason) {
      closed = true;
      if (retryTimer !== null) clearTimeout(retryTimer);
      unsubscribe();
      await backend?.close(reason);
    },
  };
}
