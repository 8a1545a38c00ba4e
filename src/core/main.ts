// `patchbay __core`: the core, as the keeper (`patchbay daemon`) runs it: the hub and the
// control server over the sockets and children the keeper holds. It never stops on a signal of
// its own (Ctrl-C in the daemon's terminal reaches both processes; the keeper decides), and
// when the keeper is gone it ends review cleanly by itself, as a full stop would.
import type { HubApi } from '../api/types.ts';
import type { HubOptions } from '../options.ts';
import { CORE_COMMAND, type KeeperMessage } from '../keeper/protocol.ts';
import type { ControlServer, ControlServerOptions } from '../web/control-server.ts';
import { KeeperHost, type Restored } from './keeper-host.ts';
import { newToken } from '../transport/tokens.ts';

/** What the core needs of the hub (src/hub.ts's Hub has more). */
export interface CoreHub extends HubApi {
  close(reason?: string): Promise<void>;
  handOver(): Promise<{ heads: { conn: string; head: string }[]; broken: string[] }>;
}

export interface CoreDeps {
  createHub(options: HubOptions, deps: { log: (message: string) => void; host: KeeperHost; restored: Restored }): Promise<CoreHub>;
  startControlServer(options: ControlServerOptions): Promise<ControlServer>;
}

/** Exits once what it sent has left (an exit right after `send` can lose the message). */
function exitAfter(send: (done: () => void) => void, code: number): void {
  send(() => process.exit(code));
  setTimeout(() => process.exit(code), 2000).unref();
}

export async function runCore(options: HubOptions, given: Partial<CoreDeps> = {}): Promise<number> {
  const channel = process.send?.bind(process);
  if (!channel) {
    process.stderr.write(`patchbay: ${CORE_COMMAND} is started by \`patchbay daemon\`, not by hand\n`);
    return 2;
  }
  const log = (message: string) => process.stderr.write(`patchbay: ${message}\n`);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => {});
  // Loaded before `hello`: a restart starts this process while the old core still serves.
  const [hubModule, serverModule] = await Promise.all([import('../hub.ts'), import('../web/control-server.ts')]);
  const createHub = given.createHub ?? hubModule.createHub;
  const startControlServer = given.startControlServer ?? serverModule.startControlServer;
  // Once the keeper is gone there is nobody to tell: the core ends review on its own (below).
  const host = new KeeperHost((msg) => {
    if (process.connected) channel(msg);
  });
  process.on('message', (msg: KeeperMessage, socket?: unknown) => host.handle(msg, socket as never));
  host.hello();
  const restored = await host.restored;

  const hub = await createHub(options, { log, host, restored });
  // pi-ide tells its user only "rejected in IDE": the daemon's log says which edits and why.
  hub.subscribe((event) => {
    if (event.type === 'diffDecided' && event.record.by === 'shutdown') log(`rejected ${event.record.id} (${event.record.path}): Patchbay is stopping`);
  });
  const token = typeof restored.memory.controlToken === 'string' ? restored.memory.controlToken : newToken();
  host.remember('controlToken', token);
  const control = await startControlServer({
    hub,
    host: options.host,
    port: options.controlPort,
    home: options.home,
    version: options.version,
    maxPending: options.maxPendingConnections,
    upgradeDeadlineMs: options.upgradeDeadlineMs,
    log,
    coreHost: host,
    token,
    pid: host.pid,
  });

  let ending = false;
  const stop = async (reason: string): Promise<void> => {
    if (ending) return;
    ending = true;
    await control.close();
    await hub.close(reason);
  };
  host.onShutdown = (reason) =>
    void stop(reason).then(
      () => exitAfter((done) => channel({ t: 'stopped' }, done), 0),
      (err: Error) => {
        log(`stopping failed: ${err.stack ?? err.message}`);
        process.exit(1);
      },
    );
  host.onHandover = () => {
    if (ending) return;
    ending = true;
    void hub.handOver().then(
      ({ heads, broken }) => exitAfter((done) => channel({ t: 'handedOver', heads, broken }, done), 0),
      (err: Error) => {
        log(`handing over failed: ${err.stack ?? err.message}`);
        process.exit(1);
      },
    );
  };
  // The keeper is gone (killed): nobody will start another core, so review ends here, cleanly.
  process.on('disconnect', () => {
    log('the keeper (patchbay daemon) is gone; ending review');
    void stop('Patchbay’s keeper stopped').finally(() => process.exit(0));
  });

  const snapshot = await hub.call('snapshot', undefined);
  channel({ t: 'ready', door: snapshot.door.port, control: control.url, warnings: snapshot.warnings });
  return new Promise<number>(() => {}); // runs until the keeper says otherwise
}
