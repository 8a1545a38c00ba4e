// Each intercepted tool against fake links: what the agent hears, what the editor is sent.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Dialect } from '../../src/api/types.ts';
import type { RpcRequest } from '../../src/protocol/jsonrpc.ts';
import type { EditorEntry } from '../../src/relay/editor-registry.ts';
import { answer, type Frame } from '../../src/relay/rpc-link.ts';
import type { Session } from '../../src/relay/session.ts';
import { BUILTIN_TOOLS, interceptedTool, type ToolContext } from '../../src/relay/tools/index.ts';
import { openDiffArgs } from '../../src/relay/tools/open-diff.ts';
import { describeArgsError } from '../../src/relay/tools/tool.ts';
import { DEFAULT_SETTINGS } from '../../src/settings/defaults.ts';
import { waitFor } from '../peers/wait.ts';
import { fakeReview } from './fake-review.ts';
import { fakeLink } from './fake-link.ts';

interface WorldOptions {
  dialect?: Dialect;
  editorDialect?: Dialect | null;
  deadlineMs?: number;
  /** The bound editor's tools as its link listed them; null: not listed (yet). */
  editorTools?: { name: string }[] | null;
}

function world({ dialect = 'pi', editorDialect = 'pi', deadlineMs = 1500, editorTools = null }: WorldOptions = {}) {
  const agent = fakeLink('agent');
  const editor = fakeLink('editor');
  const session = { id: 's1', dialect, link: agent.link, closed: false, reviewNotes: [], clientInfo: { name: 'pi-ide', version: '1' } } as unknown as Session;
  const connection = { tools: editorTools, openLink: () => editor.link, link: async () => editor.link };
  const entry = editorDialect && ({ instance: { id: 'ed-1', port: 1, dialect: editorDialect }, connection, focusedAt: null } as unknown as EditorEntry);
  const { inbox, bridge: review, decided, logs } = fakeReview(session, editor.link, entry ? 'ed-1' : null);
  const ctx: ToolContext = {
    review,
    boundEditor: () => entry || undefined,
    forward: async (_session, msg, frame, translate) => answer(agent.link, msg.id, await editor.link.relay(msg, frame).response, translate),
    readOriginal: async () => ({ contents: Buffer.from('old\n'), isNew: false, tooLarge: false }),
    settings: () => ({ ...DEFAULT_SETTINGS, diagnosticsDeadlineMs: deadlineMs }),
    now: () => Date.now(),
    log: (line) => logs.push(line),
  };
  let nextId = 1;
  /** Runs one tools/call as the agent would send it. */
  const call = (name: string, args: unknown): { id: number; done: Promise<void> } => {
    const id = nextId++;
    const msg: RpcRequest = { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } };
    const text = JSON.stringify(msg);
    const frame: Frame = { bytes: Buffer.from(text), text };
    const tool = interceptedTool(name);
    assert.ok(tool, `${name} is intercepted`);
    return { id, done: tool.run(ctx, { session, msg, frame, args }) };
  };
  const answerTo = (id: number) => agent.sent.find((m) => m.id === id) as { result?: { content: { text: string }[] }; error?: { code: number; message: string } } | undefined;
  const texts = (id: number) => answerTo(id)?.result?.content.map((c) => c.text);
  return { agent, editor, inbox, review, call, answerTo, texts, logs, decided };
}

const good = { old_file_path: '/w/a.txt', new_file_path: '/w/a.txt', new_file_contents: 'x "q" \\ ü\n', tab_name: 'pi-write:1' };

describe('openDiff arguments', () => {
  test('the four string fields are accepted, empty strings and extra keys (_meta) included', () => {
    assert.equal(openDiffArgs.safeParse({ ...good, old_file_path: '', new_file_contents: '' }).success, true);
    assert.equal(openDiffArgs.safeParse({ ...good, _meta: { claudecode: 1 } }).success, true);
  });

  for (const field of ['old_file_path', 'new_file_path', 'new_file_contents', 'tab_name'] as const) {
    test(`a missing or non-string ${field} is refused with a message naming it`, () => {
      const { [field]: _, ...without } = good;
      for (const args of [without, { ...good, [field]: 42 }, { ...good, [field]: null }]) {
        const parsed = openDiffArgs.safeParse(args);
        assert.equal(parsed.success, false);
        assert.equal(describeArgsError('openDiff', parsed.error!), `openDiff: "${field}" must be a string`);
      }
    });
  }

  test('arguments that are not an object are refused as a whole', () => {
    for (const value of [null, 'openDiff', 7]) {
      const parsed = openDiffArgs.safeParse(value);
      assert.equal(parsed.success, false);
      assert.match(describeArgsError('openDiff', parsed.error!), /^openDiff: arguments /);
    }
  });
});

describe("Patchbay's own tools (no editor bound)", () => {
  test('are the reviewer’s four tools, each with an object schema whose required fields its handler checks', () => {
    assert.deepEqual(
      BUILTIN_TOOLS.map((t) => t.name),
      ['openDiff', 'close_tab', 'closeAllDiffTabs', 'getDiagnostics'],
    );
    for (const tool of BUILTIN_TOOLS) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.ok(typeof tool.inputSchema.properties === 'object' && !Array.isArray(tool.inputSchema.properties), tool.name);
    }
    const required = BUILTIN_TOOLS.find((t) => t.name === 'openDiff')!.inputSchema.required as string[];
    assert.deepEqual([...required].sort(), Object.keys(good).sort());
  });
});

describe('openDiff', () => {
  test('a malformed call is answered DIFF_REJECTED (pi-ide writes unreviewed on an error), naming the field', async () => {
    const w = world();
    const { id, done } = w.call('openDiff', { ...good, new_file_contents: 5 });
    await done;
    const [verdict, tab, why] = w.texts(id)!;
    assert.equal(verdict, 'DIFF_REJECTED');
    assert.equal(tab, 'pi-write:1');
    assert.match(why!, /"new_file_contents" must be a string/);
    assert.equal(w.inbox.pending().length, 0);
  });

  test('a diff waits in the inbox, reaches the editor as the bytes the agent sent, and the call ends with the decision', async () => {
    const w = world();
    const { id, done } = w.call('openDiff', good);
    await waitFor(() => w.editor.sent.length === 1, { message: 'the offer' });
    assert.deepEqual(w.editor.sent[0], { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'openDiff', arguments: good } });
    const [pending] = w.inbox.pending();
    assert.equal(pending!.path, '/w/a.txt');
    assert.equal(w.inbox.get(pending!.id)!.oldContents, 'old\n');
    let ended = false;
    void done.then(() => (ended = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(ended, false, 'the call stays open while the diff waits');
    w.review.decide(pending!.id, { outcome: 'accept', contents: 'mine\n' });
    await done;
    assert.deepEqual(w.texts(id)?.slice(0, 2), ['FILE_SAVED', 'mine\n']);
    assert.match(w.texts(id)?.[2] ?? '', /^Patchbay: the person edited your proposal for \/w\/a\.txt/);
    assert.equal(w.decided[0]!.by, 'patchbay');
  });

  test("the editor's FILE_SAVED with contents reaches the agent as the editor sent it", async () => {
    const w = world();
    const { id, done } = w.call('openDiff', good);
    await waitFor(() => w.editor.sent.length === 1);
    w.editor.receive({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: 'edited in nvim\n' }] } });
    await done;
    assert.deepEqual(w.texts(id), ['FILE_SAVED', 'edited in nvim\n']);
    assert.equal(w.decided[0]!.by, 'editor');
    assert.equal(w.decided[0]!.edited, true);
  });
});

describe('close_tab', () => {
  test("withdraws the session's pending diff of that name and answers TAB_CLOSED; the editor's tab is closed", async () => {
    const w = world();
    const diff = w.call('openDiff', good);
    await waitFor(() => w.inbox.pending().length === 1);
    const { id, done } = w.call('close_tab', { tab_name: 'pi-write:1' });
    await done;
    assert.deepEqual(w.texts(id), ['TAB_CLOSED']);
    await diff.done;
    assert.deepEqual(w.texts(diff.id), ['DIFF_REJECTED', 'pi-write:1']);
    assert.equal(w.decided[0]!.outcome, 'withdrawn');
    await waitFor(() => w.editor.sent.some((m) => (m.params as { name?: string }).name === 'close_tab'), { message: 'close_tab sent to the editor' });
  });

  test('an unknown tab is TAB_CLOSED too and changes nothing; a missing tab_name is refused naming it', async () => {
    const w = world();
    const unknown = w.call('close_tab', { tab_name: 'nope' });
    await unknown.done;
    assert.deepEqual(w.texts(unknown.id), ['TAB_CLOSED']);
    const bad = w.call('close_tab', {});
    await bad.done;
    assert.equal(w.answerTo(bad.id)!.error!.code, -32602);
    assert.match(w.answerTo(bad.id)!.error!.message, /"tab_name" must be a string/);
    assert.equal(w.decided.length, 0);
  });
});

describe('closeAllDiffTabs', () => {
  test('withdraws every pending diff of this session and says how many', async () => {
    const w = world({ dialect: 'claude', editorDialect: 'claude' });
    const a = w.call('openDiff', good);
    const b = w.call('openDiff', { ...good, tab_name: 'pi-write:2', new_file_path: '/w/b.txt' });
    await waitFor(() => w.inbox.pending().length === 2);
    const { id, done } = w.call('closeAllDiffTabs', {});
    await done;
    assert.deepEqual(w.texts(id), ['CLOSED_2_DIFF_TABS']);
    await Promise.all([a.done, b.done]);
    assert.deepEqual(w.texts(a.id)?.[0], 'DIFF_REJECTED', 'never TAB_CLOSED: Claude Code would take that as accept');
  });
});

describe('getDiagnostics', () => {
  test('without an editor it is answered empty in the agent’s shape', async () => {
    for (const [dialect, empty] of [['pi', '{}'], ['claude', '[]']] as const) {
      const w = world({ dialect, editorDialect: null });
      const { id, done } = w.call('getDiagnostics', {});
      await done;
      assert.deepEqual(w.texts(id), [empty], dialect);
    }
  });

  test("the editor's answer within the deadline passes unchanged", async () => {
    const w = world();
    const { id, done } = w.call('getDiagnostics', { uri: 'file:///w/a.ts' });
    await waitFor(() => w.editor.sent.length === 1);
    const answer = JSON.stringify({ 'file:///w/a.ts': [{ message: 'boom' }] });
    w.editor.receive({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: answer }] } });
    await done;
    assert.deepEqual(w.texts(id), [answer]);
  });

  test('past the deadline the agent gets an empty answer, and the late one is dropped', async () => {
    const w = world({ deadlineMs: 60 });
    const { id, done } = w.call('getDiagnostics', {});
    await done;
    assert.deepEqual(w.texts(id), ['{}']);
    assert.match(w.logs.join('\n'), /getDiagnostics answered empty: getDiagnostics: no answer within/);
    w.editor.receive({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: '{"late":[]}' }] } });
    assert.equal(w.agent.sent.filter((m) => m.id === id).length, 1, 'one answer only');
  });

  test('across dialects the editor is asked in its terms and the answer reshaped (array → map)', async () => {
    const w = world({ dialect: 'pi', editorDialect: 'claude' });
    const { id, done } = w.call('getDiagnostics', {});
    await waitFor(() => w.editor.sent.length === 1);
    const sent = w.editor.sent[0] as { id: number; params: { name: string } };
    assert.equal(sent.params.name, 'getDiagnostics');
    const array = JSON.stringify([{ uri: 'file:///w/a.ts', diagnostics: [{ message: 'boom' }] }]);
    w.editor.receive({ jsonrpc: '2.0', id: sent.id, result: { content: [{ type: 'text', text: array }] } });
    await done;
    assert.deepEqual(JSON.parse(w.texts(id)![0]!), { 'file:///w/a.ts': [{ message: 'boom' }] });
  });
});

describe('the open-editors tool', () => {
  test('without an editor: no tabs, in the agent’s shape', async () => {
    const pi = world({ dialect: 'pi', editorDialect: null });
    const a = pi.call('getOpenEditorTabs', {});
    await a.done;
    assert.deepEqual(pi.texts(a.id), ['[]']);
    const claude = world({ dialect: 'claude', editorDialect: null });
    const b = claude.call('getOpenEditors', {});
    await b.done;
    assert.deepEqual(claude.texts(b.id), ['{"tabs":[]}']);
  });

  test("across dialects it is renamed for the editor and its answer relabelled for Claude", async () => {
    const w = world({ dialect: 'claude', editorDialect: 'pi' });
    const { id, done } = w.call('getOpenEditors', {});
    await waitFor(() => w.editor.sent.length === 1);
    const sent = w.editor.sent[0] as { id: number; params: { name: string } };
    assert.equal(sent.params.name, 'getOpenEditorTabs');
    w.editor.receive({ jsonrpc: '2.0', id: sent.id, result: { content: [{ type: 'text', text: '[{"uri":"file:///w/a%20b.ts","isActive":true}]' }] } });
    await done;
    assert.deepEqual(JSON.parse(w.texts(id)![0]!), { tabs: [{ uri: 'file:///w/a%20b.ts', isActive: true, label: 'a b.ts' }] });
  });

  test('an editor of the other dialect that lists no such tool is not asked: no tabs, in the agent’s shape', async () => {
    const w = world({ dialect: 'pi', editorDialect: 'claude', editorTools: [{ name: 'openDiff' }, { name: 'getDiagnostics' }] });
    const { id, done } = w.call('getOpenEditorTabs', {});
    await done;
    assert.deepEqual(w.texts(id), ['[]']);
    assert.equal(w.editor.sent.length, 0);
  });
});
