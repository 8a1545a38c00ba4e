// `patchbay pi …`: hosted pi sessions (pi --mode rpc run by the daemon) from the terminal, as a
// pi client: start, prompt, resume, pi's saved sessions, fork, the TUI's commands, the queue.
import { resolve } from 'node:path';
import type { DialogAnswer, HubApi, QueueMode } from '../api/types.ts';
import { isObject } from '../api/json.ts';
import { UsageError, parse, positionals, printJson, type Command, type CommandContext } from './command.ts';
import { formatCommands, formatForkPoints, formatHosted, formatQueue, formatSessions, formatState, formatStats, formatTree } from './pi-format.ts';
import { promptInput, streamPrompt } from './pi-prompt.ts';
import { withStartProgress } from './pi-start.ts';

const USAGE = `Usage:
  patchbay pi start <dir> [--worktree <branch>] [--model provider/id] [--json] [-- <pi args>]
                                       start pi in <dir>; prints the session id. --worktree:
                                       in that branch's git worktree beside <dir>'s repository
                                       (<parent>/<branch>, made by git worktree add if need be)
  patchbay pi prompt <id> (<text…> | - | --file F) [--image F]… [--steer|--follow-up]
                                       send a prompt (- reads standard input) and stream the
                                       answer until pi is done; /compact, /name, /new, /fork,
                                       /clone, /export, /model, /thinking, !cmd and !!cmd run
                                       as pi's own commands
  patchbay pi list [--json]            the hosted sessions, running and stopped
  patchbay pi resume <id|session-file> [--json]
                                       start a stopped session again, or open one of pi's
                                       saved sessions; prints the session id
  patchbay pi sessions [--session-dir D] [--json]
                                       pi's saved sessions (TUI ones too), newest first
  patchbay pi state <id> [--json]      pi's state (model, thinking level, queue, session…)
  patchbay pi stats <id> [--json]      prompts, tool calls, tokens, cost and context use
  patchbay pi abort <id>               stop the running turn
  patchbay pi stop <id> [--keep]       stop pi; with --keep it stays listed, resumable
  patchbay pi commands <id> [--json]   the commands pi offers, with Patchbay's for pi's TUI
  patchbay pi fork <id> [--at <text>]  without --at: the prompts to fork from; with it:
                                       continue from before that prompt in a new session
  patchbay pi clone <id> | new <id>    copy the session into a new one | start a new one
  patchbay pi tree <id> [--json]       the session's tree of entries
  patchbay pi name <id> <name…>        name the session
  patchbay pi compact <id> [<instructions…>]
  patchbay pi export <id> [--out F.html]
  patchbay pi bash <id> <command…> [--exclude]
                                       run a shell command in pi (its output streams; it
                                       exits with the command's code); --exclude keeps the
                                       output out of the model's context
  patchbay pi queue <id> [--clear] [--steering all|one-at-a-time] [--follow-up all|one-at-a-time] [--json]
  patchbay pi auto-compaction <id> on|off | auto-retry <id> on|off|abort
  patchbay pi models <id> [--json] | model <id> <provider/id>
  patchbay pi thinking <id> [<level>]  the levels pi offers (current marked), or set one
  patchbay pi answer <id> <request-id> (<value…> | --yes | --no | --cancel)
                                       answer an extension's question
The daemon runs pi as the piCommand setting (patchbay settings set piCommand '"/path/to/pi"'),
else its $PATCHBAY_PI_COMMAND, else pi on PATH.`;

type Sub = (args: string[], ctx: CommandContext) => Promise<number>;

/** A command that takes only `<id>` (and --json), calls the API and prints its answer. */
function simple<T>(call: (hub: HubApi, id: string) => Promise<T>, print: (value: T, ctx: CommandContext, id: string) => string): Sub {
  return async (args, ctx) => {
    const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
    const [id] = positionals(given, ['id']) as [string];
    const value = await call(await ctx.connect(), id);
    if (values.json) printJson(ctx.io, value);
    else ctx.io.stdout.write(print(value, ctx, id));
    return 0;
  };
}

function onOffArg(value: string | undefined, what: string): boolean {
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new UsageError(`${what} takes on or off`);
}

function queueMode(value: string | undefined, flag: string): QueueMode | undefined {
  if (value === undefined || value === 'all' || value === 'one-at-a-time') return value;
  throw new UsageError(`${flag} takes all or one-at-a-time`);
}

const SUBCOMMANDS: Record<string, Sub> = {
  async start(args, ctx) {
    const split = args.indexOf('--');
    const own = split === -1 ? args : args.slice(0, split);
    const piArgs = split === -1 ? [] : args.slice(split + 1);
    const { values, positionals: given } = parse(own, { model: { type: 'string' }, json: { type: 'boolean' }, worktree: { type: 'string' } });
    const [dir] = positionals(given, ['dir']) as [string];
    const cwd = resolve(ctx.io.cwd, dir);
    const hub = await ctx.connect();
    // In a worktree pi starts in the branch's folder, which the daemon picks: follow whichever starts.
    const view = await withStartProgress(hub, ctx.io, values.worktree === undefined ? { cwd } : {}, () =>
      hub.call('pi.start', {
        cwd,
        ...(values.model !== undefined ? { model: values.model } : {}),
        ...(values.worktree !== undefined ? { worktree: values.worktree } : {}),
        ...(piArgs.length > 0 ? { args: piArgs } : {}),
      }),
    );
    if (values.json) printJson(ctx.io, view);
    else ctx.io.stdout.write(`${view.id}\n`);
    if (!values.json && view.review === 'unreviewed') ctx.io.stderr.write('[this pi has no pi-ide: its edits are written without review]\n');
    return 0;
  },

  async prompt(args, ctx) {
    const { values, positionals: given } = parse(args, {
      steer: { type: 'boolean' },
      'follow-up': { type: 'boolean' },
      file: { type: 'string' },
      image: { type: 'string', multiple: true },
    });
    const [id, ...words] = given;
    if (id === undefined) throw new UsageError('missing <id> <text>');
    if (words.length === 0 && values.file === undefined && (values.image ?? []).length === 0) throw new UsageError('missing <text> (or - for standard input, or --file F)');
    if (values.steer && values['follow-up']) throw new UsageError('--steer and --follow-up exclude each other');
    const streamingBehavior = values.steer ? 'steer' : values['follow-up'] ? 'followUp' : undefined;
    const { text, images } = await promptInput(ctx.io, words, values.file, values.image ?? []);
    return streamPrompt(await ctx.connect(), ctx.io, { id, text, ...(streamingBehavior ? { streamingBehavior } : {}), ...(images.length > 0 ? { images } : {}) });
  },

  async bash(args, ctx) {
    const { values, positionals: given } = parse(args, { exclude: { type: 'boolean' } });
    const [id, ...words] = given;
    if (id === undefined || words.length === 0) throw new UsageError(`missing ${id === undefined ? '<id> <command>' : '<command>'}`);
    return streamPrompt(await ctx.connect(), ctx.io, { id, text: `${values.exclude ? '!!' : '!'}${words.join(' ')}` });
  },

  async resume(args, ctx) {
    const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
    const [which] = positionals(given, ['id|session-file']) as [string];
    // A session file is a path (pi's end in .jsonl); anything else is a hosted session's id.
    const request = which.endsWith('.jsonl') || which.includes('/') ? { sessionFile: resolve(ctx.io.cwd, which) } : { id: which };
    const hub = await ctx.connect();
    const view = await withStartProgress(hub, ctx.io, 'id' in request ? { id: request.id } : {}, () => hub.call('pi.resume', request));
    if (values.json) printJson(ctx.io, view);
    else ctx.io.stdout.write(`${view.id}\n`);
    return 0;
  },

  async sessions(args, ctx) {
    const { values, positionals: given } = parse(args, { json: { type: 'boolean' }, 'session-dir': { type: 'string' } });
    positionals(given, []);
    const dir = values['session-dir'];
    const sessions = await (await ctx.connect()).call('pi.sessions', dir === undefined ? {} : { sessionDir: resolve(ctx.io.cwd, dir) });
    if (values.json) printJson(ctx.io, sessions);
    else ctx.io.stdout.write(formatSessions(sessions, ctx.now()));
    return 0;
  },

  async list(args, ctx) {
    const { values, positionals: given } = parse(args, { json: { type: 'boolean' } });
    positionals(given, []);
    const { hosted } = await (await ctx.connect()).call('snapshot', undefined);
    if (values.json) printJson(ctx.io, hosted);
    else ctx.io.stdout.write(formatHosted(hosted));
    return 0;
  },

  state: simple((hub, id) => hub.call('pi.state', { id }), formatState),
  stats: simple((hub, id) => hub.call('pi.stats', { id }), formatStats),
  commands: simple((hub, id) => hub.call('pi.commands', { id }), formatCommands),
  tree: simple((hub, id) => hub.call('pi.tree', { id }), formatTree),
  clone: simple((hub, id) => hub.call('pi.clone', { id }), ({ cancelled }) => (cancelled ? 'An extension cancelled the clone.\n' : 'Cloned into a new session.\n')),
  new: simple((hub, id) => hub.call('pi.newSession', { id }), ({ cancelled }) => (cancelled ? 'An extension cancelled the new session.\n' : 'Started a new session.\n')),
  models: simple(
    (hub, id) => hub.call('pi.models', { id }),
    (data) => {
      const list = isObject(data) && Array.isArray(data.models) ? data.models.filter(isObject) : [];
      return list.length === 0 ? 'pi lists no models.\n' : list.map((m) => `${String(m.provider)}/${String(m.id)}${typeof m.name === 'string' && m.name !== m.id ? `  ${m.name}` : ''}\n`).join('');
    },
  ),

  async abort(args, ctx) {
    const [id] = positionals(parse(args, {}).positionals, ['id']) as [string];
    await (await ctx.connect()).call('pi.abort', { id });
    ctx.io.stdout.write(`Aborted the turn of pi session ${id}.\n`);
    return 0;
  },

  async stop(args, ctx) {
    const { values, positionals: given } = parse(args, { keep: { type: 'boolean' } });
    const [id] = positionals(given, ['id']) as [string];
    await (await ctx.connect()).call('pi.stop', { id, ...(values.keep ? { keep: true } : {}) });
    ctx.io.stdout.write(values.keep ? `Stopped pi session ${id}; resume it with: patchbay pi resume ${id}\n` : `Stopped pi session ${id}.\n`);
    return 0;
  },

  async fork(args, ctx) {
    const { values, positionals: given } = parse(args, { at: { type: 'string' } });
    const [id] = positionals(given, ['id']) as [string];
    const hub = await ctx.connect();
    if (values.at === undefined) {
      ctx.io.stdout.write(formatForkPoints(await hub.call('pi.forkPoints', { id })));
      return 0;
    }
    return streamPrompt(hub, ctx.io, { id, text: `/fork ${values.at}` });
  },

  async name(args, ctx) {
    const [id, ...words] = parse(args, {}).positionals;
    if (id === undefined || words.length === 0) throw new UsageError(`missing ${id === undefined ? '<id> <name>' : '<name>'}`);
    await (await ctx.connect()).call('pi.setName', { id, name: words.join(' ') });
    ctx.io.stdout.write(`Named the session “${words.join(' ')}”.\n`);
    return 0;
  },

  async compact(args, ctx) {
    const [id, ...words] = parse(args, {}).positionals;
    if (id === undefined) throw new UsageError('missing <id>');
    return streamPrompt(await ctx.connect(), ctx.io, { id, text: words.length > 0 ? `/compact ${words.join(' ')}` : '/compact' });
  },

  async export(args, ctx) {
    const { values, positionals: given } = parse(args, { out: { type: 'string' } });
    const [id] = positionals(given, ['id']) as [string];
    const out = values.out === undefined ? undefined : resolve(ctx.io.cwd, values.out);
    if (out !== undefined && !out.toLowerCase().endsWith('.html')) throw new UsageError('--out takes a file name ending in .html');
    const { path } = await (await ctx.connect()).call('pi.exportHtml', { id, ...(out !== undefined ? { outputPath: out } : {}) });
    ctx.io.stdout.write(`${path}\n`);
    return 0;
  },

  async queue(args, ctx) {
    const { values, positionals: given } = parse(args, {
      clear: { type: 'boolean' },
      steering: { type: 'string' },
      'follow-up': { type: 'string' },
      json: { type: 'boolean' },
    });
    const [id] = positionals(given, ['id']) as [string];
    const steering = queueMode(values.steering, '--steering');
    const followUp = queueMode(values['follow-up'], '--follow-up');
    const hub = await ctx.connect();
    if (steering !== undefined || followUp !== undefined) {
      await hub.call('pi.setQueueModes', { id, ...(steering ? { steering } : {}), ...(followUp ? { followUp } : {}) });
    }
    const queue = values.clear ? await hub.call('pi.clearQueue', { id }) : (await hub.call('pi.get', { id })).queue;
    if (values.json) printJson(ctx.io, queue);
    else ctx.io.stdout.write(values.clear ? `Took out of the queue:\n${formatQueue(queue)}` : formatQueue(queue));
    return 0;
  },

  async 'auto-compaction'(args, ctx) {
    const [id, value] = positionals(parse(args, {}).positionals, ['id', 'on|off']) as [string, string];
    const enabled = onOffArg(value, 'auto-compaction');
    await (await ctx.connect()).call('pi.setAutoCompaction', { id, enabled });
    ctx.io.stdout.write(`Auto-compaction is ${enabled ? 'on' : 'off'}.\n`);
    return 0;
  },

  async 'auto-retry'(args, ctx) {
    const [id, value] = positionals(parse(args, {}).positionals, ['id', 'on|off|abort']) as [string, string];
    const hub = await ctx.connect();
    if (value === 'abort') {
      await hub.call('pi.abortRetry', { id });
      ctx.io.stdout.write('Stopped retrying.\n');
      return 0;
    }
    const enabled = onOffArg(value, 'auto-retry');
    await hub.call('pi.setAutoRetry', { id, enabled });
    ctx.io.stdout.write(`Auto-retry is ${enabled ? 'on' : 'off'}.\n`);
    return 0;
  },

  async model(args, ctx) {
    const [id, model] = positionals(parse(args, {}).positionals, ['id', 'provider/id']) as [string, string];
    const cut = model.indexOf('/');
    if (cut <= 0 || cut === model.length - 1) throw new UsageError(`"${model}" is not provider/id`);
    const view = await (await ctx.connect()).call('pi.setModel', { id, provider: model.slice(0, cut), modelId: model.slice(cut + 1) });
    ctx.io.stdout.write(`Model: ${view.model ?? model}${view.thinkingLevel ? ` (thinking ${view.thinkingLevel})` : ''}\n`);
    return 0;
  },

  async thinking(args, ctx) {
    const [id, level] = positionals(parse(args, {}).positionals, ['id', 'level'], 1) as [string, string | undefined];
    const hub = await ctx.connect();
    if (level !== undefined) {
      const view = await hub.call('pi.setThinking', { id, level });
      ctx.io.stdout.write(`Thinking level: ${view.thinkingLevel ?? level}\n`);
      return 0;
    }
    const [levels, detail] = await Promise.all([hub.call('pi.thinkingLevels', { id }), hub.call('pi.get', { id })]);
    ctx.io.stdout.write(levels.map((l) => `${l === detail.thinkingLevel ? '*' : ' '} ${l}\n`).join(''));
    return 0;
  },

  async answer(args, ctx) {
    const { values, positionals: given } = parse(args, { yes: { type: 'boolean' }, no: { type: 'boolean' }, cancel: { type: 'boolean' } });
    const [id, requestId, ...words] = given;
    if (id === undefined || requestId === undefined) throw new UsageError('missing <id> <request-id>');
    const given_ = [words.length > 0, values.yes === true, values.no === true, values.cancel === true].filter(Boolean).length;
    if (given_ !== 1) throw new UsageError('answer with a value, --yes, --no or --cancel (one of them)');
    const answer: DialogAnswer = values.cancel ? { cancelled: true } : values.yes ? { confirmed: true } : values.no ? { confirmed: false } : { value: words.join(' ') };
    await (await ctx.connect()).call('pi.answer', { id, requestId, answer });
    ctx.io.stdout.write('Answered.\n');
    return 0;
  },
};

export const pi: Omit<Command, 'summary'> = {
  usage: USAGE,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    const run = sub === undefined ? undefined : Object.hasOwn(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (run === undefined) throw new UsageError(sub === undefined ? 'missing a pi command' : `unknown pi command "${sub}"`);
    return run(rest, ctx);
  },
};
