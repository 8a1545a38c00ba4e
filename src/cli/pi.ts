// `patchbay pi …`: hosted pi sessions (pi --mode rpc run by the daemon) from the terminal.
import { resolve } from 'node:path';
import type { DiffSummary, HostedView, HubApi, HubEvent } from '../api/types.ts';
import { UsageError, parse, positionals, printJson, type CliIo, type Command, type CommandContext } from './command.ts';
import { editorLabel } from './format.ts';
import { table } from './table.ts';
import { isObject } from '../api/json.ts';
import { isDialogMethod } from '../rpc/protocol.ts';

const USAGE = `Usage:
  patchbay pi start <dir> [--model provider/id] [--json] [-- <pi args>]
                                       start pi in <dir>; prints the session id
  patchbay pi prompt <id> <text…> [--steer|--follow-up]
                                       send a prompt and stream the answer until pi is done
  patchbay pi abort <id>               stop the running turn
  patchbay pi state <id> [--json]      pi's state (model, thinking level, streaming…)
  patchbay pi list [--json]            the hosted sessions
  patchbay pi stop <id>                stop pi and forget the session
The daemon runs pi as the piCommand setting (patchbay settings set piCommand '"/path/to/pi"'),
else its $PATCHBAY_PI_COMMAND, else pi on PATH.`;

/** How often a streaming `prompt` checks that the daemon still answers (events alone cannot tell). */
const ALIVE_CHECK_MS = 2000;

type Obj = Record<string, unknown>;

function oneLine(value: unknown, max = 80): string {
  const text = JSON.stringify(value) ?? '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** pi-ide names a diff's tab after the tool call that proposed it: `pi-write:<toolCallId>`. */
function toolCallOf(diff: DiffSummary): string | null {
  const match = /^pi-(?:write|edit):(.+)$/.exec(diff.tabName);
  return match?.[1] ?? null;
}

/** The line that tells a person at the terminal which diff pi waits for and how to decide it. */
export function diffWaiting(diff: DiffSummary): string {
  const where = diff.editorId === null ? '' : ` in ${editorLabel(diff.editorId)}`;
  const orHere = diff.editorId === null ? '' : 'or here: ';
  return `[pi waits for diff ${diff.id}${where}: ${diff.tool} ${diff.path} — ${orHere}patchbay diffs show ${diff.id}, then patchbay diffs accept ${diff.id} or reject ${diff.id}]\n`;
}

/**
 * Sends one prompt and copies the assistant's text to stdout as it streams; tool calls, dialogs
 * and problems go to stderr. Resolves with the exit code: 0 once pi has settled, 1 when the
 * turn failed, pi exited or the session went away.
 */
export async function streamPrompt(
  hub: HubApi,
  io: CliIo,
  request: { id: string; text: string; streamingBehavior?: 'steer' | 'followUp' },
): Promise<number> {
  const { id } = request;
  let settle!: (code: number) => void;
  const done = new Promise<number>((resolve) => (settle = resolve));
  let ended = false;
  const finish = (code: number): void => {
    ended = true;
    settle(code);
  };
  let started = false;
  let failure: string | null = null;
  /** What tells this session's diffs apart: its door session, and the tool calls it made. */
  let doorSession: string | null = null;
  const toolCalls = new Set<string>();
  const waitingDiffs = new Set<string>();
  const ours = (diff: DiffSummary): boolean => {
    const call = toolCallOf(diff);
    return diff.sessionId === doorSession || (call !== null && toolCalls.has(call));
  };
  let atLineStart = true;
  const out = (text: string): void => {
    if (text === '') return;
    io.stdout.write(text);
    atLineStart = text.endsWith('\n');
  };
  const fail = (message: string): void => {
    if (ended) return;
    if (!atLineStart) out('\n');
    io.stderr.write(`patchbay pi: ${message}\n`);
    finish(1);
  };

  const onEvent = (event: HubEvent): void => {
    if (event.type === 'snapshot') {
      const view = event.snapshot.hosted.find((h) => h.id === id);
      if (!view) fail(`pi session ${id} was stopped`);
      doorSession = view?.sessionId ?? doorSession;
      return;
    }
    if (event.type === 'diffAdded') {
      if (!ours(event.diff)) return;
      waitingDiffs.add(event.diff.id);
      if (!atLineStart) out('\n');
      io.stderr.write(diffWaiting(event.diff));
      return;
    }
    if (event.type === 'diffDecided') {
      if (waitingDiffs.delete(event.record.id)) io.stderr.write(`[diff ${event.record.id} ${event.record.outcome} by ${event.record.by}]\n`);
      return;
    }
    if (event.type !== 'pi' || event.id !== id) return;
    const e = event.event;
    switch (e.type) {
      case 'agent_start':
        started = true;
        return;
      case 'message_start':
        // A second assistant message (after a tool call) starts on its own line.
        if (isObject(e.message) && e.message.role === 'assistant' && !atLineStart) out('\n');
        return;
      case 'message_update': {
        const update = e.assistantMessageEvent;
        if (isObject(update) && update.type === 'text_delta' && typeof update.delta === 'string') out(update.delta);
        return;
      }
      case 'message_end': {
        const message = e.message;
        if (!isObject(message) || message.role !== 'assistant') return;
        if (message.stopReason === 'error') failure = typeof message.errorMessage === 'string' ? message.errorMessage : 'the model call failed';
        if (message.stopReason === 'aborted') failure = 'the turn was aborted';
        return;
      }
      case 'tool_execution_start':
        if (typeof e.toolCallId === 'string') toolCalls.add(e.toolCallId);
        io.stderr.write(`[${String(e.toolName)} ${oneLine(e.args)}]\n`);
        return;
      case 'extension_ui_request':
        if (typeof e.patchbayAnswer === 'string') io.stderr.write(`[pi asked: ${String(e.title)}; Patchbay answered: ${e.patchbayAnswer}]\n`);
        else if (isDialogMethod(e.method)) {
          io.stderr.write(`[pi asks: ${String(e.title)} — answer it in Patchbay's window]\n`);
        }
        return;
      case 'agent_settled':
        if (failure !== null) fail(failure);
        else finish(0);
        return;
      case 'hosted_exit':
        fail(`pi session ${id} exited: ${String(e.message)}`);
        return;
    }
  };

  const unsubscribe = hub.subscribe(onEvent);
  const alive = setInterval(() => {
    hub.call('settings.get', undefined).catch((err: unknown) => fail((err as Error).message));
  }, ALIVE_CHECK_MS);
  try {
    await hub.call('pi.prompt', request);
    if (!started) {
      // An extension command (`/name`) may run no agent at all: then pi is idle once it answered.
      const state = await hub.call('pi.state', { id });
      if (!started && !(isObject(state) && state.isStreaming === true)) finish(0);
    }
    const code = await done;
    if (code === 0 && !atLineStart) out('\n');
    return code;
  } finally {
    clearInterval(alive);
    unsubscribe();
  }
}

function formatHosted(views: HostedView[]): string {
  if (views.length === 0) return 'No hosted pi sessions.\n';
  const rows = views.map((v) => [v.id, v.status, v.model ?? '-', v.pid === null ? '-' : String(v.pid), v.cwd, v.sessionId ?? '-']);
  return table([['ID', 'STATUS', 'MODEL', 'PID', 'FOLDER', 'DOOR SESSION'], ...rows], '');
}

function formatState(state: unknown): string {
  if (!isObject(state)) return `${JSON.stringify(state)}\n`;
  const model = isObject(state.model) ? `${String(state.model.provider)}/${String(state.model.id)}` : '-';
  const rows: [string, string][] = [
    ['Model', model],
    ['Thinking', String(state.thinkingLevel ?? '-')],
    ['Streaming', state.isStreaming === true ? 'yes' : 'no'],
    ['Messages', String(state.messageCount ?? '-')],
    ['Pending', String(state.pendingMessageCount ?? '-')],
    ['Session', String(state.sessionFile ?? state.sessionId ?? '-')],
  ];
  return table(rows, '');
}

async function start(args: string[], ctx: CommandContext): Promise<number> {
  const split = args.indexOf('--');
  const own = split === -1 ? args : args.slice(0, split);
  const piArgs = split === -1 ? [] : args.slice(split + 1);
  const { values, positionals: given } = parse(own, { model: { type: 'string' }, json: { type: 'boolean' } });
  const [dir] = positionals(given, ['dir']) as [string];
  const view = await (await ctx.connect()).call('pi.start', {
    cwd: resolve(ctx.io.cwd, dir),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(piArgs.length > 0 ? { args: piArgs } : {}),
  });
  if (values.json) printJson(ctx.io, view);
  else ctx.io.stdout.write(`${view.id}\n`);
  return 0;
}

export const pi: Command = {
  summary: 'Start, prompt and stop pi sessions hosted by Patchbay',
  usage: USAGE,
  async run(args, ctx) {
    const [sub, ...rest] = args;
    switch (sub) {
      case 'start':
        return start(rest, ctx);
      case 'prompt': {
        const { values, positionals: given } = parse(rest, { steer: { type: 'boolean' }, 'follow-up': { type: 'boolean' } });
        const [id, ...words] = given;
        if (id === undefined || words.length === 0) throw new UsageError(`missing ${id === undefined ? '<id> <text>' : '<text>'}`);
        if (values.steer && values['follow-up']) throw new UsageError('--steer and --follow-up exclude each other');
        const streamingBehavior = values.steer ? 'steer' : values['follow-up'] ? 'followUp' : undefined;
        return streamPrompt(await ctx.connect(), ctx.io, { id, text: words.join(' '), ...(streamingBehavior ? { streamingBehavior } : {}) });
      }
      case 'abort': {
        const [id] = positionals(parse(rest, {}).positionals, ['id']) as [string];
        await (await ctx.connect()).call('pi.abort', { id });
        ctx.io.stdout.write(`Aborted the turn of pi session ${id}.\n`);
        return 0;
      }
      case 'state': {
        const { values, positionals: given } = parse(rest, { json: { type: 'boolean' } });
        const [id] = positionals(given, ['id']) as [string];
        const state = await (await ctx.connect()).call('pi.state', { id });
        if (values.json) printJson(ctx.io, state);
        else ctx.io.stdout.write(formatState(state));
        return 0;
      }
      case 'list': {
        const { values, positionals: given } = parse(rest, { json: { type: 'boolean' } });
        positionals(given, []);
        const { hosted } = await (await ctx.connect()).call('snapshot', undefined);
        if (values.json) printJson(ctx.io, hosted);
        else ctx.io.stdout.write(formatHosted(hosted));
        return 0;
      }
      case 'stop': {
        const [id] = positionals(parse(rest, {}).positionals, ['id']) as [string];
        await (await ctx.connect()).call('pi.stop', { id });
        ctx.io.stdout.write(`Stopped pi session ${id}.\n`);
        return 0;
      }
      default:
        throw new UsageError(sub === undefined ? 'missing a pi command' : `unknown pi command "${sub}"`);
    }
  },
};
