// The hub the desktop shell shows: its own (hub + control server, so the CLI and
// `patchbay open` reach it), or, when a headless daemon already runs on the same home,
// that daemon's — two hubs would fight over the lock dirs.
import type { HubApi } from '../../src/api/types.ts';
import { createHub } from '../../src/hub.ts';
import type { HubOptions } from '../../src/options.ts';
import type { StoreBackend } from '../../src/settings/store.ts';
import { portAccepting } from '../../src/discovery/liveness.ts';
import { NotRunningError, connectControl, locateDaemon } from '../../src/web/control-client.ts';
import { startControlServer } from '../../src/web/control-server.ts';

export interface ShellHub extends HubApi {
  /** false = a daemon's hub; closing only disconnects, and its pending diffs stay pending. */
  readonly owned: boolean;
  /** Where the control server listens; for the daemon's hub, its URL as read from control.json. */
  readonly description: string;
  close(reason: string): Promise<void>;
}

const PROBE_TIMEOUT_MS = 1000;

async function runningDaemon(home: string): Promise<string | null> {
  try {
    const control = await locateDaemon(home);
    return (await portAccepting(control.port, PROBE_TIMEOUT_MS)) ? `the daemon (pid ${control.pid}) at ${control.host}:${control.port}` : null;
  } catch (err) {
    if (err instanceof NotRunningError) return null;
    throw err;
  }
}

export async function connectShellHub(options: HubOptions, rendererDir: string, storeBackend: StoreBackend): Promise<ShellHub> {
  const daemon = await runningDaemon(options.home);
  if (daemon !== null) {
    const remote = await connectControl(options.home);
    return {
      owned: false,
      description: daemon,
      call: (method, params) => remote.call(method, params),
      subscribe: (listener) => remote.subscribe(listener),
      close: async () => remote.close(),
    };
  }
  const hub = await createHub(options, { log: (message) => console.error(`patchbay: ${message}`), storeBackend });
  let server;
  try {
    server = await startControlServer({ hub, host: options.host, port: options.controlPort, home: options.home, version: options.version, staticDir: rendererDir });
  } catch (err) {
    await hub.close('the control server did not start');
    throw err;
  }
  let closing: Promise<void> | null = null;
  return {
    owned: true,
    description: `control server ${server.url}`,
    call: (method, params) => hub.call(method, params),
    subscribe: (listener) => hub.subscribe(listener),
    close: (reason) =>
      (closing ??= (async () => {
        // The control server first, so no command lands on a hub that is closing.
        await server.close();
        await hub.close(reason);
      })()),
  };
}
