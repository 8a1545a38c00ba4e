// `patchbay daemon`: the hub plus its control server, until SIGINT/SIGTERM.
import { HubError, type HubApi } from '../api/types.ts';
import type { HubOptions } from '../options.ts';
import { answeringDaemon } from '../web/control-client.ts';
import type { ControlServer, ControlServerOptions } from '../web/control-server.ts';
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

/** Two daemons would fight over the lock dirs; a stale control.json is simply replaced. */
async function refuseIfRunning(ctx: CommandContext): Promise<void> {
  let control;
  try {
    control = await answeringDaemon(ctx.options.home);
  } catch (err) {
    ctx.io.stderr.write(`patchbay: warning: ${(err as Error).message}; it will be replaced\n`);
    return;
  }
  if (control !== null) {
    throw new HubError(`Patchbay is already running (pid ${control.pid}, control port ${control.port})`, 'conflict');
  }
}

export async function runDaemon(args: string[], ctx: CommandContext, deps: DaemonDeps): Promise<number> {
  positionals(parse(args, {}).positionals, []);
  const { options, io } = ctx;
  await refuseIfRunning(ctx);
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
  }
  return 0;
}

export const daemonUsage = `Usage: patchbay daemon
Runs Patchbay without the desktop app: the door for agents and a control server for the
CLI and the browser UI (patchbay open). Stops on Ctrl-C or SIGTERM, restoring lockfiles.`;
