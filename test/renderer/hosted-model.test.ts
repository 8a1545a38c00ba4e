import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HostedDialog, HostedView } from '../../src/api/types.ts';
import {
  CANCELLED,
  confirmAnswer,
  controlsFor,
  countdownText,
  currentDialog,
  movesStats,
  exitText,
  questionsWaiting,
  folderSuggestions,
  modelOptions,
  needsRefetch,
  parseArgs,
  parseModels,
  promptKeyAction,
  promptParams,
  selectAnswer,
  sortHosted,
  startParams,
  statsSummary,
  commandCompletions,
  pastSessionMatches,
  sessionAge,
  outcomeText,
  statusWord,
  fileSize,
  stoppedOnPurpose,
  textAnswer,
  toolSubject,
} from '../../renderer/src/hosted/hosted-model.ts';

const NOW = 1_700_000_000_000;

test('the prompt box offers Send when idle, and Steer, Follow up and Abort while pi works', () => {
  const idle = controlsFor('idle');
  assert.deepEqual([idle.send, idle.steer, idle.followUp, idle.abort, idle.stop], [true, false, false, false, true]);
  const streaming = controlsFor('streaming');
  assert.deepEqual([streaming.send, streaming.steer, streaming.followUp, streaming.abort], [false, true, true, true]);
  assert.equal(controlsFor('starting').prompt, false, 'no prompting before pi is ready');
  assert.equal(controlsFor('starting').stop, true, 'a pi that hangs while starting can still be stopped');
  const exited = controlsFor('exited');
  assert.deepEqual([exited.prompt, exited.configure, exited.stop], [false, false, false]);
});

test('a prompt sent while pi works says whether it steers or follows up', () => {
  assert.deepEqual(promptParams('h1', 'hi', 'send'), { id: 'h1', text: 'hi' });
  assert.deepEqual(promptParams('h1', 'stop that', 'steer'), { id: 'h1', text: 'stop that', streamingBehavior: 'steer' });
  assert.deepEqual(promptParams('h1', 'then this', 'followUp'), { id: 'h1', text: 'then this', streamingBehavior: 'followUp' });
});

const key = (k: string, more: Partial<Parameters<typeof promptKeyAction>[0]> = {}) => ({
  key: k,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...more,
});

test("Enter sends (steers while pi works), Shift+Enter breaks the line, Alt+Enter follows up, as in pi's editor", () => {
  assert.equal(promptKeyAction(key('Enter'), 'idle'), 'send');
  assert.equal(promptKeyAction(key('Enter'), 'streaming'), 'steer');
  assert.equal(promptKeyAction(key('Enter', { ctrlKey: true }), 'idle'), 'send', 'Ctrl+Enter still sends');
  assert.equal(promptKeyAction(key('Enter', { altKey: true }), 'streaming'), 'followUp');
  assert.equal(promptKeyAction(key('Enter', { altKey: true }), 'idle'), null, 'nothing to follow up');
  assert.equal(promptKeyAction(key('Enter', { shiftKey: true }), 'idle'), null, 'a new line');
  assert.equal(promptKeyAction({ ...key('Enter'), isComposing: true }, 'idle'), null, 'an input method is still composing');
  assert.equal(promptKeyAction(key('a', { ctrlKey: true }), 'idle'), null);
  assert.equal(promptKeyAction(key('Enter'), 'exited'), null);
});

test("a / at the start of the prompt offers pi's commands and the TUI's, narrowed as it is typed", () => {
  const pi = [
    { name: 'ide', source: 'extension' as const, description: 'Connect to a running IDE' },
    { name: 'skill:review', source: 'skill' as const },
    { name: 'compact', source: 'extension' as const, description: 'an extension of the same name wins' },
  ];
  const all = commandCompletions('/', pi);
  assert.ok(all.length >= 10);
  assert.deepEqual(commandCompletions('/co', pi).map((c) => [c.insert, c.from]), [['/compact ', 'extension']]);
  assert.deepEqual(commandCompletions('/n', pi).map((c) => [c.insert, c.label, c.from]), [
    ['/name ', '/name <name>', 'patchbay'],
    ['/new', '/new', 'patchbay'],
  ]);
  assert.deepEqual(commandCompletions('/skill', pi).map((c) => c.insert), ['/skill:review ']);
  assert.deepEqual(commandCompletions('/name foo', pi), [], 'not once a space is typed');
  assert.deepEqual(commandCompletions('hello /n', pi), []);
});

test('extra pi arguments split like a shell would, quotes kept together', () => {
  assert.deepEqual(parseArgs(''), { ok: true, args: [] });
  assert.deepEqual(parseArgs('  --no-session   --thinking high '), { ok: true, args: ['--no-session', '--thinking', 'high'] });
  assert.deepEqual(parseArgs(`--append-system-prompt "be brief, please" --x 'a b'`), {
    ok: true,
    args: ['--append-system-prompt', 'be brief, please', '--x', 'a b'],
  });
  assert.deepEqual(parseArgs(String.raw`a\ b "say \"hi\"" ''`), { ok: true, args: ['a b', 'say "hi"', ''] });
  const open = parseArgs('--x "unclosed');
  assert.equal(open.ok, false);
  assert.match(!open.ok ? open.error : '', /quote is not closed/);
});

test('the start form needs a folder and sends only what was filled in', () => {
  assert.deepEqual(startParams({ cwd: ' /work/p ', model: '', args: '' }), { ok: true, params: { cwd: '/work/p' } });
  assert.deepEqual(startParams({ cwd: '/work/p', model: 'openai/gpt-4o', args: '--no-session' }), {
    ok: true,
    params: { cwd: '/work/p', model: 'openai/gpt-4o', args: ['--no-session'] },
  });
  const noFolder = startParams({ cwd: '  ', model: '', args: '' });
  assert.equal(noFolder.ok, false);
  assert.match(!noFolder.ok ? noFolder.error : '', /^Folder:/);
  assert.equal(startParams({ cwd: '/p', model: 'open ai/x', args: '' }).ok, false);
  assert.equal(startParams({ cwd: '/p', model: '', args: '"x' }).ok, false);
});

test('folder suggestions come from editors, connected agents and hosted sessions, once each', () => {
  const folders = folderSuggestions({
    editors: [{ workspaceFolders: ['/w/b', '/w/a'] }] as never,
    sessions: [{ cwd: '/w/a' }, { cwd: null }] as never,
    hosted: [{ cwd: '/w/c' }] as never,
  });
  assert.deepEqual(folders, ['/w/a', '/w/b', '/w/c']);
});

test("pi's model list is read defensively: bare or wrapped, junk and duplicates dropped", () => {
  const models = parseModels({
    models: [
      { provider: 'openai', id: 'gpt-4o', name: 'GPT-4o', contextWindow: 128000 },
      { provider: 'fake', id: 'smart' },
      { provider: 'openai', id: 'gpt-4o', name: 'dup' },
      { id: 'no-provider' },
      'nonsense',
      null,
    ],
  });
  assert.deepEqual(
    models.map((m) => [m.key, m.name]),
    [
      ['openai/gpt-4o', 'GPT-4o'],
      ['fake/smart', 'smart'],
    ],
  );
  assert.deepEqual(parseModels([{ provider: 'a', id: 'b', name: 'B' }]).map((m) => m.key), ['a/b']);
  assert.deepEqual(parseModels(null), []);
  assert.deepEqual(parseModels({ models: 'x' }), []);
});

test('the current model stays choosable even when pi did not list it', () => {
  const listed = parseModels([{ provider: 'openai', id: 'gpt-4o' }]);
  assert.deepEqual(modelOptions(listed, 'openai/gpt-4o').map((m) => m.key), ['openai/gpt-4o']);
  const withCurrent = modelOptions(listed, 'local/qwen/2.5');
  assert.deepEqual(withCurrent[0], { provider: 'local', modelId: 'qwen/2.5', name: 'qwen/2.5', key: 'local/qwen/2.5' });
  assert.equal(withCurrent.length, 2);
  assert.equal(modelOptions(listed, null).length, 1);
});

test("pi's counters read as words: prompts, tool calls, tokens with their cost, how full the context is", () => {
  const stats = {
    sessionFile: '/x.jsonl',
    userMessages: 3,
    toolCalls: 12,
    tokens: { input: 50000, output: 1234, total: 51234 },
    cost: 0.4512,
    contextUsage: { tokens: 38400, contextWindow: 128000, percent: 30 },
  };
  assert.equal(statsSummary(stats), '3 prompts · 12 tool calls · 51k tokens ($0.45) · context 30% of 128k');
  assert.equal(statsSummary({ userMessages: 1, toolCalls: 0, tokens: { total: 950 }, cost: 0 }), '1 prompt · 950 tokens');
  assert.equal(statsSummary({ tokens: { total: 1234 }, cost: 0.0012 }), '1.2k tokens ($0.0012)');
  assert.equal(statsSummary({ contextUsage: { tokens: null, contextWindow: 200000, percent: null } }), 'context of 200k (unknown until the next reply)');
  assert.equal(statsSummary({ contextUsage: { tokens: 60, contextWindow: 128000, percent: 0.047 } }), 'context <0.1% of 128k');
  assert.equal(statsSummary({ tokens: { total: 1_250_000 } }), '1.25M tokens');
  assert.equal(statsSummary(null), null);
  assert.equal(statsSummary({ weird: 3 }), null);
});

test('dialog answers carry the chosen option, yes/no, the typed text, or a cancel', () => {
  assert.deepEqual(selectAnswer('Allow once'), { value: 'Allow once' });
  assert.deepEqual(confirmAnswer(true), { confirmed: true });
  assert.deepEqual(confirmAnswer(false), { confirmed: false });
  assert.deepEqual(textAnswer(''), { value: '' }, 'an empty answer is not a cancel');
  assert.deepEqual(CANCELLED, { cancelled: true });
});

const dialog = (requestId: string, expiresAt: number | null = null): HostedDialog => ({
  requestId,
  method: 'select',
  title: 't',
  options: ['a'],
  expiresAt,
});

test('the shown dialog is the oldest one not yet answered here and not expired', () => {
  const list = [dialog('r1', NOW - 1), dialog('r2'), dialog('r3', NOW + 5000)];
  assert.equal(currentDialog(list, new Set(), NOW)?.requestId, 'r2', 'r1 expired');
  assert.equal(currentDialog(list, new Set(['r2']), NOW)?.requestId, 'r3');
  assert.equal(currentDialog(list, new Set(['r2', 'r3']), NOW), null);
});

test('a dialog with a timeout counts down', () => {
  assert.equal(countdownText(null, NOW), null);
  assert.equal(countdownText(NOW + 9_200, NOW), '10 s left');
  assert.equal(countdownText(NOW - 50, NOW), '0 s left');
  assert.equal(countdownText(NOW + 300_000, NOW), '5 min left');
});

test('stats are re-read after each reply and when a run ends, not on every streamed token', () => {
  for (const type of ['message_end', 'turn_end', 'agent_end', 'agent_settled', 'compaction_end']) assert.equal(movesStats({ type }), true, type);
  assert.equal(movesStats({ type: 'message_update' }), false);
  assert.equal(movesStats({ type: 'tool_execution_update' }), false);
});

test('a stop the person asked for is not shown as a failure', () => {
  assert.equal(stoppedOnPurpose('pi stopped (exit code 0)'), true);
  assert.equal(stoppedOnPurpose('pi was stopped by SIGTERM'), true);
  assert.equal(stoppedOnPurpose('pi was killed by SIGKILL'), false);
  assert.equal(stoppedOnPurpose('pi exited with code 1'), false);
});

test('only events that change the transcript’s shape trigger a re-read of the hub', () => {
  assert.equal(needsRefetch({ type: 'message_update', assistantMessageEvent: { type: 'text_delta', delta: 'x' } }), false);
  assert.equal(needsRefetch({ type: 'message_update', assistantMessageEvent: { type: 'thinking_delta', delta: 'x' } }), false);
  assert.equal(needsRefetch({ type: 'message_update', assistantMessageEvent: { type: 'text_end' } }), true);
  assert.equal(needsRefetch({ type: 'tool_execution_start' }), true);
  assert.equal(needsRefetch({ type: 'extension_ui_request' }), true);
  assert.equal(needsRefetch({ type: 'agent_end' }), true);
});

test("a tool call's header names the file or command it is about", () => {
  assert.equal(toolSubject({ path: 'src/a.ts', content: 'x' }), 'src/a.ts');
  assert.equal(toolSubject({ command: 'ls -la\nrm x' }), 'ls -la');
  assert.equal(toolSubject({ other: 1 }), null);
  assert.equal(toolSubject('raw'), null);
});

test('running sessions list before exited ones, newest first', () => {
  const h = (id: string, status: HostedView['status'], startedAt: number) => ({ id, status, startedAt }) as HostedView;
  const sorted = sortHosted([h('a', 'exited', 3), h('b', 'idle', 1), h('c', 'streaming', 2)]);
  assert.deepEqual(sorted.map((x) => x.id), ['c', 'b', 'a']);
});

test('an exit reason reads as a sentence either way the hub words it', () => {
  assert.equal(exitText('pi exited with code 1'), 'pi exited with code 1');
  assert.equal(exitText('SIGKILL'), 'pi exited: SIGKILL');
});

test('the Sessions tab counts the questions waiting in every hosted session', () => {
  assert.equal(questionsWaiting([{ pendingDialogs: 1 }, { pendingDialogs: 2 }, { pendingDialogs: 0 }]), 3);
  assert.equal(questionsWaiting([]), 0);
  assert.equal(questionsWaiting(undefined), 0, 'a hub without hosted sessions');
});

test('a saved session is found by every word typed, in its name, first prompt or folder', () => {
  const session = { name: 'Parser work', firstPrompt: 'Fix the flaky test', cwd: '/work/app' };
  assert.equal(pastSessionMatches(session, ''), true);
  assert.equal(pastSessionMatches(session, 'parser FLAKY'), true);
  assert.equal(pastSessionMatches(session, 'app fix'), true);
  assert.equal(pastSessionMatches(session, 'parser web'), false);
  assert.equal(pastSessionMatches({ name: null, firstPrompt: null, cwd: '/x' }, 'x'), true);
  assert.equal(sessionAge(NOW - 20_000, NOW), 'just now');
  assert.equal(sessionAge(NOW - 5 * 60_000, NOW), '5 min ago');
  assert.equal(sessionAge(NOW - 3 * 3_600_000, NOW), '3 h ago');
  assert.equal(sessionAge(NOW - 26 * 3_600_000, NOW), 'yesterday');
  assert.equal(sessionAge(NOW - 5 * 86_400_000, NOW), '5 days ago');
  assert.deepEqual([900, 20_480, 1_572_864].map(fileSize), ['900 B', '20 KiB', '1.5 MiB']);
});

test("what a TUI command did is said in a line; a pi stopped on purpose is 'stopped', one that died 'exited'", () => {
  assert.equal(outcomeText({ ran: 'export', path: '/p/s.html' }), 'Exported the session to /p/s.html');
  assert.equal(outcomeText({ ran: 'fork', text: 'x', cancelled: true }), 'An extension cancelled the fork.');
  assert.equal(outcomeText({ ran: 'prompt' }), null);
  assert.equal(outcomeText({ ran: 'prompt', disposition: 'started' }), null);
  assert.match(outcomeText({ ran: 'prompt', disposition: 'handled' }) ?? '', /nothing went to the model/);
  assert.equal(statusWord({ status: 'exited', exit: 'pi stopped (exit code 0)' }), 'stopped');
  assert.equal(statusWord({ status: 'exited', exit: 'pi was killed by SIGKILL' }), 'exited');
  assert.equal(statusWord({ status: 'streaming', exit: null }), 'working');
});
