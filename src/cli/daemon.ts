// `patchbay daemon`: the hub plus its control server, until SIGINT/SIGTERM (or SIGHUP from its terminal).
import type { HubApi } from '../api/types.ts';
import type { HubOptions } from '../options.ts';
import type { ControlServer, ControlServerOptions } from '../web/control-server.ts';
import { checkHome } from '../fs/home-check.ts';
import { acquireInstanceLock } from '../web/instance-lock.ts';
import { parse, positionals, type CommandContext } from './command.ts';

/** What the daemon needs of the hub (src/hub.ts's Hub has more). */
export interface DaemonHub extends HubApi {
  /** Rejects pending diffs and restores lockfiles. */
  close(reason?: string): Promise<void>;
}

export interface DaemonDeps {
  createHub(options: HubOptions, log: (message: string) => void): Promise<DaemonHub>;
  startControlServer(options: ControlServerOptions): Promise<ControlServer>;
  /** Resolves with the signal's name when the daemon is asked to stop. */
  stopRequested(): Promise<string>;
}

export async function runDaemon(args: string[], ctx: CommandContext, deps: DaemonDeps): Promise<number> {
  positionals(parse(args, {}).positionals, []);
  // Before anything in it is read or asked: another user's home could name programs to run.
  await checkHome(ctx.options.home);
  // Two hubs would fight over the lock dirs: of any number of starts, one runs; the others
  // fail here, naming its pid. A stale control.json is simply replaced.
  const lock = await acquireInstanceLock(ctx.options.home, 'daemon');
  try {
    return await serve(ctx, deps);
  } finally {
    await lock.release();
  }
}

async function serve({ options, io }: CommandContext, deps: DaemonDeps): Promise<number> {
  const log = (message: string) => io.stderr.write(`patchbay: ${message}\n`);
  const hub = await deps.createHub(options, log);
  let server: ControlServer;
  try {
    server = await deps.startControlServer({
      hub,
      host: options.host,
      port: options.controlPort,
      home: options.home,
      version: options.version,
      maxPending: options.maxPendingConnections,
      upgradeDeadlineMs: options.upgradeDeadlineMs,
      log,
    });
  } catch (err) {
    await hub.close('the control server did not start');
    throw err;
  }
  const stopping = deps.stopRequested();
  // pi-ide tells its user only "rejected in IDE": the terminal says which edits and why.
  const unsubscribe = hub.subscribe((event) => {
    if (event.type === 'diffDecided' && event.record.by === 'shutdown') {
      io.stderr.write(`patchbay: rejected ${event.record.id} (${event.record.path}): Patchbay is stopping\n`);
    }
  });
  try {
    const snapshot = await hub.call('snapshot', undefined);
    const door = snapshot.door.port === null ? 'not open' : `${options.host}:${snapshot.door.port}`;
    io.stdout.write(`Patchbay ${options.version} running (pid ${process.pid}): door ${door}, control ${server.url}\n`);
    for (const warning of snapshot.warnings) io.stderr.write(`patchbay: warning: ${warning}\n`);
    const signal = await stopping;
    io.stderr.write(`patchbay: stopping (${signal})\n`);
  } finally {
    // The control server goes first so no command lands on a hub that is closing.
    await server.close();
    await hub.close('Patchbay is stopping');
    unsubscribe();
  }
  return 0;
}

export const daemonUsage = `Usage: patchbay daemon
Runs Patchbay without the desktop app: the door for agents and a control server for the
CLI and the browser UI (patchbay open). Stops on Ctrl-C, SIGTERM or its terminal closing,
restoring lockfiles.`;
