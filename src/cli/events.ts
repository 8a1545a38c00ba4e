// `patchbay events` and `patchbay status --watch`: Patchbay's state as it changes, until
// interrupted, for scripts, status bars and for timing discovery (each line says when it came).
import { clockTime } from '../api/traffic.ts';
import type { RemoteHub } from '../api/remote.ts';
import type { HubEvent, Snapshot } from '../api/types.ts';
import { parse, positionals, type Command, type CommandContext } from './command.ts';
import { awaitsDecision, whatWasWritten } from '../review/decision-words.ts';
import { editorLabel, formatStatus } from './format.ts';

/** How long `follow` looks for the daemon's next core after its connection ended (a restart takes well under a second). */
const RECONNECT_MS = 15_000;

/**
 * Hands `print` the current snapshot, then every event as it arrives (in the daemon's order),
 * each with the time it was received. When the core restarts under the daemon (its connection
 * ends), it follows the next core, telling `restarted`; notices the next core brought are
 * printed as events. Ends with 0 when interrupted, 1 when the daemon goes away.
 */
async function follow(
  ctx: CommandContext,
  print: (event: HubEvent, at: number) => void,
  restarted: (before: Snapshot, after: Snapshot, at: number) => void = () => {},
): Promise<number> {
  let hub: RemoteHub = await ctx.connect();
  let own = false;
  let last: Snapshot | null = null;
  const seen = new Set<string>();
  try {
    for (;;) {
      const closed = new Promise<string>((resolve) => hub.onClose(resolve));
      hub.subscribe((event) => {
        if (event.type === 'notice') seen.add(event.notice.id);
        print(event, ctx.now());
      });
      const snapshot = await hub.call('snapshot', undefined);
      if (last !== null) {
        restarted(last, snapshot, ctx.now());
        for (const notice of snapshot.notices) if (!seen.has(notice.id)) print({ type: 'notice', notice }, ctx.now());
      }
      for (const notice of snapshot.notices) seen.add(notice.id);
      last = snapshot;
      print({ type: 'snapshot', snapshot }, ctx.now());
      const ended = await Promise.race([ctx.interrupted().then(() => null), closed]);
      if (ended === null) return 0;
      const next = await nextCore(ctx, ctx.now() + RECONNECT_MS);
      if (next === null) {
        ctx.io.stderr.write(`patchbay: ${ended}\n`);
        return 1;
      }
      if (own) hub.close();
      hub = next;
      own = true;
    }
  } finally {
    if (own) hub.close();
  }
}

/** The daemon's next core, once it answers; null when there is no daemon any more. */
async function nextCore(ctx: CommandContext, deadline: number): Promise<RemoteHub | null> {
  const { connectControl, NotRunningError } = await import('../web/control-client.ts');
  while (ctx.now() < deadline) {
    try {
      return await connectControl(ctx.options.home);
    } catch (err) {
      if (err instanceof NotRunningError) return null;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return null;
}

const plural = (count: number, word: string): string => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What `events` shows: every event, or only diffs, or only one session's. */
export interface EventFilter {
  diffs: boolean;
  session: string | null;
}

/** Whether an event is one the filter keeps (the first state is shown whatever it is). */
export function keeps(event: HubEvent, filter: EventFilter, snapshot: Snapshot | null): boolean {
  if (filter.diffs && event.type !== 'diffAdded' && event.type !== 'diffDecided' && event.type !== 'notice') return false;
  if (filter.session === null) return true;
  switch (event.type) {
    case 'snapshot':
      return false;
    case 'diffAdded':
      return event.diff.sessionId === filter.session;
    case 'diffDecided':
      return event.record.sessionId === filter.session;
    case 'pi':
      return event.id === filter.session || snapshot?.hosted.find((h) => h.id === event.id)?.sessionId === filter.session;
    case 'notice':
      return event.notice.files?.some((f) => f.sessionId === filter.session) ?? false;
  }
}

const quote = (text: string, max = 60): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return `'${flat.length > max ? `${flat.slice(0, max - 1)}…` : flat}'`;
};

/** A pi message's text (content is a string or a list of parts). */
function messageText(message: unknown): string {
  const content = (message as { content?: unknown } | null)?.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((part: { type?: unknown; text?: unknown }) => (part?.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('');
}

/** A hosted pi's event in words; null for the ones people need not see (deltas, turn marks…). */
function describePi(event: Record<string, unknown>): string | null {
  switch (event.type) {
    case 'message_end': {
      const message = event.message as { role?: unknown } | undefined;
      const text = messageText(message);
      if (message?.role === 'user') return `prompt ${quote(text)}`;
      if (message?.role === 'assistant' && text.trim() !== '') return `→ ${quote(text)}`;
      return null;
    }
    case 'tool_execution_start': {
      const args = event.args as { path?: unknown; command?: unknown } | undefined;
      const what = typeof args?.path === 'string' ? ` ${args.path}` : typeof args?.command === 'string' ? ` ${quote(args.command, 40)}` : '';
      return `tool ${String(event.toolName ?? '?')}${what}`;
    }
    case 'tool_execution_end':
      return event.isError === true ? `tool ${String(event.toolName ?? '?')} failed` : null;
    case 'agent_end':
      return 'done';
    case 'extension_error':
      return `extension error: ${String(event.error ?? '')}`;
    case 'auto_retry_start':
      return `retrying: ${String(event.errorMessage ?? 'the model call failed')}`;
    default:
      return null;
  }
}

/** "proj-a" for a hosted session, from the last state seen. */
function hostedName(id: string, snapshot: Snapshot | null): string {
  const cwd = snapshot?.hosted.find((h) => h.id === id)?.cwd;
  return cwd ? `${id} (${cwd.split(/[\\/]/).filter(Boolean).pop() ?? cwd})` : id;
}

/** One line per event, for people; null for an event not worth a line. `--json` gives the whole event. */
export function describeEvent(event: HubEvent, host: string, snapshot: Snapshot | null = null): string | null {
  switch (event.type) {
    case 'snapshot': {
      const s = event.snapshot;
      const door = s.door.port === null ? 'door not open' : `door ${host}:${s.door.port}`;
      const pending = s.diffs.filter(awaitsDecision).length;
      const live = s.editors.filter((e) => e.alive).length;
      return `${door}${s.paused ? ' (paused)' : ''}, ${plural(s.editors.length, 'editor')} (${live} alive), ${plural(s.sessions.length, 'session')}, ${plural(pending, 'pending diff')}`;
    }
    case 'diffAdded':
      return `${event.diff.id} proposed: ${event.diff.tool} ${event.diff.path} (session ${event.diff.sessionId}, review in ${editorLabel(event.diff.editorId)})`;
    case 'diffDecided': {
      const r = event.record;
      const where =
        r.by === 'editor' ? `in ${r.editorId ?? 'the editor'}` : r.by === 'patchbay' ? 'in Patchbay' : r.by === 'review-after' ? 'at once, to review after' : `by ${r.by}`;
      const reason = r.reason ? `; reason: ${quote(r.reason)}` : '';
      return `${r.id} ${r.outcome} ${where}${whatWasWritten(r, ' (', ')')}: ${r.path}${reason}`;
    }
    case 'pi': {
      const said = describePi(event.event);
      return said === null ? null : `pi ${hostedName(event.id, snapshot)}: ${said}`;
    }
    case 'notice':
      return `notice ${event.notice.id}: ${event.notice.message}`;
  }
}

/** The line `events` prints when it follows a core that took over from the one before. */
export function describeRestart(before: Snapshot, after: Snapshot): string {
  const why = after.core.reason === 'crash' ? 'after a crash' : after.core.reason === 'restart' ? 'as asked' : 'after a full restart';
  return `Patchbay's core restarted ${why} (pid ${before.corePid} → ${after.corePid})`;
}

export const events: Command = {
  summary: 'Print Patchbay’s changes as they happen, until interrupted',
  usage: `Usage: patchbay events [--diffs] [--session <id>] [--json]
Prints the current state, then every change: the state when it changes, diffs proposed and
decided (where, and what was written), and hosted pi sessions' prompts, answers and tools.
Runs until Ctrl-C; exits 1 if Patchbay stops.
  --diffs         only diffs proposed and decided
  --session <id>  only what concerns this session (a door session sN, or a hosted pi's id)
  --json          one JSON object per line: the event with "at", when it arrived (epoch ms),
                  every event (a hosted pi's deltas too) unless filtered`,
  async run(args, ctx) {
    const { values, positionals: rest } = parse(args, { json: { type: 'boolean' }, diffs: { type: 'boolean' }, session: { type: 'string' } });
    positionals(rest, []);
    const filter: EventFilter = { diffs: values.diffs === true, session: values.session ?? null };
    let state: Snapshot | null = null;
    let lastSummary = '';
    let first = true;
    return follow(ctx, (event, at) => {
      const initial = first && event.type === 'snapshot';
      first = first && !initial;
      if (event.type === 'snapshot') state = event.snapshot;
      if (!initial && !keeps(event, filter, state)) return;
      if (values.json) {
        ctx.io.stdout.write(`${JSON.stringify({ at, ...event })}\n`);
        return;
      }
      const line = describeEvent(event, ctx.options.host, state);
      // The state's summary is printed when it says something new, not at every snapshot.
      if (line === null || (event.type === 'snapshot' && line === lastSummary)) return;
      if (event.type === 'snapshot') lastSummary = line;
      ctx.io.stdout.write(`${clockTime(at)} ${line}\n`);
    }, (before, after, at) => {
      if (values.json) ctx.io.stdout.write(`${JSON.stringify({ at, type: 'coreRestarted', corePid: before.corePid, nextCorePid: after.corePid, reason: after.core.reason })}\n`);
      else ctx.io.stdout.write(`${clockTime(at)} ${describeRestart(before, after)}\n`);
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
