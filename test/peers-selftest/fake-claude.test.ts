// The fake Claude Code client against fake editors of both dialects, directly.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { WebSocketServer } from 'ws';
import { FakeClaudeClient, validateToolList, type FakeClaudeOptions } from '../peers/fake-claude.ts';
import { FakeEditor, type FakeEditorOptions } from '../peers/fake-editor.ts';
import { spawnLive } from '../discovery/helpers.ts';
import { writeLockfile } from '../peers/lockfiles.ts';
import { spawnPeer } from '../peers/spawn.ts';
import { RpcPeer, textContent, UpgradeRefused } from '../peers/rpc-peer.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const DEAD_PID = 0x7ffffffe;

interface World {
  configDir: string;
  lockDir: string;
  proj: string;
  editor(opts?: Partial<FakeEditorOptions>): Promise<FakeEditor>;
  claude(opts?: Partial<FakeClaudeOptions>): Promise<FakeClaudeClient>;
}

async function world(t: TestContext): Promise<World> {
  const dir = await tempDir('claude');
  t.after(() => dir.cleanup());
  const configDir = join(dir.path, 'claude');
  const lockDir = join(configDir, 'ide');
  const proj = join(dir.path, 'proj');
  return {
    configDir,
    lockDir,
    proj,
    async editor(opts = {}) {
      const editor = await FakeEditor.start({ lockDir, workspaceFolders: [proj], dialect: 'claude', pingIntervalMs: 0, ...opts });
      t.after(() => editor.stop());
      return editor;
    },
    async claude(opts = {}) {
      const claude = await FakeClaudeClient.connect({ cwd: proj, configDir, ...opts });
      t.after(() => claude.close());
      return claude;
    },
  };
}

test('Claude connects with the mcp subprotocol and its header, then initializes, announces itself and lists tools', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const claude = await w.claude({ pid: 777 });
  const [client] = await editor.waitForClients(1);
  assert.equal(client!.protocol, 'mcp');
  assert.equal(client!.authHeader, 'x-claude-code-ide-authorization');
  const frames = editor.received.map((r) => r.msg);
  assert.deepEqual(
    frames.map((m) => m.method),
    ['initialize', 'notifications/initialized', 'ide_connected', 'tools/list'],
  );
  assert.equal((frames[0]!.params as { protocolVersion: string }).protocolVersion, '2025-11-25');
  assert.deepEqual(frames[2]!.params, { pid: 777 });
  assert.equal(claude.toolListError, null);
  assert.equal(claude.tools.length, 12);
});

test("pi-ide.nvim's [] properties make Claude drop the whole tool list", async (t) => {
  const w = await world(t);
  await w.editor({ dialect: 'pi' });
  const claude = await w.claude();
  assert.match(claude.toolListError ?? '', /getOpenEditorTabs.*properties must be an object/);
  assert.deepEqual(claude.tools, []);
  assert.deepEqual(validateToolList({ tools: [{ name: 'x', inputSchema: { type: 'object', properties: {} } }] }), {
    tools: [{ name: 'x', inputSchema: { type: 'object', properties: {} } }],
  });
  assert.ok('error' in validateToolList({ tools: [{ name: 'x', inputSchema: { properties: {} } }] }));
});

test('Claude deletes lockfiles of dead pids and autoconnects to the one live match', async (t) => {
  const w = await world(t);
  const dead = await writeLockfile(w.lockDir, 1, { pid: DEAD_PID, workspaceFolders: [w.proj], ideName: 'Gone', transport: 'ws', authToken: 't' });
  const editor = await w.editor();
  const claude = await w.claude();
  assert.equal(claude.port, editor.port);
  assert.deepEqual(claude.deletedLockfiles, [dead]);
  await assert.rejects(stat(dead), { code: 'ENOENT' });
  await w.editor();
  await assert.rejects(w.claude(), /2 IDE lockfiles .* match/);
});

test('a wrong token is refused with HTTP 401 by a Claude-dialect editor', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  await assert.rejects(w.claude({ port: editor.port, authToken: 'wrong' }), (err: unknown) => err instanceof UpgradeRefused && err.status === 401);
});

test('an accepted diff is written with the final contents and its tab closed twice', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const claude = await w.claude();
  const proposing = claude.openDiff('a.txt', 'proposed');
  const diff = await editor.waitForDiff();
  assert.match(diff.tabName, /^✻ \[Claude Code\] a\.txt \([0-9a-f]{6}\) ⧉$/);
  editor.decide(diff.tabName, 'saved', 'final');
  const outcome = await proposing;
  assert.deepEqual(outcome, { outcome: 'accepted', tabName: diff.tabName, path: join(w.proj, 'a.txt'), written: 'final', answer: 'FILE_SAVED' });
  assert.equal(await readFile(join(w.proj, 'a.txt'), 'utf8'), 'final');
  await waitFor(() => editor.calls('close_tab').length === 2);
  assert.ok(editor.calls('close_tab').every((c) => c.args.tab_name === diff.tabName));
});

test('a rejected diff is not written', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const claude = await w.claude();
  const proposing = claude.openDiff('a.txt', 'proposed');
  editor.decide((await editor.waitForDiff()).tabName, 'rejected');
  assert.equal((await proposing).outcome, 'rejected');
  await assert.rejects(stat(join(w.proj, 'a.txt')), { code: 'ENOENT' });
});

test('Claude takes an openDiff answer of TAB_CLOSED for an accept', async (t) => {
  const w = await world(t);
  // A server that answers openDiff with TAB_CLOSED, which no well-behaved editor should do.
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'mcp' });
  t.after(() => new Promise<void>((resolve) => wss.close(() => resolve())));
  wss.on('connection', (ws) => {
    new RpcPeer(ws, {
      request: (msg) => {
        if (msg.method === 'tools/list') return { tools: [] };
        if (msg.method === 'tools/call') return textContent('TAB_CLOSED');
        return {};
      },
    });
  });
  await new Promise((resolve) => wss.once('listening', resolve));
  const port = (wss.address() as { port: number }).port;
  const claude = await w.claude({ port, authToken: 'any' });
  const outcome = await claude.openDiff('a.txt', 'proposed');
  assert.equal(outcome.outcome, 'accepted');
  assert.equal(await readFile(join(w.proj, 'a.txt'), 'utf8'), 'proposed');
  for (const c of wss.clients) c.terminate();
});

test("each prompt's closeAllDiffTabs rejects the diffs still open in the editor", async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const claude = await w.claude();
  const proposing = claude.openDiff('a.txt', 'proposed');
  await editor.waitForDiff();
  const closed = await claude.prompt();
  assert.deepEqual(closed, textContent('CLOSED_1_DIFF_TABS'));
  assert.equal((await proposing).outcome, 'rejected');
});

test('model-issued getDiagnostics carries _meta and returns the array shape', async (t) => {
  const w = await world(t);
  const editor = await w.editor({ diagnostics: { 'file:///p/a.ts': [{ message: 'x' }] } });
  const claude = await w.claude();
  assert.deepEqual(await claude.getDiagnostics(), [{ uri: 'file:///p/a.ts', diagnostics: [{ message: 'x' }] }]);
  const call = await editor.waitForCall('getDiagnostics');
  assert.match(String((call.msg.params as { _meta: Record<string, unknown> })._meta['claudecode/toolUseId']), /^toolu_/);
  assert.deepEqual(await claude.getOpenEditors(), { tabs: [] });
});

test('selections and at-mentions from a Claude editor are recorded', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const claude = await w.claude();
  editor.sendSelection({ filePath: '/p/a.ts' });
  editor.sendAtMentioned({ filePath: '/p/a.ts', lineStart: 1, lineEnd: 2 });
  await waitFor(() => claude.selections.length === 1 && claude.atMentions.length === 1);
  assert.deepEqual(claude.selections[0], {
    text: '',
    filePath: '/p/a.ts',
    fileUrl: 'file:///p/a.ts',
    selection: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 }, isEmpty: true },
  });
  assert.deepEqual(claude.atMentions[0], { filePath: '/p/a.ts', lineStart: 1, lineEnd: 2 });
});

test('in an IDE’s terminal Claude trusts only lockfiles whose pid is its ancestor: another editor on the same folder is not counted', async (t) => {
  const w = await world(t);
  const stranger = await spawnLive();
  t.after(() => stranger.kill());
  const mine = await w.editor({ vscode: true }); // pid: this process
  await w.editor({ pid: stranger.pid });
  await assert.rejects(w.claude(), /2 IDE lockfiles .* match/, 'outside an IDE terminal both count');
  const claude = await w.claude({ ideTerminal: { ancestors: [process.pid] } });
  assert.equal(claude.port, mine.port);
  await assert.rejects(w.claude({ ideTerminal: { ancestors: [1234567] } }), /0 IDE lockfiles .* not trusted in this IDE terminal/);
});

test('in an IDE’s terminal the lockfile of CLAUDE_CODE_SSE_PORT is taken alone, whatever its pid and folders', async (t) => {
  const w = await world(t);
  const window = await w.editor({ vscode: true, workspaceFolders: ['/somewhere/else'] });
  await w.editor({ vscode: true });
  const claude = await w.claude({ ideTerminal: { ssePort: window.port, ancestors: [] } });
  assert.equal(claude.port, window.port);
});

test('Claude Code run as a child of the editor’s process, with VS Code’s terminal variables, finds that editor', async (t) => {
  const w = await world(t);
  const stranger = await spawnLive();
  t.after(() => stranger.kill());
  const mine = await w.editor({ vscode: true }); // pid: this process, the child's parent
  await w.editor({ pid: stranger.pid });
  const env = { ...process.env, TERM_PROGRAM: 'vscode', ENABLE_IDE_INTEGRATION: 'true' };
  const child = await spawnPeer('claude', ['--cwd', w.proj, '--config-dir', w.configDir, '--quiet'], { env });
  t.after(() => child.stop());
  assert.equal(child.ready.port, mine.port);
});
