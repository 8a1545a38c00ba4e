// `patchbay daemon`: the keeper (src/keeper/), which runs the core (the hub and its control
// server) as a child it restarts, until SIGINT/SIGTERM (or SIGHUP from its terminal). Then the
// core ends review cleanly (pending diffs rejected, lockfiles put back) and everything closes.
import type { CoreEntry } from '../keeper/core-process.ts';
import { checkHome } from '../fs/home-check.ts';
import { acquireInstanceLock } from '../web/instance-lock.ts';
import { parse, positionals, type CommandContext } from './command.ts';

export interface DaemonDeps {
  /** How the keeper starts a core (`patchbay __core`). */
  coreEntry(): CoreEntry;
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
  const { Keeper } = await import('../keeper/keeper.ts');
  const keeper = new Keeper({ entry: deps.coreEntry(), log, stderr: (text) => io.stderr.write(text) });
  const stopping = deps.stopRequested();
  const serving = await Promise.race([keeper.start(), stopping.then((signal) => ({ signal }))]);
  if ('signal' in serving) {
    io.stderr.write(`patchbay: stopping (${serving.signal})\n`);
    await keeper.stop('Patchbay is stopping');
    return 0;
  }
  const door = serving.door === null ? 'not open' : `${options.host}:${serving.door}`;
  io.stdout.write(`Patchbay ${options.version} running (pid ${process.pid}): door ${door}, control ${serving.control}\n`);
  for (const warning of serving.warnings) io.stderr.write(`patchbay: warning: ${warning}\n`);
  const signal = await stopping;
  io.stderr.write(`patchbay: stopping (${signal})\n`);
  await keeper.stop('Patchbay is stopping');
  return 0;
}

export const daemonUsage = `Usage: patchbay daemon
Runs Patchbay without the desktop app: the door for agents and a control server for the
CLI and the browser UI (patchbay open). Its core restarts under it (patchbay restart, or by
itself after a crash) without dropping agents or editors. Stops on Ctrl-C, SIGTERM or its
terminal closing, rejecting pending edits and restoring lockfiles.`;
