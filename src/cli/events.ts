// `patchbay events` and `patchbay status --watch`: Patchbay's state as it changes, until
// interrupted, for scripts, status bars and for timing discovery (each line says when it came).
import { clockTime } from '../api/traffic.ts';
import type { HubEvent, Snapshot } from '../api/types.ts';
import { parse, positionals, type Command, type CommandContext } from './command.ts';
import { editorLabel, formatStatus } from './format.ts';

/**
 * Hands `print` the current snapshot, then every event as it arrives (in the daemon's order),
 * each with the time it was received. Ends with 0 when interrupted, 1 when the daemon goes away.
 */
async function follow(ctx: CommandContext, print: (event: HubEvent, at: number) => void): Promise<number> {
  const hub = await ctx.connect();
  const closed = new Promise<string>((resolve) => hub.onClose(resolve));
  hub.subscribe((event) => print(event, ctx.now()));
  const snapshot = await hub.call('snapshot', undefined);
  print({ type: 'snapshot', snapshot }, ctx.now());
  const ended = await Promise.race([ctx.interrupted().then(() => null), closed]);
  if (ended === null) return 0;
  ctx.io.stderr.write(`patchbay: ${ended}\n`);
  return 1;
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** One line per event, for people; `--json` gives the whole event. */
export function describeEvent(event: HubEvent, host: string): string {
  switch (event.type) {
    case 'snapshot': {
      const s = event.snapshot;
      const door = s.door.port === null ? 'door not open' : `door ${host}:${s.door.port}`;
      const pending = s.diffs.filter((d) => d.status === 'pending').length;
      const live = s.editors.filter((e) => e.alive).length;
      return `${door}${s.paused ? ' (paused)' : ''}, ${plural(s.editors.length, 'editor')} (${live} alive), ${plural(s.sessions.length, 'session')}, ${plural(pending, 'pending diff')}`;
    }
    case 'diffAdded':
      return `diff ${event.diff.id} proposed: ${event.diff.tool} ${event.diff.path} (session ${event.diff.sessionId}, review in ${editorLabel(event.diff.editorId)})`;
    case 'diffDecided':
      return `diff ${event.record.id} ${event.record.outcome} by ${event.record.by}: ${event.record.path}`;
    case 'pi':
      return `pi ${event.id}: ${String(event.event.type)}`;
  }
}

export const events: Command = {
  summary: 'Print Patchbay’s changes as they happen, until interrupted',
  usage: `Usage: patchbay events [--json]
Prints the current state, then every change: new snapshots, diffs proposed and decided, and
hosted pi sessions' events. Runs until Ctrl-C; exits 1 if Patchbay stops.
  --json  one JSON object per line: the event with "at", when it arrived (epoch ms)`,
  async run(args, ctx) {
    const { values, positionals: rest } = parse(args, { json: { type: 'boolean' } });
    positionals(rest, []);
    return follow(ctx, (event, at) => {
      const line = values.json ? JSON.stringify({ at, ...event }) : `${clockTime(at)} ${describeEvent(event, ctx.options.host)}`;
      ctx.io.stdout.write(`${line}\n`);
    });
  },
};

/**
 * `status --watch`: the status again whenever it changes; a snapshot that would print the same
 * is skipped. `--json` lines are those of `events --json` for snapshots.
 */
export function watchStatus(ctx: CommandContext, json: boolean): Promise<number> {
  const { stdout } = ctx.io;
  let last = '';
  return follow(ctx, (event, at) => {
    if (event.type !== 'snapshot') return;
    const shown = json ? JSON.stringify(event.snapshot) : formatStatus(event.snapshot, ctx.options.host);
    if (shown === last) return;
    last = shown;
    if (json) stdout.write(`{"at":${at},"type":"snapshot","snapshot":${shown}}\n`);
    // On a terminal each status replaces the last (as watch(1) does); in a pipe they follow each other.
    else stdout.write(stdout.isTTY ? `\x1b[H\x1b[2J${shown}` : `${clockTime(at)}\n${shown}\n`);
  });
}
