// The fake editor on its own, driven by raw sockets: what an agent meets on the wire.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import WebSocket from 'ws';
import { FakeEditor, type FakeEditorOptions } from '../peers/fake-editor.ts';
import { openSocket, RpcPeer, toolTexts, UpgradeRefused, type RpcResponse } from '../peers/rpc-peer.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

async function editorIn(t: TestContext, opts: Partial<FakeEditorOptions> = {}): Promise<{ editor: FakeEditor; dir: string }> {
  const dir = await tempDir('editor');
  t.after(() => dir.cleanup());
  const editor = await FakeEditor.start({ lockDir: join(dir.path, 'ide'), workspaceFolders: [join(dir.path, 'proj')], pingIntervalMs: 0, ...opts });
  t.after(() => editor.stop());
  return { editor, dir: dir.path };
}

async function rawClient(t: TestContext, editor: FakeEditor, header = 'x-pi-ide-authorization', protocols: string[] = []): Promise<RpcPeer> {
  const ws = await openSocket(`ws://127.0.0.1:${editor.port}`, { [header]: editor.authToken }, protocols);
  const rpc = new RpcPeer(ws, {});
  t.after(() => rpc.close());
  return rpc;
}

async function refusal(port: number, headers: Record<string, string>): Promise<number> {
  const err = await openSocket(`ws://127.0.0.1:${port}`, headers).then(
    (ws) => {
      ws.terminate();
      return null;
    },
    (e: unknown) => e,
  );
  assert.ok(err instanceof UpgradeRefused, `expected the upgrade to be refused, got ${String(err)}`);
  return err.status;
}

function tool(r: RpcResponse): string[] {
  assert.equal(r.error, undefined, `unexpected error ${JSON.stringify(r.error)}`);
  return toolTexts(r.result);
}

test('a pi-ide.nvim editor answers a bad or missing token with HTTP 400 and accepts either header', async (t) => {
  const { editor } = await editorIn(t, { dialect: 'pi' });
  assert.equal(await refusal(editor.port, {}), 400);
  assert.equal(await refusal(editor.port, { 'x-pi-ide-authorization': 'wrong' }), 400);
  assert.equal(await refusal(editor.port, { 'x-claude-code-ide-authorization': 'wrong' }), 400);
  await rawClient(t, editor, 'x-pi-ide-authorization');
  await rawClient(t, editor, 'x-claude-code-ide-authorization');
  await editor.waitForClients(2);
  assert.deepEqual(
    editor.clients.map((c) => c.authHeader),
    ['x-pi-ide-authorization', 'x-claude-code-ide-authorization'],
  );
  assert.equal(editor.refused.length, 3);
});

test('a Claude-dialect editor answers 401 and accepts only the Claude header', async (t) => {
  const { editor } = await editorIn(t, { dialect: 'claude' });
  assert.equal(await refusal(editor.port, { 'x-claude-code-ide-authorization': 'wrong' }), 401);
  assert.equal(await refusal(editor.port, { 'x-pi-ide-authorization': editor.authToken }), 401);
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization', ['mcp']);
  assert.equal(rpc.ws.protocol, 'mcp');
});

test('the lockfile is 0600 and names the pid, folders, ide and token; stop deletes it', async (t) => {
  const { editor, dir } = await editorIn(t, { pid: 4242, ideName: 'Neovim test', dialect: 'pi' });
  assert.equal(editor.lockfile, join(dir, 'ide', `${editor.port}.lock`));
  const lock = JSON.parse(await readFile(editor.lockfile!, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(lock, { pid: 4242, workspaceFolders: [join(dir, 'proj')], ideName: 'Neovim test', transport: 'ws', authToken: editor.authToken });
  assert.match(editor.authToken, /^[0-9a-f]{64}$/);
  assert.equal((await stat(editor.lockfile!)).mode & 0o777, 0o600);
  await editor.stop();
  await assert.rejects(stat(editor.lockfile!), { code: 'ENOENT' });
  await editor.stop(); // twice is fine
});

test('a crashed editor drops its clients without a close frame and leaves its lockfile behind', async (t) => {
  const { editor } = await editorIn(t);
  const rpc = await rawClient(t, editor);
  await editor.crash();
  assert.equal((await rpc.closed).code, 1006);
  await stat(editor.lockfile!);
  await assert.rejects(openSocket(`ws://127.0.0.1:${editor.port}`, {}), /ECONNREFUSED/);
});

test('an editor can restart on the same port with a new token', async (t) => {
  const { editor, dir } = await editorIn(t);
  await editor.stop();
  const again = await FakeEditor.start({ ...editor.options, authToken: undefined, port: editor.port });
  t.after(() => again.stop());
  assert.equal(again.port, editor.port);
  assert.notEqual(again.authToken, editor.authToken);
  assert.equal(JSON.parse(await readFile(join(dir, 'ide', `${editor.port}.lock`), 'utf8')).authToken, again.authToken);
});

test('initialize answers 2024-11-05 and tools/list shows pi-ide.nvim\'s empty properties as []', async (t) => {
  const { editor } = await editorIn(t, { dialect: 'pi' });
  const rpc = await rawClient(t, editor);
  const init = await rpc.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x' } });
  assert.equal((init.result as { protocolVersion: string }).protocolVersion, '2024-11-05');
  const list = (await rpc.call('tools/list', {})).result as { tools: { name: string; inputSchema: { properties: unknown } }[] };
  assert.deepEqual(
    list.tools.map((x) => x.name),
    ['openDiff', 'close_tab', 'getDiagnostics', 'getOpenEditorTabs'],
  );
  assert.deepEqual(list.tools.find((x) => x.name === 'getOpenEditorTabs')!.inputSchema.properties, []);
  const unknown = await rpc.call('tools/call', { name: 'getOpenEditors', arguments: {} });
  assert.deepEqual(unknown.error, { code: -32601, message: 'Tool not found: getOpenEditors' });
});

test('a Claude-dialect editor lists the full Claude tool set with object schemas', async (t) => {
  const { editor } = await editorIn(t, { dialect: 'claude' });
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const list = (await rpc.call('tools/list', {})).result as { tools: { name: string; inputSchema: { properties: unknown } }[] };
  assert.equal(list.tools.length, 12);
  for (const x of list.tools) assert.ok(!Array.isArray(x.inputSchema.properties), x.name);
  assert.ok(list.tools.some((x) => x.name === 'closeAllDiffTabs'));
});

test('diagnostics come as a map from pi-ide.nvim (empty: []) and as an array from Claude editors', async (t) => {
  const { editor: pi } = await editorIn(t, { dialect: 'pi' });
  const { editor: claude } = await editorIn(t, { dialect: 'claude' });
  const piRpc = await rawClient(t, pi);
  const claudeRpc = await rawClient(t, claude, 'x-claude-code-ide-authorization');
  const call = (rpc: RpcPeer, args: object) => rpc.call('tools/call', { name: 'getDiagnostics', arguments: args });
  assert.deepEqual(tool(await call(piRpc, {})), ['[]']);
  assert.deepEqual(tool(await call(claudeRpc, {})), ['[]']);
  const diag = { message: 'boom', severity: 1 };
  pi.setDiagnostics({ 'file:///a.ts': [diag], 'file:///b.ts': [] });
  claude.setDiagnostics({ 'file:///a.ts': [diag] });
  assert.deepEqual(JSON.parse(tool(await call(piRpc, {}))[0]!), { 'file:///a.ts': [diag], 'file:///b.ts': [] });
  assert.deepEqual(JSON.parse(tool(await call(piRpc, { uri: 'file:///b.ts' }))[0]!), { 'file:///b.ts': [] });
  assert.deepEqual(tool(await call(piRpc, { uri: 'file:///c.ts' })), ['[]']);
  assert.deepEqual(JSON.parse(tool(await call(claudeRpc, {}))[0]!), [{ uri: 'file:///a.ts', diagnostics: [diag] }]);
});

test('a slow editor answers getDiagnostics only after its delay', async (t) => {
  const { editor } = await editorIn(t, { diagnosticsDelayMs: 150 });
  const rpc = await rawClient(t, editor);
  const started = Date.now();
  await rpc.call('tools/call', { name: 'getDiagnostics', arguments: {} });
  assert.ok(Date.now() - started >= 140, `answered after ${Date.now() - started} ms`);
});

test('open tabs: a JSON array from pi-ide.nvim, {tabs} with labels from Claude editors', async (t) => {
  const tabs = [{ uri: 'file:///p/a.ts', isActive: true, isDirty: true, languageId: 'typescript' }];
  const { editor: pi } = await editorIn(t, { dialect: 'pi', tabs });
  const { editor: claude } = await editorIn(t, { dialect: 'claude', tabs });
  const piTabs = tool(await (await rawClient(t, pi)).call('tools/call', { name: 'getOpenEditorTabs', arguments: {} }));
  assert.deepEqual(JSON.parse(piTabs[0]!), tabs);
  const claudeRpc = await rawClient(t, claude, 'x-claude-code-ide-authorization');
  const claudeTabs = tool(await claudeRpc.call('tools/call', { name: 'getOpenEditors', arguments: {} }));
  assert.deepEqual(JSON.parse(claudeTabs[0]!), { tabs: [{ ...tabs[0], label: 'a.ts' }] });
});

test('openDiff blocks until decided; a second diff with the same tab name rejects the first', async (t) => {
  const { editor } = await editorIn(t);
  const rpc = await rawClient(t, editor);
  const args = (contents: string) => ({ old_file_path: '/p/a', new_file_path: '/p/a', new_file_contents: contents, tab_name: 'T' });
  const first = rpc.call('tools/call', { name: 'openDiff', arguments: args('one') });
  const d1 = await editor.waitForDiff('T');
  assert.equal(d1.args.new_file_contents, 'one');
  const second = rpc.call('tools/call', { name: 'openDiff', arguments: args('two') });
  assert.deepEqual(tool(await first), ['DIFF_REJECTED', 'T']);
  await waitFor(() => editor.diffs.get('T')?.args.new_file_contents === 'two');
  editor.decide('T', 'saved', 'two, edited');
  assert.deepEqual(tool(await second), ['FILE_SAVED', 'two, edited']);
  assert.deepEqual(
    editor.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [
      ['T', 'rejected', 'replaced'],
      ['T', 'saved', 'decided'],
    ],
  );
  assert.throws(() => editor.decide('T', 'saved'), /no open diff "T"/);
});

test('close_tab rejects the pending diff of that tab and answers TAB_CLOSED even for unknown tabs', async (t) => {
  const { editor } = await editorIn(t);
  const rpc = await rawClient(t, editor);
  const pending = rpc.call('tools/call', { name: 'openDiff', arguments: { old_file_path: '/a', new_file_path: '/a', new_file_contents: 'x', tab_name: 'T' } });
  await editor.waitForDiff('T');
  assert.deepEqual(tool(await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: 'T' } })), ['TAB_CLOSED']);
  assert.deepEqual(tool(await pending), ['DIFF_REJECTED', 'T']);
  assert.deepEqual(tool(await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: 'nope' } })), ['TAB_CLOSED']);
});

test('a client that disconnects leaves its diff tabs open until the person decides them', async (t) => {
  const { editor } = await editorIn(t);
  const rpc = await rawClient(t, editor);
  const other = await rawClient(t, editor);
  void rpc.call('tools/call', { name: 'openDiff', arguments: { old_file_path: '/a', new_file_path: '/a', new_file_contents: 'x', tab_name: 'T' } }).catch(() => {});
  const diff = await editor.waitForDiff('T');
  rpc.terminate();
  await waitFor(() => diff.client.closeCode !== null, { message: 'the disconnect seen by the editor' });
  await other.call('ping'); // a later round trip: a close on disconnect would have happened by now
  assert.equal(editor.diffs.get('T'), diff);
  assert.equal(editor.closedDiffs.length, 0);
  editor.decide('T', 'rejected'); // answers nobody, and does not throw
  assert.deepEqual(
    editor.closedDiffs.map((c) => [c.tabName, c.reason]),
    [['T', 'decided']],
  );
});

test('closeDiffsOnDisconnect rejects a gone client\'s tabs but not other clients\'', async (t) => {
  const { editor } = await editorIn(t, { closeDiffsOnDisconnect: true });
  const gone = await rawClient(t, editor);
  const stays = await rawClient(t, editor);
  const args = (tab: string) => ({ old_file_path: '/a', new_file_path: '/a', new_file_contents: 'x', tab_name: tab });
  void gone.call('tools/call', { name: 'openDiff', arguments: args('G') }).catch(() => {});
  const kept = stays.call('tools/call', { name: 'openDiff', arguments: args('S') });
  await editor.waitForDiff('G');
  await editor.waitForDiff('S');
  gone.terminate();
  await waitFor(() => !editor.diffs.has('G'), { message: "the gone client's tab closed" });
  assert.deepEqual(
    editor.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [['G', 'rejected', 'client gone']],
  );
  editor.decide('S', 'saved');
  assert.deepEqual(tool(await kept), ['FILE_SAVED', 'x']);
});

test('an editor that omits saved contents answers a bare FILE_SAVED', async (t) => {
  const { editor } = await editorIn(t, { omitSavedContents: true });
  const rpc = await rawClient(t, editor);
  const pending = rpc.call('tools/call', { name: 'openDiff', arguments: { old_file_path: '/a', new_file_path: '/a', new_file_contents: 'x', tab_name: 'T' } });
  editor.decide((await editor.waitForDiff()).tabName, 'saved');
  assert.deepEqual(tool(await pending), ['FILE_SAVED']);
});

test('openDiff with a missing argument is an invalid-params error naming the field', async (t) => {
  const { editor } = await editorIn(t);
  const rpc = await rawClient(t, editor);
  const r = await rpc.call('tools/call', { name: 'openDiff', arguments: { old_file_path: '/a', new_file_path: '/a', tab_name: 'T' } });
  assert.deepEqual(r.error, { code: -32602, message: 'openDiff: "new_file_contents" must be a string' });
});

test('malformed JSON gets -32700 and the connection stays', async (t) => {
  const { editor } = await editorIn(t);
  const rpc = await rawClient(t, editor);
  rpc.ws.send('{not json');
  await waitFor(() => rpc.received.find((m) => m.error?.code === -32700));
  assert.ok((await rpc.call('ping')).result);
});

test('the editor pings its clients at the configured interval', async (t) => {
  const { editor } = await editorIn(t, { pingIntervalMs: 20 });
  const rpc = await rawClient(t, editor);
  let pings = 0;
  rpc.ws.on('ping', () => pings++);
  await waitFor(() => pings >= 2, { message: 'two pings' });
  assert.equal(rpc.ws.readyState, WebSocket.OPEN);
});

// ── claudecode.nvim's quirks ────────────────────────────────────────────────────────────

const CLAUDE_TAB = '✻ [Claude Code] a.ts (abc123) ⧉';
const diffArgs = (tab: string, contents = 'x') => ({ old_file_path: '/p/a.ts', new_file_path: '/p/a.ts', new_file_contents: contents, tab_name: tab });

test('claudecode.nvim is a Neovim of the Claude dialect that lists neither close_tab nor executeCode, yet answers close_tab', async (t) => {
  const { editor } = await editorIn(t, { claudecode: true });
  assert.equal(editor.dialect, 'claude');
  assert.equal(editor.ideName, 'Neovim');
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const names = ((await rpc.call('tools/list', {})).result as { tools: { name: string }[] }).tools.map((x) => x.name);
  assert.ok(names.includes('openDiff') && names.includes('closeAllDiffTabs'));
  assert.ok(!names.includes('close_tab') && !names.includes('executeCode'), names.join(','));
  assert.deepEqual(tool(await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: CLAUDE_TAB } })), ['TAB_CLOSED']);
  assert.equal((await rpc.call('tools/call', { name: 'executeCode', arguments: { code: '1' } })).error?.code, -32601);
  await assert.rejects(FakeEditor.start({ lockDir: '/nonexistent', workspaceFolders: [], claudecode: true, dialect: 'pi' }), /claude dialect/);
});

test('claudecode.nvim keeps a decided diff open until close_tab closes it', async (t) => {
  const { editor } = await editorIn(t, { claudecode: true });
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const saving = rpc.call('tools/call', { name: 'openDiff', arguments: diffArgs(CLAUDE_TAB, 'new\n') });
  await editor.waitForDiff(CLAUDE_TAB);
  editor.decide(CLAUDE_TAB, 'saved', 'edited\n');
  assert.deepEqual(tool(await saving), ['FILE_SAVED', 'edited\n']);
  assert.equal(editor.diffs.get(CLAUDE_TAB)?.status, 'saved', 'the decided diff is still on screen');
  assert.deepEqual(editor.pendingDiffs, []);
  assert.equal(editor.closedDiffs.length, 0);
  assert.throws(() => editor.decide(CLAUDE_TAB, 'rejected'), /already saved/);

  assert.deepEqual(tool(await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: CLAUDE_TAB } })), ['TAB_CLOSED']);
  assert.equal(editor.diffs.size, 0);
  assert.deepEqual(
    editor.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [[CLAUDE_TAB, 'saved', 'close_tab']],
  );
});

test('claudecode.nvim: a rejected diff stays open too, and closeAllDiffTabs closes and counts diffs in any state', async (t) => {
  const { editor } = await editorIn(t, { claudecode: true });
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const tab = (n: number) => `✻ [Claude Code] a.ts (${n}) ⧉`;
  const rejected = rpc.call('tools/call', { name: 'openDiff', arguments: diffArgs(tab(1)) });
  const pending = rpc.call('tools/call', { name: 'openDiff', arguments: diffArgs(tab(2)) });
  await editor.waitForDiff(tab(2));
  editor.decide(tab(1), 'rejected');
  assert.deepEqual(tool(await rejected), ['DIFF_REJECTED', tab(1)]);
  assert.equal(editor.diffs.get(tab(1))?.status, 'rejected');
  assert.deepEqual(tool(await rpc.call('tools/call', { name: 'closeAllDiffTabs', arguments: {} })), ['CLOSED_2_DIFF_TABS']);
  assert.deepEqual(tool(await pending), ['DIFF_REJECTED', tab(2)]);
  assert.equal(editor.diffs.size, 0);
  assert.deepEqual(
    editor.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [
      [tab(1), 'rejected', 'closeAllDiffTabs'],
      [tab(2), 'rejected', 'closeAllDiffTabs'],
    ],
  );
});

test('claudecode.nvim: close_tab for a name without both markers leaves the diff open and closes buffers instead', async (t) => {
  const { editor } = await editorIn(t, { claudecode: true });
  editor.setTabs([
    { uri: 'file:///p/notes.md', isDirty: false },
    { uri: 'file:///p/draft.ts', isDirty: true },
  ]);
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const closeTab = (tab_name: string) => rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name } });
  void rpc.call('tools/call', { name: 'openDiff', arguments: diffArgs('pi-write:call_1') }).catch(() => {});
  await editor.waitForDiff('pi-write:call_1');

  // The agent's own name finds the diff's "<name> (proposed)" buffer by prefix, which will not unload.
  const refused = await closeTab('pi-write:call_1');
  assert.equal(refused.error?.code, -32000);
  assert.match(String(refused.error?.data), /Failed to close buffer for tab pi-write:call_1: Failed to unload buffer/);
  assert.equal(editor.diffs.get('pi-write:call_1')?.status, 'pending', 'the diff is still open and waiting');

  // A name holding a file name closes that file under the person; a modified one is refused.
  assert.deepEqual(tool(await closeTab('pi-edit:notes.md')), ['TAB_CLOSED']);
  assert.deepEqual(editor.closedBuffers.map((b) => b.uri), ['file:///p/notes.md']);
  assert.deepEqual(editor.tabs.map((b) => b.uri), ['file:///p/draft.ts']);
  assert.equal((await closeTab('pi-edit:draft.ts')).error?.code, -32000);
  assert.deepEqual(tool(await closeTab('no such thing')), ['TAB_CLOSED']);
  assert.equal(editor.closedDiffs.length, 0);
});

test('claudecode.nvim rejects and closes a gone client\'s pending diffs but keeps its decided ones', async (t) => {
  const { editor } = await editorIn(t, { claudecode: true });
  const gone = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const tab = (n: number) => `✻ [Claude Code] a.ts (${n}) ⧉`;
  const saved = gone.call('tools/call', { name: 'openDiff', arguments: diffArgs(tab(1)) });
  void gone.call('tools/call', { name: 'openDiff', arguments: diffArgs(tab(2)) }).catch(() => {});
  await editor.waitForDiff(tab(2));
  editor.decide(tab(1), 'saved');
  assert.deepEqual(tool(await saved), ['FILE_SAVED', 'x']);
  gone.terminate();
  await waitFor(() => !editor.diffs.has(tab(2)), { message: "the gone client's pending diff closed" });
  assert.equal(editor.diffs.get(tab(1))?.status, 'saved');
  assert.deepEqual(
    editor.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [[tab(2), 'rejected', 'client gone']],
  );
});

test('claudecode.nvim answers tools late while in visual mode', async (t) => {
  const { editor } = await editorIn(t, { claudecode: true, visualModeDelayMs: 400 });
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const timed = async () => {
    const start = performance.now();
    tool(await rpc.call('tools/call', { name: 'getDiagnostics', arguments: {} }));
    return performance.now() - start;
  };
  editor.setMode('visual');
  assert.ok((await timed()) >= 390, 'visual mode holds the answer back');
  editor.setMode('normal');
  assert.ok((await timed()) < 390, 'normal mode answers at once');
});

// ── the VS Code double (Anthropic's Claude Code extension 1.0.100) ─────────────────────────────

test('a VS Code window: its port is held by a child of the lockfile’s pid, and one pid serves several windows', async (t) => {
  const { editor, dir } = await editorIn(t, { vscode: true });
  const other = await FakeEditor.start({ lockDir: join(dir, 'ide'), workspaceFolders: [join(dir, 'other')], vscode: true, pingIntervalMs: 0 });
  t.after(() => other.stop());
  const lock = JSON.parse(await readFile(editor.lockfile!, 'utf8')) as Record<string, unknown>;
  assert.equal(lock.pid, process.pid);
  assert.equal(lock.ideName, 'Visual Studio Code');
  assert.equal(lock.runningInWindows, false);
  assert.equal(JSON.parse(await readFile(other.lockfile!, 'utf8')).pid, process.pid, 'windows share the pid');
  assert.notEqual(editor.port, other.port, 'each window has its own port');
  const holder = editor.listener!;
  assert.notEqual(holder.pid, process.pid);
  const stat = await readFile(`/proc/${holder.pid}/stat`, 'utf8');
  assert.equal(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]), process.pid, 'the listener is a child of the lockfile’s pid');
});

test('a VS Code window lets a bad token upgrade and closes it with 1008, leaving its client alone', async (t) => {
  const { editor } = await editorIn(t, { vscode: true });
  const first = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const ws = new WebSocket(`ws://127.0.0.1:${editor.port}`, { headers: { 'x-claude-code-ide-authorization': 'wrong' } });
  const [code] = (await once(ws, 'close')) as [number];
  assert.equal(code, 1008);
  assert.equal(editor.refused.length, 1);
  assert.ok(first.isOpen, 'the client it has keeps its connection');
});

test('a VS Code window serves one client at a time: a newcomer closes the old one without a code (1005)', async (t) => {
  const { editor } = await editorIn(t, { vscode: true });
  const first = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  await editor.waitForClients(1);
  const second = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const { code } = await first.closed;
  assert.equal(code, 1005);
  assert.ok(second.isOpen);
  await waitFor(() => editor.openClients.length === 1, { message: 'one client left' });
});

test('a VS Code diff stays open after a decision until close_tab; close_tab on a pending diff saves it if edited, else rejects it', async (t) => {
  const { editor } = await editorIn(t, { vscode: true });
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const args = (tab: string) => ({ old_file_path: '/w/a.txt', new_file_path: '/w/a.txt', new_file_contents: 'new\n', tab_name: tab });
  const accepted = rpc.call('tools/call', { name: 'openDiff', arguments: args('pi-write:1') });
  await editor.waitForDiff('pi-write:1');
  editor.decide('pi-write:1', 'saved');
  assert.deepEqual(tool(await accepted), ['FILE_SAVED', 'new\n']);
  assert.equal(editor.diffs.get('pi-write:1')?.status, 'saved', 'the decided tab stays open');
  assert.deepEqual(tool(await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: 'pi-write:1' } })), ['TAB_CLOSED']);
  assert.equal(editor.diffs.size, 0);

  const closedPending = rpc.call('tools/call', { name: 'openDiff', arguments: args('pi-write:2') });
  await editor.waitForDiff('pi-write:2');
  await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: 'pi-write:2' } });
  assert.deepEqual(tool(await closedPending), ['DIFF_REJECTED', 'pi-write:2'], 'nothing to save: closed, so rejected');

  const edited = rpc.call('tools/call', { name: 'openDiff', arguments: args('pi-write:4') });
  await editor.waitForDiff('pi-write:4');
  editor.editProposed('pi-write:4', 'new, edited\n');
  await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: 'pi-write:4' } });
  assert.deepEqual(tool(await edited), ['FILE_SAVED', 'new, edited\n'], 'VS Code saves an edited diff it closes');

  const accepted2 = rpc.call('tools/call', { name: 'openDiff', arguments: args('pi-write:5') });
  await editor.waitForDiff('pi-write:5');
  editor.editProposed('pi-write:5', 'typed\n');
  editor.decide('pi-write:5', 'saved');
  assert.deepEqual(tool(await accepted2), ['FILE_SAVED', 'typed\n'], 'Accept sends the proposed side as edited');

  const byPerson = rpc.call('tools/call', { name: 'openDiff', arguments: args('pi-write:3') });
  await editor.waitForDiff('pi-write:3');
  editor.closeTab('pi-write:3');
  assert.deepEqual(tool(await byPerson), ['DIFF_REJECTED', 'pi-write:3']);
});

test('a VS Code openDiff first closes every "[Claude Code]" diff (saving it if edited), and only those', async (t) => {
  const { editor } = await editorIn(t, { vscode: true });
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const args = (tab: string) => ({ old_file_path: '/w/a.txt', new_file_path: '/w/a.txt', new_file_contents: 'x\n', tab_name: tab });
  const claudeTab = '✻ [Claude Code] a.txt (abc123) ⧉';
  const claude = rpc.call('tools/call', { name: 'openDiff', arguments: args(claudeTab) });
  await editor.waitForDiff(claudeTab);
  editor.editProposed(claudeTab, 'x, edited\n');
  const pi = rpc.call('tools/call', { name: 'openDiff', arguments: args('✻ [pi] a.txt (d1) ⧉') });
  assert.deepEqual(tool(await claude), ['FILE_SAVED', 'x, edited\n'], 'closed by the next openDiff, saved as edited');
  await editor.waitForDiff('✻ [pi] a.txt (d1) ⧉');
  const next = rpc.call('tools/call', { name: 'openDiff', arguments: args('✻ [Claude Code] b.txt (def456) ⧉') });
  await editor.waitForDiff('✻ [Claude Code] b.txt (def456) ⧉');
  assert.equal(editor.diffs.get('✻ [pi] a.txt (d1) ⧉')?.status, 'pending');
  const closed = tool(await rpc.call('tools/call', { name: 'closeAllDiffTabs', arguments: {} }));
  assert.deepEqual(closed, ['CLOSED_1_DIFF_TABS']);
  assert.deepEqual(tool(await next), ['DIFF_REJECTED', '✻ [Claude Code] b.txt (def456) ⧉']);
  editor.decide('✻ [pi] a.txt (d1) ⧉', 'rejected');
  assert.equal(tool(await pi)[0], 'DIFF_REJECTED');
});

test('VS Code diagnostics: a pretty-printed array, severities by name', async (t) => {
  const { editor } = await editorIn(t, {
    vscode: true,
    diagnostics: { 'file:///w/a.ts': [{ message: 'boom', severity: 1, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, source: 'ts', code: 2304 }] },
  });
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization');
  const [text] = tool(await rpc.call('tools/call', { name: 'getDiagnostics', arguments: {} }));
  assert.match(text!, /\n {2}\{/, 'indented');
  assert.deepEqual(JSON.parse(text!), [
    { uri: 'file:///w/a.ts', diagnostics: [{ message: 'boom', severity: 'Error', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, source: 'ts', code: '2304' }] },
  ]);
});

test('the JetBrains double takes a connection only with subprotocol exactly mcp (the MCP Kotlin SDK), and names its server as the plugin does', async (t) => {
  const { editor } = await editorIn(t, { jetbrains: true });
  const token = { 'x-claude-code-ide-authorization': editor.authToken };
  assert.equal(await refusal(editor.port, token), 400, 'no subprotocol');
  const offeredTwo = await openSocket(`ws://127.0.0.1:${editor.port}`, token, ['mcp', 'other']).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(offeredTwo instanceof UpgradeRefused && offeredTwo.status === 400, '"mcp, other" is not exactly mcp');
  const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization', ['mcp']);
  const init = await rpc.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  assert.deepEqual((init.result as { serverInfo: { name: string }; capabilities: unknown }).serverInfo.name, 'Claude Code JetBrains Plugin');
  assert.deepEqual((init.result as { capabilities: unknown }).capabilities, { tools: { listChanged: true } });
  assert.equal(editor.ideName, 'IntelliJ IDEA');
});

test('the Emacs double writes no token, takes any connection, says list_changed after initialize, and errs on closing a tab it has not', async (t) => {
  const { editor } = await editorIn(t, { emacs: true });
  const lock = JSON.parse(await readFile(editor.lockfile!, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(lock, { pid: process.pid, workspaceFolders: editor.workspaceFolders, ideName: 'Emacs', transport: 'ws' });
  const ws = await openSocket(`ws://127.0.0.1:${editor.port}`, {}, ['mcp']);
  const rpc = new RpcPeer(ws, {});
  t.after(() => rpc.close());
  await rpc.call('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
  await waitFor(() => rpc.received.some((m) => m.method === 'notifications/tools/list_changed'), { message: 'list_changed after initialize' });
  const bad = await rpc.call('tools/call', { name: 'close_tab', arguments: { tab_name: 'no such tab' } });
  assert.deepEqual(bad.error, { code: -32603, message: 'No buffer named no such tab' });
});

test("today's VS Code double has nine tools and 1.0.100's twelve; a save accepts today's only after the person touched the diff", async (t) => {
  const { editor: today } = await editorIn(t, { vscode: true });
  const { editor: old } = await editorIn(t, { vscode: true, vscodeVersion: '1.0.100' });
  assert.deepEqual([today.tools.length, old.tools.length], [9, 12]);
  for (const editor of [today, old]) {
    const rpc = await rawClient(t, editor, 'x-claude-code-ide-authorization', ['mcp']);
    const opening = rpc.call('tools/call', { name: 'openDiff', arguments: { old_file_path: '/x/a', new_file_path: '/x/a', new_file_contents: 'new\n', tab_name: 't' } });
    await editor.waitForDiff('t');
    const saved = editor.save('t');
    if (editor === today) {
      assert.equal(saved, false, 'untouched');
      editor.touchProposed('t');
      assert.equal(editor.save('t'), true);
    } else assert.equal(saved, true);
    assert.deepEqual(tool(await opening), ['FILE_SAVED', 'new\n']);
  }
});
