import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TranscriptItem } from '../../src/api/types.ts';
import { answerProblem } from '../../src/rpc/host.ts';
import {
  MAX_TRANSCRIPT_ITEMS,
  bashEnded,
  bashStarted,
  expireDialogs,
  initialHostedState,
  nextDialogExpiry,
  reduceEvent,
  reduceExit,
  reduceGetState,
  reduceUiRequest,
  removeDialog,
  noteReview,
  transcriptFromMessages,
  type HostedState,
} from '../../src/rpc/hosted.ts';
import { doorChoice } from '../../src/rpc/ide-dialog.ts';
import { classifyRecord, type RpcEvent, type UiRequest } from '../../src/rpc/protocol.ts';

const T = 1_700_000_000_000;

function run(events: RpcEvent[], state: HostedState = { ...initialHostedState(), status: 'idle' }): HostedState {
  return events.reduce((s, e, i) => reduceEvent(s, e, T + i), state);
}

const update = (type: string, delta: string): RpcEvent => ({ type: 'message_update', assistantMessageEvent: { type, contentIndex: 0, delta } });
const assistantEnd = (content: unknown[], more: Record<string, unknown> = {}): RpcEvent => ({
  type: 'message_end',
  message: { role: 'assistant', content, stopReason: 'stop', ...more },
});

/** What pi sends for "hi" → thinking "hmm", text "Hello world" (as recorded from pi 0.87.1). */
const HELLO_TURN: RpcEvent[] = [
  { type: 'agent_start' },
  { type: 'turn_start' },
  { type: 'message_start', message: { role: 'system', content: '' } },
  { type: 'message_start', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
  { type: 'message_end', message: { role: 'user', content: [{ type: 'text', text: 'hi' }] } },
  { type: 'message_start', message: { role: 'assistant', content: [], stopReason: 'pending' } },
  { type: 'message_update', assistantMessageEvent: { type: 'thinking_start', contentIndex: 0 } },
  update('thinking_delta', 'hmm'),
  update('text_delta', 'Hell'),
  update('text_delta', 'o wo'),
  update('text_delta', 'rld'),
  assistantEnd([
    { type: 'thinking', thinking: 'hmm' },
    { type: 'text', text: 'Hello world' },
  ]),
  { type: 'turn_end' },
  { type: 'agent_end', messages: [], willRetry: false },
  { type: 'agent_settled' },
];

test('a turn builds the user prompt and the streamed assistant text and thinking', () => {
  const midway = run(HELLO_TURN.slice(0, 10));
  assert.equal(midway.status, 'streaming');
  const live = midway.transcript.at(-1);
  assert.deepEqual(live && { ...live, at: 0 }, { kind: 'assistant', text: 'Hello wo', thinking: 'hmm', at: 0, done: false });

  const done = run(HELLO_TURN);
  assert.equal(done.status, 'idle', 'agent_settled ends streaming');
  assert.deepEqual(
    done.transcript.map((item) => ({ ...item, at: 0 })),
    [
      { kind: 'user', text: 'hi', at: 0 },
      { kind: 'assistant', text: 'Hello world', thinking: 'hmm', at: 0, done: true },
    ],
  );
});

test('message_end is authoritative: it replaces what the deltas built', () => {
  const state = run([
    { type: 'message_start', message: { role: 'assistant', content: [] } },
    update('text_delta', 'Helo'),
    assistantEnd([{ type: 'text', text: 'Hello' }]),
  ]);
  assert.equal((state.transcript[0] as Extract<TranscriptItem, { kind: 'assistant' }>).text, 'Hello');
});

test('U+2028 inside streamed text is kept as a character', () => {
  const state = run([{ type: 'message_start', message: { role: 'assistant', content: [] } }, update('text_delta', 'a\u2028b')]);
  assert.equal((state.transcript[0] as Extract<TranscriptItem, { kind: 'assistant' }>).text, 'a\u2028b');
});

test('a tool call shows its arguments, its streamed output and its result', () => {
  let state = run([
    { type: 'message_start', message: { role: 'assistant', content: [] } },
    assistantEnd([{ type: 'toolCall', id: 'call_1', name: 'bash', arguments: { command: 'ls' } }], { stopReason: 'toolUse' }),
    { type: 'tool_execution_start', toolCallId: 'call_1', toolName: 'bash', args: { command: 'ls' } },
    { type: 'tool_execution_update', toolCallId: 'call_1', toolName: 'bash', partialResult: { content: [{ type: 'text', text: 'a.txt' }] } },
  ]);
  assert.equal(state.transcript.length, 1, 'an assistant message with only a tool call leaves no empty bubble');
  assert.deepEqual({ ...state.transcript[0]!, at: 0 }, {
    kind: 'tool',
    toolCallId: 'call_1',
    name: 'bash',
    args: { command: 'ls' },
    output: 'a.txt',
    isError: false,
    done: false,
    at: 0,
  });
  state = reduceEvent(state, { type: 'tool_execution_end', toolCallId: 'call_1', toolName: 'bash', result: { content: [{ type: 'text', text: 'a.txt\nb.txt' }] }, isError: true }, T);
  const tool = state.transcript[0] as Extract<TranscriptItem, { kind: 'tool' }>;
  assert.equal(tool.output, 'a.txt\nb.txt');
  assert.equal(tool.isError, true);
  assert.equal(tool.done, true);
});

test('a failed or aborted model call leaves a notice saying so', () => {
  const failed = run([{ type: 'message_start', message: { role: 'assistant', content: [] } }, assistantEnd([], { stopReason: 'error', errorMessage: '401 bad key' })]);
  assert.deepEqual(failed.transcript.map((i) => i.kind), ['notice']);
  assert.deepEqual({ ...failed.transcript[0]!, at: 0 }, { kind: 'notice', level: 'error', text: '401 bad key', at: 0 });

  const aborted = run([
    { type: 'message_start', message: { role: 'assistant', content: [] } },
    update('text_delta', 'partial'),
    assistantEnd([{ type: 'text', text: 'partial' }], { stopReason: 'aborted' }),
  ]);
  assert.deepEqual(aborted.transcript.map((i) => i.kind), ['assistant', 'notice']);
  assert.equal((aborted.transcript[1] as Extract<TranscriptItem, { kind: 'notice' }>).text, 'Aborted');
});

test('retries, compaction and extension errors become notices', () => {
  const state = run([
    { type: 'auto_retry_start', attempt: 1, maxAttempts: 3, delayMs: 2000, errorMessage: '529 overloaded' },
    { type: 'auto_retry_end', success: false, attempt: 3, finalError: '529 overloaded' },
    { type: 'compaction_start', reason: 'threshold' },
    { type: 'compaction_end', reason: 'threshold', result: { tokensBefore: 1000, estimatedTokensAfter: 200 }, aborted: false },
    { type: 'extension_error', extensionPath: '/home/u/.pi/ext/guard.ts', event: 'tool_call', error: 'boom' },
  ]);
  assert.deepEqual(
    state.transcript.map((i) => (i.kind === 'notice' ? `${i.level}: ${i.text}` : i.kind)),
    [
      'warning: Retrying (attempt 1/3) in 2 s: 529 overloaded',
      'error: Gave up retrying: 529 overloaded',
      'info: Compacting the conversation (threshold)…',
      'info: Compacted the conversation: 1000 → 200 tokens',
      'error: guard.ts (tool_call): boom',
    ],
  );
});

test('the transcript is bounded: the oldest items fall off', () => {
  let state = initialHostedState();
  for (let i = 0; i < MAX_TRANSCRIPT_ITEMS + 5; i++) {
    state = reduceEvent(state, { type: 'message_start', message: { role: 'user', content: `m${i}` } }, T);
  }
  assert.equal(state.transcript.length, MAX_TRANSCRIPT_ITEMS);
  assert.equal((state.transcript[0] as Extract<TranscriptItem, { kind: 'user' }>).text, 'm5');
});

test('reducers never change the state they are given', () => {
  const before = run(HELLO_TURN.slice(0, 8));
  const frozen = structuredClone(before);
  run(HELLO_TURN.slice(8), before);
  reduceExit(before, 'gone', T);
  assert.deepEqual(before, frozen);
});

const select = (id: string, timeout?: number): UiRequest => ({
  type: 'extension_ui_request',
  id,
  method: 'select',
  title: 'Allow?',
  options: ['Allow', 'Block'],
  ...(timeout !== undefined ? { timeout } : {}),
});

test('dialogs wait until answered; a timed one leaves the list at its deadline', () => {
  let state = reduceUiRequest(initialHostedState(), select('d1'), T);
  state = reduceUiRequest(state, { type: 'extension_ui_request', id: 'd2', method: 'confirm', title: 'Sure?', message: 'really', timeout: 300 }, T);
  assert.deepEqual(
    state.dialogs.map((d) => [d.requestId, d.method, d.expiresAt]),
    [
      ['d1', 'select', null],
      ['d2', 'confirm', T + 300],
    ],
  );
  assert.equal(nextDialogExpiry(state), T + 300);
  assert.equal(expireDialogs(state, T + 299), state, 'nothing expired yet: same state');
  state = expireDialogs(state, T + 300);
  assert.deepEqual(state.dialogs.map((d) => d.requestId), ['d1']);
  assert.equal(nextDialogExpiry(state), null);
  state = removeDialog(state, 'd1');
  assert.deepEqual(state.dialogs, []);
});

test('notify is a notice; setStatus a status line, setWidget a widget where pi places it, setTitle the title; clearing removes each', () => {
  let state = initialHostedState();
  const ui = (r: Record<string, unknown>) => (state = reduceUiRequest(state, { type: 'extension_ui_request', id: 'x', ...r } as UiRequest, T));
  ui({ method: 'notify', message: 'Command blocked', notifyType: 'warning' });
  ui({ method: 'setStatus', statusKey: 'demo', statusText: 'Turn 1 running…' });
  ui({ method: 'setWidget', widgetKey: 'pi-ide', widgetLines: ['Neovim', 'In a.ts'] });
  ui({ method: 'setWidget', widgetKey: 'todo', widgetLines: ['1. tests'], widgetPlacement: 'belowEditor' });
  ui({ method: 'setTitle', title: 'pi - proj' });
  assert.deepEqual(state.statusLines, { demo: 'Turn 1 running…' }, 'a notification is not a status line that never clears');
  assert.deepEqual(state.widgets, [
    { key: 'pi-ide', lines: ['Neovim', 'In a.ts'], placement: 'aboveEditor' },
    { key: 'todo', lines: ['1. tests'], placement: 'belowEditor' },
  ]);
  assert.equal(state.title, 'pi - proj');
  assert.deepEqual({ ...state.transcript[0]!, at: 0 }, { kind: 'notice', level: 'warning', text: 'Command blocked', at: 0 });
  ui({ method: 'setStatus', statusKey: 'demo' });
  ui({ method: 'setWidget', widgetKey: 'pi-ide' });
  ui({ method: 'setWidget', widgetKey: 'todo', widgetLines: [] });
  assert.deepEqual(state.statusLines, {});
  assert.deepEqual(state.widgets, [], 'no lines (or an empty list) clears a widget');
});

test('get_state gives the model and thinking level and ends "starting"', () => {
  const state = reduceGetState(initialHostedState(), {
    model: { provider: 'fake', id: 'fake-1', name: 'Fake One' },
    thinkingLevel: 'off',
    isStreaming: false,
  });
  assert.equal(state.status, 'idle');
  assert.equal(state.model, 'fake/fake-1');
  assert.equal(state.thinkingLevel, 'off');
  assert.equal(reduceGetState(initialHostedState(), { isStreaming: true }).status, 'streaming', 'a pi resumed mid-run');
  // Later, pi's events say whether it works: a get_state answered just before a run began (or
  // just after it ended) must not undo what agent_start or agent_settled said.
  assert.equal(reduceGetState(state, { isStreaming: true }).status, 'idle');
  assert.equal(reduceGetState({ ...state, status: 'streaming' }, { isStreaming: false }).status, 'streaming');
});

test('exit ends open items, drops dialogs and says why', () => {
  let state = run(HELLO_TURN.slice(0, 9));
  state = reduceUiRequest(state, select('d1'), T);
  state = reduceExit(state, 'pi was killed by SIGKILL', T);
  assert.equal(state.status, 'exited');
  assert.equal(state.exit, 'pi was killed by SIGKILL');
  assert.deepEqual(state.dialogs, []);
  assert.ok(state.transcript.every((i) => i.kind !== 'assistant' || i.done));
  assert.deepEqual({ ...state.transcript.at(-1)!, at: 0 }, { kind: 'notice', level: 'error', text: 'pi was killed by SIGKILL', at: 0 });
  assert.equal(reduceEvent(state, { type: 'agent_start' }, T).status, 'exited', 'late records do not revive it');
});

test('records are sorted into responses, UI requests and events; malformed ones say why', () => {
  assert.equal(classifyRecord({ type: 'response', id: 'pb-1', command: 'get_state', success: true, data: {} }).kind, 'response');
  assert.equal(classifyRecord(select('d1')).kind, 'ui');
  assert.equal(classifyRecord({ type: 'agent_start' }).kind, 'event');
  assert.deepEqual(classifyRecord([1]), { kind: 'invalid', reason: 'record is not a JSON object' });
  assert.deepEqual(classifyRecord({ type: 'response', command: 'x', success: false }), {
    kind: 'invalid',
    reason: 'failed x response has no string "error"',
  });
  assert.deepEqual(classifyRecord({ type: 'extension_ui_request', id: 'a', method: 'custom' }), {
    kind: 'invalid',
    reason: 'extension_ui_request has unknown method "custom"',
  });
});

test('an answer must fit its dialog', () => {
  assert.equal(answerProblem('select', ['Allow', 'Block'], { value: 'Allow' }), null);
  assert.equal(answerProblem('select', ['Allow', 'Block'], { value: 'Maybe' }), '"Maybe" is not one of the options');
  assert.equal(answerProblem('confirm', undefined, { confirmed: false }), null);
  assert.match(answerProblem('confirm', undefined, { value: 'yes' }) ?? '', /confirm dialog takes/);
  assert.match(answerProblem('input', undefined, { confirmed: true }) ?? '', /input dialog takes \{value: string\}/);
  assert.equal(answerProblem('editor', undefined, { cancelled: true }), null);
});

test("pi-ide's /ide dialog is answered with Patchbay's door only when it is offered exactly once", () => {
  const door = { pid: 4242, port: 40123 };
  const ide = (options: string[], title = 'Connect to IDE') => ({ method: 'select', title, options });
  const patchbay = 'Patchbay · /work/proj · pid=4242 port=40123';
  const nvim = 'Neovim · /work/proj · pid=5000 port=41000';
  assert.equal(doorChoice(ide([nvim, patchbay]), door), patchbay);
  assert.equal(doorChoice(ide([nvim]), door), null, 'the door is not offered');
  assert.equal(doorChoice(ide([nvim, patchbay], 'Select IDE (toggle to disconnect)'), door), null, 'already connected: choosing would disconnect');
  assert.equal(doorChoice({ method: 'confirm', title: 'Connect to IDE' }, door), null);
  assert.equal(doorChoice(ide([patchbay]), null), null, 'no door');
});

test('text deltas between reads of the hub stream into the open reply', () => {
  const delta = (type: string, d: string) => ({ type: 'message_update', assistantMessageEvent: { type, delta: d } });
  let state: HostedState = { ...initialHostedState(), status: 'idle', transcript: [{ kind: 'user', text: 'hi', at: T }] };
  state = reduceEvent(state, { type: 'agent_start' }, T);
  assert.equal(state.status, 'streaming');
  state = reduceEvent(state, delta('thinking_delta', 'Hmm'), T);
  state = reduceEvent(state, delta('text_delta', 'Hel'), T);
  state = reduceEvent(state, delta('text_delta', 'lo'), T);
  assert.equal(state.transcript.length, 2);
  assert.deepEqual(state.transcript[1], { kind: 'assistant', text: 'Hello', thinking: 'Hmm', at: T, done: false });
  state = reduceEvent(state, { type: 'agent_end', messages: [] }, T);
  assert.equal((state.transcript[1] as { done: boolean }).done, true);
  assert.equal(state.status, 'streaming', 'a queued follow-up may start a new run right after agent_end');
  state = reduceEvent(state, { type: 'agent_settled' }, T);
  assert.equal(state.status, 'idle');
  // A new turn's text opens a new reply rather than extending a finished one.
  state = reduceEvent(state, delta('text_delta', 'Again'), T);
  assert.equal(state.transcript.length, 3);
  const unchanged = reduceEvent(state, { type: 'message_update', assistantMessageEvent: { type: 'text_delta' } }, T);
  assert.equal(unchanged, state, 'a delta without text changes nothing');
});

test('a delta goes to the reply still open, even with a tool call listed after it', () => {
  const open: TranscriptItem = { kind: 'assistant', text: 'Let me', thinking: '', at: T, done: false };
  const tool: TranscriptItem = { kind: 'tool', toolCallId: 'c', name: 'read', args: {}, output: '', isError: false, done: false, at: T };
  const state = reduceEvent(
    { ...initialHostedState(), status: 'streaming', transcript: [open, tool] },
    { type: 'message_update', assistantMessageEvent: { type: 'text_delta', delta: ' look' } },
    T,
  );
  assert.equal(state.transcript.length, 2);
  assert.equal((state.transcript[0] as { text: string }).text, 'Let me look');
});

test('an exited session stays exited whatever late events say', () => {
  const state: HostedState = { ...initialHostedState(), status: 'exited', transcript: [] };
  assert.equal(reduceEvent(state, { type: 'agent_start' }, T).status, 'exited');
  assert.equal(reduceEvent(state, { type: 'agent_settled' }, T).status, 'exited');
});

test('tool calls appear when they start, show output as it streams, and end failed or done', () => {
  let state: HostedState = { ...initialHostedState(), status: 'streaming', transcript: [] };
  state = reduceEvent(state, { type: 'tool_execution_start', toolCallId: 'c1', toolName: 'bash', args: { command: 'ls' } }, T);
  state = reduceEvent(state, { type: 'tool_execution_start', toolCallId: 'c1', toolName: 'bash', args: {} }, T);
  assert.equal(state.transcript.length, 1, 'a repeated start adds nothing');
  state = reduceEvent(
    state,
    { type: 'tool_execution_update', toolCallId: 'c1', partialResult: { content: [{ type: 'text', text: 'a.txt\n' }] } },
    T,
  );
  assert.equal((state.transcript[0] as { output: string }).output, 'a.txt\n');
  state = reduceEvent(
    state,
    { type: 'tool_execution_end', toolCallId: 'c1', result: { content: [{ type: 'text', text: 'a.txt\nb.txt\n' }] }, isError: true },
    T,
  );
  const tool = state.transcript[0] as Extract<TranscriptItem, { kind: 'tool' }>;
  assert.deepEqual([tool.name, tool.output, tool.isError, tool.done], ['bash', 'a.txt\nb.txt\n', true, true]);
  assert.equal(reduceEvent(state, { type: 'tool_execution_end', toolCallId: 'unknown' }, T), state);
});

/** pi 0.87.1's get_messages after a turn with a write, a shell command and a compaction (shapes as recorded). */
const MESSAGES = [
  { role: 'system', content: '', sections: { preamble: 'You are an expert coding assistant…' }, timestamp: 1 },
  { role: 'compactionSummary', summary: 'Earlier: set up the project.', tokensBefore: 150000, timestamp: 2 },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'write notes.txt like this' },
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
    ],
    timestamp: 3,
  },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'A write.' },
      { type: 'text', text: 'Writing **notes.txt**.' },
      { type: 'toolCall', id: 'call_1', name: 'write', arguments: { path: 'notes.txt', content: 'hi\n' } },
    ],
    stopReason: 'toolUse',
    timestamp: 4,
  },
  { role: 'toolResult', toolCallId: 'call_1', toolName: 'write', content: [{ type: 'text', text: 'Successfully wrote 3 bytes' }], isError: false, timestamp: 5 },
  { role: 'assistant', content: [{ type: 'text', text: 'Done.' }], stopReason: 'stop', timestamp: 6 },
  { role: 'bashExecution', command: 'ls', output: 'notes.txt\n', exitCode: 0, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 7 },
  { role: 'custom', customType: 'todo', content: 'Remember the tests', display: true, timestamp: 8 },
  { role: 'custom', customType: 'hidden', content: 'not for people', display: false, timestamp: 9 },
  { role: 'assistant', content: [{ type: 'toolCall', id: 'call_2', name: 'bash', arguments: { command: 'sleep 9' } }], stopReason: 'aborted', timestamp: 10 },
];

test("the transcript rebuilt from pi's messages: prompts (with their images), replies, tool cards with results and reviews, shell runs, summaries", () => {
  const items = transcriptFromMessages({ messages: MESSAGES }, { call_1: 'd7' });
  assert.deepEqual(items, [
    { kind: 'summary', of: 'compaction', text: 'Earlier: set up the project.', at: 2 },
    { kind: 'user', text: 'write notes.txt like this', images: 1, at: 3 },
    { kind: 'assistant', text: 'Writing **notes.txt**.', thinking: 'A write.', at: 4, done: true },
    { kind: 'tool', toolCallId: 'call_1', name: 'write', args: { path: 'notes.txt', content: 'hi\n' }, output: 'Successfully wrote 3 bytes', isError: false, done: true, at: 4, diffId: 'd7' },
    { kind: 'assistant', text: 'Done.', thinking: '', at: 6, done: true },
    { kind: 'bash', requestId: null, command: 'ls', output: 'notes.txt\n', exitCode: 0, cancelled: false, excluded: true, done: true, at: 7 },
    { kind: 'notice', level: 'info', text: 'Remember the tests', at: 8 },
    // As live: the reply's end (aborted) comes before its calls.
    { kind: 'notice', level: 'warning', text: 'Aborted', at: 10 },
    { kind: 'tool', toolCallId: 'call_2', name: 'bash', args: { command: 'sleep 9' }, output: '', isError: false, done: true, at: 10 },
  ]);
  assert.deepEqual(transcriptFromMessages({ messages: [] }), []);
  assert.deepEqual(transcriptFromMessages('nonsense'), []);
});

test('queue, session name, a shell run streamed by request id, and a write’s review land in the state', () => {
  let state = run([
    { type: 'queue_update', steering: ['stop that'], followUp: ['then this', 7] },
    { type: 'session_info_changed', name: '  Refactor  ' },
  ]);
  assert.deepEqual(state.queue, { steering: ['stop that'], followUp: ['then this'] });
  assert.equal(state.sessionName, 'Refactor');
  assert.equal(run([{ type: 'session_info_changed' }], state).sessionName, null, 'an absent name clears it');

  state = bashStarted(state, 'pb-9', 'make test', false, T);
  state = run([
    { type: 'bash_execution_update', id: 'pb-9', delta: 'ok 1\n' },
    { type: 'bash_execution_update', id: 'pb-other', delta: 'not ours\n' },
    { type: 'bash_execution_update', id: 'pb-9', delta: 'ok 2\n' },
  ], state);
  const live = state.transcript.at(-1);
  assert.deepEqual(live, { kind: 'bash', requestId: 'pb-9', command: 'make test', output: 'ok 1\nok 2\n', exitCode: null, cancelled: false, excluded: false, done: false, at: T });
  state = bashEnded(state, 'pb-9', { output: 'ok 1\nok 2\nall good\n', exitCode: 0, cancelled: false, truncated: true, fullOutputPath: '/tmp/pi-bash.log' });
  assert.deepEqual(state.transcript.at(-1), { ...live, output: 'ok 1\nok 2\nall good\n\n[cut: the whole output is in /tmp/pi-bash.log]', exitCode: 0, done: true });

  state = run([{ type: 'tool_execution_start', toolCallId: 'c1', toolName: 'edit', args: { path: 'a.ts' } }], state);
  state = noteReview(state, 'c1', 'd3');
  assert.equal((state.transcript.at(-1) as { diffId?: string }).diffId, 'd3');
  assert.equal(noteReview(state, 'unknown', 'd4'), state);
});

test("a failed compaction says so once, in pi's words", () => {
  const state = run([{ type: 'compaction_end', reason: 'manual', aborted: false, willRetry: false, errorMessage: 'Compaction failed: Nothing to compact (session too small)' }]);
  assert.equal((state.transcript.at(-1) as { text: string }).text, 'Compaction failed: Nothing to compact (session too small)');
});

test('get_state gives the session file and name and how pi queues and compacts', () => {
  const state = reduceGetState(initialHostedState(), {
    thinkingLevel: 'off',
    isStreaming: false,
    steeringMode: 'all',
    followUpMode: 'one-at-a-time',
    sessionFile: '/s/a.jsonl',
    sessionId: 'u1',
    sessionName: 'Foo',
    autoCompactionEnabled: false,
  });
  assert.equal(state.sessionFile, '/s/a.jsonl');
  assert.equal(state.sessionName, 'Foo');
  assert.deepEqual(state.settings, { steeringMode: 'all', followUpMode: 'one-at-a-time', autoCompaction: false, autoRetry: null });
  const unnamed = reduceGetState(state, { sessionId: 'u2', isStreaming: false });
  assert.equal(unnamed.sessionFile, null, 'a --no-session pi has no file');
  assert.equal(unnamed.sessionName, null);
});

/** A codemode script that writes a file, as pi 1.6.0 streams it (recorded from `--mode json`). */
const NESTED_TURN: RpcEvent[] = [
  { type: 'tool_execution_start', toolCallId: 'call_3', toolName: 'codemode', args: { code: 'await tools.write(…)' } },
  { type: 'tool_execution_start', toolCallId: 'call_3/1', toolName: 'write', args: { path: 'n.txt', content: 'nested\n' }, parentToolCallId: 'call_3' },
  { type: 'tool_execution_end', toolCallId: 'call_3/1', toolName: 'write', result: { content: [{ type: 'text', text: 'Successfully wrote 7 bytes to n.txt' }] }, isError: false, parentToolCallId: 'call_3' },
  { type: 'tool_execution_end', toolCallId: 'call_3', toolName: 'codemode', result: { content: [{ type: 'text', text: 'Script completed' }] }, isError: false },
];

test('a call a codemode script made gets its own card under the script, with its output and its review', () => {
  let state = run(NESTED_TURN);
  state = noteReview(state, 'call_3/1', 'd7');
  const cards = state.transcript.filter((i) => i.kind === 'tool');
  assert.deepEqual(
    cards.map((c) => [c.toolCallId, c.name, c.parentToolCallId ?? null, c.output, c.done, c.diffId ?? null]),
    [
      ['call_3', 'codemode', null, 'Script completed', true, null],
      ['call_3/1', 'write', 'call_3', 'Successfully wrote 7 bytes to n.txt', true, 'd7'],
    ],
  );
});

test("a resumed session shows a script's calls from its result's nestedCalls, linked to their reviews; a failed or unfinished one says so", () => {
  const messages = [
    { role: 'user', content: [{ type: 'text', text: 'go' }], timestamp: T },
    { role: 'assistant', content: [{ type: 'toolCall', id: 'call_3', name: 'codemode', arguments: { code: '…' } }], stopReason: 'toolUse', timestamp: T + 1 },
    {
      role: 'toolResult',
      toolCallId: 'call_3',
      toolName: 'codemode',
      content: [{ type: 'text', text: 'Script completed' }],
      isError: false,
      timestamp: T + 2,
      nestedCalls: {
        calls: [
          { id: 'call_3/1', name: 'write', status: 'ok', arguments: { path: 'n.txt', content: 'nested\n' }, durationMs: 8 },
          { id: 'call_3/2', name: 'bash', status: 'error', arguments: { command: 'false' }, error: 'exit code 1' },
          { id: 'call_3/3', name: 'read', status: 'unfinished', argumentsBytes: 99999 },
          { name: 'no id' },
        ],
        complete: false,
      },
    },
  ];
  const cards = transcriptFromMessages(messages, { 'call_3/1': 'd7' }).filter((i) => i.kind === 'tool');
  assert.deepEqual(
    cards.map((c) => [c.toolCallId, c.parentToolCallId ?? null, c.isError, c.done, c.output, c.diffId ?? null, c.args]),
    [
      ['call_3', null, false, true, 'Script completed', null, { code: '…' }],
      ['call_3/1', 'call_3', false, true, '', 'd7', { path: 'n.txt', content: 'nested\n' }],
      ['call_3/2', 'call_3', true, true, 'exit code 1', null, { command: 'false' }],
      ['call_3/3', 'call_3', true, true, 'cancelled: it had not finished when its caller did', null, null],
    ],
  );
});
