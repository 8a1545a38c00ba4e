// A hosted pi session as the person sees it, built from pi's RPC records by pure reducers:
// each takes the state and one record and returns the next state (nothing is mutated).
// No node imports: the renderer runs reduceEvent over the streamed events between its reads
// of the hub's copy, so a record may reach it twice (once in a read, once as an event).
import type { BashResult, HostedDialog, HostedQueue, HostedReview, HostedSettings, HostedStatus, HostedWidget, TranscriptItem } from '../api/types.ts';
import { isDialog, type RpcEvent, type UiRequest } from './protocol.ts';
import { isObject } from '../api/json.ts';

export interface HostedState {
  status: HostedStatus;
  model: string | null;
  thinkingLevel: string | null;
  exit: string | null;
  transcript: TranscriptItem[];
  dialogs: HostedDialog[];
  /** setStatus lines by key. */
  statusLines: Record<string, string>;
  widgets: HostedWidget[];
  /** setTitle's title, shown instead of the folder. */
  title: string | null;
  queue: HostedQueue;
  sessionFile: string | null;
  sessionName: string | null;
  settings: HostedSettings;
  stats: unknown | null;
}

/**
 * Where a hosted pi's edits go: through its pi-ide to Patchbay once that is at the door; a pi
 * with pi-ide (or not yet known to have none) that is not there yet is still connecting.
 */
export function reviewState(hasPiIde: boolean | null, doorSession: string | null): HostedReview {
  if (doorSession !== null) return 'reviewed';
  return hasPiIde === false ? 'unreviewed' : 'connecting';
}

/** Older items fall off so a long session keeps a bounded transcript. */
export const MAX_TRANSCRIPT_ITEMS = 2000;
/** A tool's output is kept to its last characters (a long bash run streams a lot). */
export const MAX_TOOL_OUTPUT_CHARS = 64 * 1024;

export function initialHostedState(): HostedState {
  return {
    status: 'starting',
    model: null,
    thinkingLevel: null,
    exit: null,
    transcript: [],
    dialogs: [],
    statusLines: {},
    widgets: [],
    title: null,
    queue: { steering: [], followUp: [] },
    sessionFile: null,
    sessionName: null,
    settings: { steeringMode: null, followUpMode: null, autoCompaction: null, autoRetry: null },
    stats: null,
  };
}

type Obj = Record<string, unknown>;

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `provider/id` of a pi Model object. */
export function modelName(model: unknown): string | null {
  if (!isObject(model)) return null;
  const provider = str(model.provider);
  const id = str(model.id);
  return provider && id ? `${provider}/${id}` : null;
}

/** The text of message content: a string, or text blocks (images shown as a marker). */
export function contentText(content: unknown, blockType: 'text' | 'thinking' = 'text'): string {
  if (typeof content === 'string') return blockType === 'text' ? content : '';
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === blockType) parts.push(str(blockType === 'text' ? block.text : block.thinking) ?? '');
    else if (blockType === 'text' && block.type === 'image') parts.push('[image]');
  }
  return parts.join(blockType === 'text' ? '\n' : '');
}

/** How many image blocks a message's content holds. */
function imageCount(content: unknown): number {
  return Array.isArray(content) ? content.filter((block) => isObject(block) && block.type === 'image').length : 0;
}

function userItem(message: Obj, at: number): TranscriptItem {
  const images = imageCount(message.content);
  const text = Array.isArray(message.content)
    ? message.content.filter((b) => isObject(b) && b.type === 'text').map((b) => str((b as Obj).text) ?? '').join('\n')
    : contentText(message.content);
  return { kind: 'user', text, at, ...(images > 0 ? { images } : {}) };
}

function capOutput(text: string): string {
  return text.length > MAX_TOOL_OUTPUT_CHARS ? `…${text.slice(-MAX_TOOL_OUTPUT_CHARS)}` : text;
}

function withItems(state: HostedState, transcript: TranscriptItem[]): HostedState {
  const over = transcript.length - MAX_TRANSCRIPT_ITEMS;
  return { ...state, transcript: over > 0 ? transcript.slice(over) : transcript };
}

function append(state: HostedState, item: TranscriptItem): HostedState {
  return withItems(state, [...state.transcript, item]);
}

/** A line from Patchbay itself or about pi (a retry, an extension's failure, a notification). */
export function notice(state: HostedState, level: 'info' | 'warning' | 'error', text: string, at: number): HostedState {
  return append(state, { kind: 'notice', level, text, at });
}

/** Index of the newest item matching `pred`, searching from the end (live items are recent). */
function lastIndex(items: TranscriptItem[], pred: (item: TranscriptItem) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (pred(items[i]!)) return i;
  return -1;
}

function replaceAt(state: HostedState, index: number, item: TranscriptItem | null): HostedState {
  const transcript = [...state.transcript];
  if (item === null) transcript.splice(index, 1);
  else transcript[index] = item;
  return { ...state, transcript };
}

const isOpenAssistant = (item: TranscriptItem): boolean => item.kind === 'assistant' && !item.done;

/** Adds a streamed delta to the open assistant item (opening one if the start was missed). */
function assistantDelta(state: HostedState, field: 'text' | 'thinking', delta: string, at: number): HostedState {
  const index = lastIndex(state.transcript, isOpenAssistant);
  if (index === -1) {
    return append(state, { kind: 'assistant', text: field === 'text' ? delta : '', thinking: field === 'thinking' ? delta : '', at, done: false });
  }
  const item = state.transcript[index] as Extract<TranscriptItem, { kind: 'assistant' }>;
  return replaceAt(state, index, { ...item, [field]: item[field] + delta });
}

function messageStart(state: HostedState, message: unknown, at: number): HostedState {
  if (!isObject(message)) return state;
  if (message.role === 'user') return append(state, userItem(message, at));
  if (message.role === 'assistant') return append(state, { kind: 'assistant', text: '', thinking: '', at, done: false });
  // An extension's message the person is meant to see.
  if (message.role === 'custom' && message.display === true) return notice(state, 'info', contentText(message.content), at);
  return state;
}

/** The final message replaces what the deltas built; an empty one (tool calls only, or aborted early) is dropped. */
function messageEnd(state: HostedState, message: unknown, at: number): HostedState {
  if (!isObject(message) || message.role !== 'assistant') return state;
  let next = state;
  const index = lastIndex(next.transcript, isOpenAssistant);
  const text = contentText(message.content, 'text');
  const thinking = contentText(message.content, 'thinking');
  if (index !== -1) {
    const item = next.transcript[index] as Extract<TranscriptItem, { kind: 'assistant' }>;
    next = replaceAt(next, index, text === '' && thinking === '' ? null : { ...item, text, thinking, done: true });
  } else if (text !== '' || thinking !== '') {
    next = append(next, { kind: 'assistant', text, thinking, at, done: true });
  }
  const error = str(message.errorMessage);
  if (message.stopReason === 'error') next = notice(next, 'error', error ?? 'the model call failed', at);
  if (message.stopReason === 'aborted') next = notice(next, 'warning', 'Aborted', at);
  return next;
}

type ToolItem = Extract<TranscriptItem, { kind: 'tool' }>;

/** A tool call's card, before its output; a nested call's names the call that made it. */
function toolItem(toolCallId: string, name: unknown, args: unknown, done: boolean, at: number, parent?: unknown): ToolItem {
  const item: ToolItem = { kind: 'tool', toolCallId, name: str(name) ?? '?', args: args ?? null, output: '', isError: false, done, at };
  const parentToolCallId = str(parent);
  return parentToolCallId === undefined ? item : { ...item, parentToolCallId };
}

function toolUpdate(state: HostedState, event: RpcEvent, result: unknown, done: boolean): HostedState {
  const id = str(event.toolCallId);
  const index = lastIndex(state.transcript, (item) => item.kind === 'tool' && item.toolCallId === id);
  if (index === -1) return state;
  const item = state.transcript[index] as Extract<TranscriptItem, { kind: 'tool' }>;
  const output = typeof result === 'string' ? capOutput(result) : isObject(result) ? capOutput(contentText(result.content)) : item.output;
  return replaceAt(state, index, { ...item, output, done, isError: done ? event.isError === true : item.isError });
}

/** One session event (json.md). Unknown events leave the state as it was. */
export function reduceEvent(state: HostedState, event: RpcEvent, at: number): HostedState {
  switch (event.type) {
    case 'agent_start':
      return state.status === 'exited' ? state : { ...state, status: 'streaming' };
    case 'agent_settled':
      return state.status === 'exited' ? state : { ...state, status: 'idle' };
    // The run is over, so no reply is still being written (pi may start the next run at once:
    // streaming ends only with agent_settled).
    case 'agent_end':
      return state.transcript.some(isOpenAssistant)
        ? { ...state, transcript: state.transcript.map((item) => (isOpenAssistant(item) ? { ...item, done: true } : item)) }
        : state;
    case 'message_start':
      return messageStart(state, event.message, at);
    case 'message_end':
      return messageEnd(state, event.message, at);
    case 'message_update': {
      const update = event.assistantMessageEvent;
      const delta = isObject(update) ? str(update.delta) : undefined;
      if (!isObject(update) || delta === undefined) return state;
      if (update.type === 'text_delta') return assistantDelta(state, 'text', delta, at);
      if (update.type === 'thinking_delta') return assistantDelta(state, 'thinking', delta, at);
      return state;
    }
    case 'tool_execution_start':
      if (state.transcript.some((item) => item.kind === 'tool' && item.toolCallId === event.toolCallId)) return state;
      return append(state, toolItem(str(event.toolCallId) ?? '', event.toolName, event.args, false, at, event.parentToolCallId));
    case 'tool_execution_update':
      return toolUpdate(state, event, event.partialResult, false);
    case 'tool_execution_end':
      return toolUpdate(state, event, event.result, true);
    case 'thinking_level_changed':
      return { ...state, thinkingLevel: str(event.level) ?? state.thinkingLevel };
    case 'extension_error': {
      const where = str(event.extensionPath);
      const during = str(event.event);
      return notice(state, 'error', `${where ? where.split(/[\\/]/).pop() : 'an extension'}${during ? ` (${during})` : ''}: ${str(event.error) ?? 'failed'}`, at);
    }
    case 'auto_retry_start': {
      const seconds = typeof event.delayMs === 'number' ? ` in ${Math.round(event.delayMs / 1000)} s` : '';
      const attempt = typeof event.attempt === 'number' ? ` (attempt ${event.attempt}/${String(event.maxAttempts ?? '?')})` : '';
      return notice(state, 'warning', `Retrying${attempt}${seconds}: ${str(event.errorMessage) ?? 'the model call failed'}`, at);
    }
    case 'auto_retry_end':
      return event.success === false ? notice(state, 'error', `Gave up retrying: ${str(event.finalError) ?? 'the model call failed'}`, at) : state;
    case 'compaction_start':
      return notice(state, 'info', `Compacting the conversation${str(event.reason) ? ` (${str(event.reason)})` : ''}…`, at);
    case 'compaction_end': {
      if (event.aborted === true) return notice(state, 'warning', 'Compaction aborted', at);
      const error = str(event.errorMessage);
      // pi's message already says "Compaction failed: …".
      if (error) return notice(state, 'error', /^compaction failed/i.test(error) ? error : `Compaction failed: ${error}`, at);
      const result = isObject(event.result) ? event.result : {};
      const sizes = typeof result.tokensBefore === 'number' ? `: ${result.tokensBefore} → ${String(result.estimatedTokensAfter ?? '?')} tokens` : '';
      return notice(state, 'info', `Compacted the conversation${sizes}`, at);
    }
    case 'queue_update':
      return { ...state, queue: { steering: strings(event.steering), followUp: strings(event.followUp) } };
    case 'session_info_changed':
      return { ...state, sessionName: str(event.name)?.trim() || null };
    case 'bash_execution_update': {
      const id = str(event.id);
      const delta = str(event.delta);
      const index = id === undefined ? -1 : lastIndex(state.transcript, (item) => item.kind === 'bash' && item.requestId === id);
      if (index === -1 || delta === undefined) return state;
      const item = state.transcript[index] as Extract<TranscriptItem, { kind: 'bash' }>;
      return replaceAt(state, index, { ...item, output: capOutput(item.output + delta) });
    }
    default:
      return state;
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A shell command sent to pi (`bash`): its card opens at once, output streams into it by request id. */
export function bashStarted(state: HostedState, requestId: string, command: string, excluded: boolean, at: number): HostedState {
  return append(state, { kind: 'bash', requestId, command, output: '', exitCode: null, cancelled: false, excluded, done: false, at });
}

/** pi's answer to the shell command: its whole (maybe cut) output and how it ended; null when it failed. */
export function bashEnded(state: HostedState, requestId: string, result: BashResult | null): HostedState {
  const index = lastIndex(state.transcript, (item) => item.kind === 'bash' && item.requestId === requestId);
  if (index === -1) return state;
  const item = state.transcript[index] as Extract<TranscriptItem, { kind: 'bash' }>;
  if (result === null) return replaceAt(state, index, { ...item, done: true, cancelled: true });
  const output = result.truncated && result.fullOutputPath ? `${result.output}\n[cut: the whole output is in ${result.fullOutputPath}]` : result.output;
  return replaceAt(state, index, { ...item, output: capOutput(output), exitCode: result.exitCode ?? null, cancelled: result.cancelled, done: true });
}

/** A write or edit call went to the review inbox as that diff. */
export function noteReview(state: HostedState, toolCallId: string, diffId: string): HostedState {
  const index = lastIndex(state.transcript, (item) => item.kind === 'tool' && item.toolCallId === toolCallId);
  if (index === -1) return state;
  const item = state.transcript[index] as Extract<TranscriptItem, { kind: 'tool' }>;
  return item.diffId === diffId ? state : replaceAt(state, index, { ...item, diffId });
}

/**
 * The conversation as pi keeps it (`get_messages`): what the transcript shows after the session
 * behind a hosted pi changed (resumed, switched, forked, new). `reviews` gives write and edit
 * calls their inbox diffs back (toolCallId → diffId); pi's system messages are not shown.
 */
export function transcriptFromMessages(messages: unknown, reviews: Readonly<Record<string, string>> = {}): TranscriptItem[] {
  const list = isObject(messages) && Array.isArray(messages.messages) ? messages.messages : Array.isArray(messages) ? messages : [];
  // Built in place: a long session has thousands of messages, and copying the list per item would cost its square.
  const items: TranscriptItem[] = [];
  const toolAt = new Map<string, number>();
  const say = (level: 'warning' | 'error' | 'info', text: string, at: number) => items.push({ kind: 'notice', level, text, at });
  for (const message of list) {
    if (!isObject(message)) continue;
    const at = typeof message.timestamp === 'number' ? message.timestamp : 0;
    switch (message.role) {
      case 'user':
        items.push(userItem(message, at));
        break;
      case 'assistant': {
        const text = contentText(message.content, 'text');
        const thinking = contentText(message.content, 'thinking');
        if (text !== '' || thinking !== '') items.push({ kind: 'assistant', text, thinking, at, done: true });
        if (message.stopReason === 'error') say('error', str(message.errorMessage) ?? 'the model call failed', at);
        if (message.stopReason === 'aborted') say('warning', 'Aborted', at);
        for (const block of Array.isArray(message.content) ? message.content : []) {
          if (!isObject(block) || block.type !== 'toolCall') continue;
          const toolCallId = str(block.id) ?? '';
          const diffId = reviews[toolCallId];
          // Closed by its result; one that never got one (aborted) is over too.
          const item = toolItem(toolCallId, block.name, block.arguments, true, at);
          toolAt.set(toolCallId, items.length);
          items.push(diffId !== undefined ? { ...item, diffId } : item);
        }
        break;
      }
      case 'toolResult': {
        const parentId = str(message.toolCallId) ?? '';
        const index = toolAt.get(parentId);
        const item = index === undefined ? undefined : items[index];
        if (item?.kind === 'tool') items[index!] = { ...item, output: capOutput(contentText(message.content)), isError: message.isError === true };
        // The calls it made itself (pi 0.99+): kept on its result, their outputs not. One still
        // running when its script ended was cancelled then.
        for (const call of nestedCalls(message)) {
          const unfinished = call.status === 'unfinished';
          const output = call.error ?? (unfinished ? 'cancelled: it had not finished when its caller did' : '');
          const nested = { ...toolItem(call.id, call.name, call.arguments, true, at, parentId), isError: call.status === 'error' || unfinished, output };
          const diffId = reviews[call.id];
          items.push(diffId !== undefined ? { ...nested, diffId } : nested);
        }
        break;
      }
      case 'bashExecution':
        items.push({
          kind: 'bash',
          requestId: null,
          command: str(message.command) ?? '',
          output: capOutput(str(message.output) ?? ''),
          exitCode: typeof message.exitCode === 'number' ? message.exitCode : null,
          cancelled: message.cancelled === true,
          excluded: message.excludeFromContext === true,
          done: true,
          at,
        });
        break;
      case 'custom':
        if (message.display === true) say('info', contentText(message.content), at);
        break;
      case 'compactionSummary':
      case 'branchSummary':
        items.push({ kind: 'summary', of: message.role === 'compactionSummary' ? 'compaction' : 'branch', text: str(message.summary) ?? '', at });
        break;
    }
  }
  return items.length > MAX_TRANSCRIPT_ITEMS ? items.slice(items.length - MAX_TRANSCRIPT_ITEMS) : items;
}

/** A tool result's record of the calls its tool made (`nestedCalls.calls`), the well-formed ones. */
function nestedCalls(message: Obj): { id: string; name: string; arguments?: unknown; status: string; error?: string }[] {
  const record = isObject(message.nestedCalls) && Array.isArray(message.nestedCalls.calls) ? message.nestedCalls.calls : [];
  return record.flatMap((call) => {
    if (!isObject(call) || typeof call.id !== 'string' || typeof call.name !== 'string') return [];
    return [{ id: call.id, name: call.name, arguments: call.arguments, status: str(call.status) ?? 'ok', ...(typeof call.error === 'string' ? { error: call.error } : {}) }];
  });
}

function setLine(lines: Record<string, string>, key: string, value: string | undefined): Record<string, string> {
  const next = { ...lines };
  if (value === undefined) delete next[key];
  else next[key] = value;
  return next;
}

/** An extension UI request: dialogs wait in `dialogs`; the rest update notices and status lines. */
export function reduceUiRequest(state: HostedState, request: UiRequest, at: number): HostedState {
  if (isDialog(request)) {
    const dialog: HostedDialog = {
      requestId: request.id,
      method: request.method,
      title: request.title ?? '',
      ...(request.message !== undefined ? { message: request.message } : {}),
      ...(request.options !== undefined ? { options: request.options } : {}),
      ...(request.placeholder !== undefined ? { placeholder: request.placeholder } : {}),
      ...(request.prefill !== undefined ? { prefill: request.prefill } : {}),
      expiresAt: typeof request.timeout === 'number' && request.timeout > 0 ? at + request.timeout : null,
    };
    return { ...state, dialogs: [...state.dialogs.filter((d) => d.requestId !== request.id), dialog] };
  }
  switch (request.method) {
    case 'notify': {
      const level = request.notifyType === 'warning' || request.notifyType === 'error' ? request.notifyType : 'info';
      return notice(state, level, request.message, at);
    }
    case 'setStatus':
      return { ...state, statusLines: setLine(state.statusLines, request.statusKey, request.statusText || undefined) };
    case 'setWidget': {
      // No lines (or none left) clears the widget.
      const widgets = state.widgets.filter((w) => w.key !== request.widgetKey);
      const lines = strings(request.widgetLines);
      if (lines.length > 0) widgets.push({ key: request.widgetKey, lines, placement: request.widgetPlacement === 'belowEditor' ? 'belowEditor' : 'aboveEditor' });
      return { ...state, widgets };
    }
    case 'setTitle':
      return { ...state, title: request.title.trim() || null };
    case 'set_editor_text':
      // For the prompt box: the face gets the raw record; nothing to keep here.
      return state;
  }
}

/** The dialog was answered (or withdrawn); answering twice is not an error. */
export function removeDialog(state: HostedState, requestId: string): HostedState {
  return state.dialogs.some((d) => d.requestId === requestId)
    ? { ...state, dialogs: state.dialogs.filter((d) => d.requestId !== requestId) }
    : state;
}

/** pi resolves timed dialogs itself; they leave the list at their deadline. */
export function expireDialogs(state: HostedState, now: number): HostedState {
  const live = state.dialogs.filter((d) => d.expiresAt === null || d.expiresAt > now);
  return live.length === state.dialogs.length ? state : { ...state, dialogs: live };
}

/** The soonest dialog deadline, for the one timer that expires them. */
export function nextDialogExpiry(state: HostedState): number | null {
  let soonest: number | null = null;
  for (const d of state.dialogs) if (d.expiresAt !== null && (soonest === null || d.expiresAt < soonest)) soonest = d.expiresAt;
  return soonest;
}

const queueMode = (value: unknown): HostedSettings['steeringMode'] => (value === 'all' || value === 'one-at-a-time' ? value : null);

/**
 * A `get_state` answer (RpcSessionState): model, thinking level, whether a run is going, the
 * session's file and name, and how pi queues and compacts.
 */
export function reduceGetState(state: HostedState, data: unknown): HostedState {
  if (!isObject(data) || state.status === 'exited') return state;
  return {
    ...state,
    model: modelName(data.model) ?? state.model,
    thinkingLevel: str(data.thinkingLevel) ?? state.thinkingLevel,
    // Only a starting pi takes its status from here: pi may answer get_state from before a run it
    // has already reported starting (commands run concurrently), so later the events decide.
    status: state.status === 'starting' ? (data.isStreaming === true ? 'streaming' : 'idle') : state.status,
    sessionFile: 'sessionId' in data ? (str(data.sessionFile) ?? null) : state.sessionFile,
    sessionName: 'sessionId' in data ? str(data.sessionName)?.trim() || null : state.sessionName,
    settings: {
      ...state.settings,
      steeringMode: queueMode(data.steeringMode) ?? state.settings.steeringMode,
      followUpMode: queueMode(data.followUpMode) ?? state.settings.followUpMode,
      autoCompaction: typeof data.autoCompactionEnabled === 'boolean' ? data.autoCompactionEnabled : state.settings.autoCompaction,
    },
  };
}

/** pi is gone: open items end, dialogs can no longer be answered, and the reason is shown. */
export function reduceExit(state: HostedState, message: string, at: number, expected = false): HostedState {
  const transcript = state.transcript.map((item) =>
    (item.kind === 'assistant' || item.kind === 'tool') && !item.done ? { ...item, done: true } : item,
  );
  const next = { ...state, transcript, status: 'exited' as const, exit: message, dialogs: [] };
  return notice(next, expected ? 'info' : 'error', message, at);
}
