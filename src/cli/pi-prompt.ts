// `patchbay pi prompt`: what to send (words, standard input, a file, images) and how it comes
// back: the reply streams to stdout, tool calls, dialogs, reviews and problems to stderr; pi's
// TUI commands (`/name`, `!cmd`…) print what they did.
import type { DiffSummary, HostedReview, HubApi, HubEvent, PromptImage, PromptOutcome } from '../api/types.ts';
import { isObject } from '../api/json.ts';
import { MAX_IMAGE_BYTES, imageMimeType } from '../rpc/images.ts';
import { isDialogMethod } from '../rpc/protocol.ts';
import { readArgFile } from './arg-file.ts';
import { UsageError, type CliIo } from './command.ts';
import { editorLabel } from './format.ts';

/** How often a streaming `prompt` checks that the daemon still answers (events alone cannot tell). */
const ALIVE_CHECK_MS = 2000;
/** A prompt read from a file or standard input: as much as the API takes. */
const MAX_PROMPT_BYTES = 16 * 1024 * 1024;

/** What a person at the terminal should know before a prompt goes: its edits may not be reviewed (yet). */
const REVIEW_NOTE: Record<HostedReview, string | null> = {
  connecting: 'connecting to review…',
  reviewed: null,
  unreviewed: 'this pi has no pi-ide: its edits are written without review',
};

export interface PromptRequest {
  id: string;
  text: string;
  streamingBehavior?: 'steer' | 'followUp';
  images?: PromptImage[];
}

/**
 * The prompt's text: its words, or `-` for standard input, or `file` (not both); and its
 * images, read and typed by their first bytes. A whole document fits: no argv limit applies.
 */
export async function promptInput(io: CliIo, words: string[], file: string | undefined, imageFiles: string[]): Promise<{ text: string; images: PromptImage[] }> {
  let text: string;
  if (file !== undefined) {
    if (words.length > 0) throw new UsageError('give the prompt as words, as - (standard input) or with --file, not two of them');
    text = (await readArgFile(io.cwd, file, MAX_PROMPT_BYTES, '--file')).toString('utf8');
  } else if (words.length === 1 && words[0] === '-') {
    if (!io.readStdin) throw new UsageError('- (standard input) is not available here');
    text = await io.readStdin(MAX_PROMPT_BYTES);
  } else {
    text = words.join(' ');
  }
  const images: PromptImage[] = [];
  for (const image of imageFiles) {
    const bytes = await readArgFile(io.cwd, image, MAX_IMAGE_BYTES, '--image');
    const mimeType = imageMimeType(bytes);
    if (mimeType === null) throw new Error(`--image ${image}: not a PNG, JPEG, GIF or WebP image`);
    images.push({ data: bytes.toString('base64'), mimeType });
  }
  if (text.trim() === '' && images.length === 0) throw new UsageError('the prompt is empty');
  return { text, images };
}

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

/** A shell command's exit code as the CLI's own: 0 ok, its code, 130 when it was cancelled. */
export function shellExitCode(result: { exitCode?: number; cancelled: boolean }): number {
  if (result.cancelled) return 130;
  return Math.min(255, Math.max(0, result.exitCode ?? 1));
}

/** What a TUI command did, for the terminal (the shell's output has streamed already). */
export function describeOutcome(outcome: Exclude<PromptOutcome, { ran: 'prompt' | 'bash' }>): string {
  switch (outcome.ran) {
    case 'compact': {
      const result = isObject(outcome.result) ? outcome.result : {};
      const sizes = typeof result.tokensBefore === 'number' ? `: ${result.tokensBefore} → ${String(result.estimatedTokensAfter ?? '?')} tokens` : '';
      return `Compacted the conversation${sizes}.\n`;
    }
    case 'name':
      return `Named the session “${outcome.name}”.\n`;
    case 'new':
      return outcome.cancelled ? 'An extension cancelled the new session.\n' : 'Started a new session.\n';
    case 'clone':
      return outcome.cancelled ? 'An extension cancelled the clone.\n' : 'Cloned into a new session.\n';
    case 'fork':
      return outcome.cancelled ? 'An extension cancelled the fork.\n' : `Forked into a new session, from before this prompt (send it again, edited):\n${outcome.text}\n`;
    case 'export':
      return `Exported the session to ${outcome.path}\n`;
    case 'model':
      return `Model: ${outcome.model}\n`;
    case 'thinking':
      return `Thinking level: ${outcome.level}\n`;
  }
}

/**
 * Sends one prompt and copies the assistant's text to stdout as it streams; tool calls, dialogs
 * and problems go to stderr. Resolves with the exit code: 0 once pi has settled, 1 when the
 * turn failed, pi exited or the session went away; a shell command (`!cmd`) exits as it did.
 */
export async function streamPrompt(hub: HubApi, io: CliIo, request: PromptRequest): Promise<number> {
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
  /** The shell command this prompt ran (`!cmd`), whose output streams to stdout. */
  let shellRequest: string | null = null;
  let shellStreamed = false;
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
      case 'hosted_bash_start':
        if (shellRequest === null && typeof e.requestId === 'string') shellRequest = e.requestId;
        return;
      case 'bash_execution_update':
        if (e.id === shellRequest && typeof e.delta === 'string') {
          shellStreamed = true;
          out(e.delta);
        }
        return;
      case 'extension_ui_request':
        if (typeof e.patchbayAnswer === 'string') io.stderr.write(`[pi asked: ${String(e.title)}; Patchbay answered: ${e.patchbayAnswer}]\n`);
        else if (isDialogMethod(e.method)) {
          io.stderr.write(`[pi asks: ${String(e.title)} — answer it in Patchbay's window, or: patchbay pi answer ${id} ${String(e.id)} …]\n`);
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
    const view = (await hub.call('snapshot', undefined)).hosted.find((h) => h.id === id);
    doorSession = view?.sessionId ?? null;
    const review = view === undefined ? null : REVIEW_NOTE[view.review];
    if (review) io.stderr.write(`[${review}]\n`);
    const outcome = await hub.call('pi.prompt', request);
    if (outcome.ran === 'bash') {
      if (!shellStreamed) out(outcome.result.output);
      if (!atLineStart) out('\n');
      return shellExitCode(outcome.result);
    }
    if (outcome.ran !== 'prompt') {
      io.stdout.write(describeOutcome(outcome));
      return 0;
    }
    // An extension command (`/ask`) runs no agent at all: pi 0.99 and later say so
    // (`handled`); with an older pi, its state says whether anything still runs.
    if (outcome.disposition === 'handled') finish(0);
    else if (!started && outcome.disposition === undefined) {
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
