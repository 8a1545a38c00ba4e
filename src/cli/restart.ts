// `patchbay restart`: the core restarts under the daemon (as after an upgrade) while agents and
// editors stay connected. The command returns once the new core answers `status`.
import type { Snapshot } from '../api/types.ts';
import { parse, positionals, type Command, type CommandContext } from './command.ts';

/** How long the new core may take to serve (its start-up; it holds every connection meanwhile). */
const SERVE_TIMEOUT_MS = 30_000;
const POLL_MS = 50;

/** The new core's snapshot, once a core other than `oldPid` answers. */
async function nextCore(ctx: CommandContext, oldPid: number, deadline: number): Promise<Snapshot> {
  const { connectControl } = await import('../web/control-client.ts');
  let last = 'no answer yet';
  while (ctx.now() < deadline) {
    try {
      const hub = await connectControl(ctx.options.home);
      try {
        const snapshot = await hub.call('snapshot', undefined);
        if (snapshot.corePid !== oldPid) return snapshot;
        last = `core ${oldPid} still answers`;
      } finally {
        hub.close();
      }
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`the new core did not answer within ${SERVE_TIMEOUT_MS / 1000} s (${last}); see the daemon's log`);
}

export const restart: Command = {
  summary: 'Restart Patchbay’s core: agents and editors stay connected, pending edits stay pending',
  usage: `Usage: patchbay restart
Restarts Patchbay's core (routing, the review inbox, the UI's server), as after an upgrade,
under the daemon, which keeps the door, every agent's and editor's connection, the hosted pi
sessions and every edit waiting for review. Returns once the new core answers.`,
  async run(args, ctx) {
    positionals(parse(args, {}).positionals, []);
    const hub = await ctx.connect();
    const started = ctx.now();
    const { corePid } = await hub.call('restart', undefined);
    const snapshot = await nextCore(ctx, corePid, started + SERVE_TIMEOUT_MS);
    const kept = `${snapshot.sessions.length} agent ${snapshot.sessions.length === 1 ? 'session' : 'sessions'}, ${snapshot.diffs.length} pending ${snapshot.diffs.length === 1 ? 'edit' : 'edits'}`;
    ctx.io.stdout.write(`Patchbay's core restarted in ${ctx.now() - started} ms (pid ${corePid} → ${snapshot.corePid}); kept ${kept}\n`);
    return 0;
  },
};
