// The fake pi-ide client against the fake pi-ide.nvim editor, directly (no Patchbay between).
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { FakeEditor, type FakeEditorOptions } from '../peers/fake-editor.ts';
import { FakePiClient, discoverPiEditors, type FakePiOptions } from '../peers/fake-pi.ts';
import { toolTexts, UpgradeRefused } from '../peers/rpc-peer.ts';
import { tempDir, waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';

/** A pid no process has (above Linux's and macOS's pid_max). */
const DEAD_PID = 0x7ffffffe;

interface World {
  root: string;
  lockDir: string;
  proj: string;
  editor(opts?: Partial<FakeEditorOptions>): Promise<FakeEditor>;
  pi(opts?: Partial<FakePiOptions>): Promise<FakePiClient>;
}

async function world(t: TestContext): Promise<World> {
  const dir = await tempDir('pi');
  t.after(() => dir.cleanup());
  const lockDir = join(dir.path, 'ide');
  const proj = join(dir.path, 'proj');
  await mkdir(proj);
  return {
    root: dir.path,
    lockDir,
    proj,
    async editor(opts = {}) {
      const editor = await FakeEditor.start({ lockDir, workspaceFolders: [proj], dialect: 'pi', pingIntervalMs: 0, ...opts });
      t.after(() => editor.stop());
      return editor;
    },
    async pi(opts = {}) {
      const pi = await FakePiClient.connect({ cwd: proj, lockDir, ...opts });
      t.after(() => pi.close());
      return pi;
    },
  };
}

test('pi-ide sends only initialize, with its client info and its own header', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi();
  assert.equal((pi.initializeResult as { protocolVersion: string }).protocolVersion, '2024-11-05');
  const [client] = await editor.waitForClients(1);
  assert.equal(client!.authHeader, 'x-pi-ide-authorization');
  assert.equal(client!.protocol, '');
  await pi.turn(); // a later frame, so anything sent after initialize would have arrived
  const methods = editor.received.map((r) => r.msg.method);
  assert.deepEqual(methods, ['initialize', 'tools/call']);
  assert.deepEqual((editor.received[0]!.msg.params as { clientInfo: unknown }).clientInfo, { name: 'pi-ide', version: '0.1.0' });
});

test('pi autoconnects only when exactly one live lockfile contains its cwd', async (t) => {
  const w = await world(t);
  await assert.rejects(w.pi(), /0 IDE lockfiles .* match/);
  const editor = await w.editor();
  await w.editor({ workspaceFolders: [join(w.root, 'other')] });
  await w.editor({ workspaceFolders: [w.root], pid: DEAD_PID });
  await w.editor({ workspaceFolders: [`${w.proj}-sibling`] });
  const matches = await discoverPiEditors(w.lockDir, join(w.proj, 'src'));
  assert.deepEqual(
    matches.map((m) => m.port),
    [editor.port],
  );
  const pi = await w.pi();
  assert.equal(pi.port, editor.port);
  await w.editor({ workspaceFolders: [w.root] });
  await assert.rejects(w.pi(), /2 IDE lockfiles .* match/);
});

test('a wrong token is refused with HTTP 400 by pi-ide.nvim', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  await assert.rejects(w.pi({ port: editor.port, authToken: 'wrong' }), (err: unknown) => err instanceof UpgradeRefused && err.status === 400);
});

test('a saved diff writes the editor\'s final contents and then closes the tab', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi();
  const writing = pi.write('a.txt', 'proposed\n');
  const diff = await editor.waitForDiff('pi-write:1');
  assert.deepEqual(diff.args, { old_file_path: join(w.proj, 'a.txt'), new_file_path: join(w.proj, 'a.txt'), new_file_contents: 'proposed\n', tab_name: 'pi-write:1' });
  editor.decide('pi-write:1', 'saved', 'edited by the person\n');
  const outcome = await writing;
  assert.deepEqual(outcome, { outcome: 'saved', tabName: 'pi-write:1', path: join(w.proj, 'a.txt'), written: 'edited by the person\n', said: [] });
  assert.equal(await readFile(join(w.proj, 'a.txt'), 'utf8'), 'edited by the person\n');
  const close = await editor.waitForCall('close_tab');
  assert.deepEqual((close.msg.params as { arguments: unknown }).arguments, { tab_name: 'pi-write:1' });
});

test('a rejected diff leaves the file as it was', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi();
  await writeFile(join(w.proj, 'a.txt'), 'original');
  const writing = pi.write('a.txt', 'proposed');
  editor.decide((await editor.waitForDiff()).tabName, 'rejected');
  assert.deepEqual(await writing, { outcome: 'rejected', tabName: 'pi-write:1', path: join(w.proj, 'a.txt'), answer: 'DIFF_REJECTED', said: [] });
  assert.equal(await readFile(join(w.proj, 'a.txt'), 'utf8'), 'original');
});

test('FILE_SAVED without contents makes pi write an empty file (the real bug)', async (t) => {
  const w = await world(t);
  const editor = await w.editor({ omitSavedContents: true });
  const pi = await w.pi();
  const writing = pi.write('a.txt', 'proposed');
  editor.decide((await editor.waitForDiff()).tabName, 'saved');
  assert.equal((await writing).outcome, 'saved');
  assert.equal(await readFile(join(w.proj, 'a.txt'), 'utf8'), '');
});

test('a connection drop mid-diff writes the file unreviewed, and pi never reconnects', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi();
  const writing = pi.write('a.txt', 'unchecked');
  await editor.waitForDiff();
  await editor.crash();
  const outcome = await writing;
  assert.equal(outcome.outcome, 'unreviewed');
  assert.equal(await readFile(join(w.proj, 'a.txt'), 'utf8'), 'unchecked');
  await waitFor(() => !pi.connected);
  assert.equal(pi.closeCode, 1006);
  const back = await w.editor({ port: editor.port });
  assert.equal((await pi.write('b.txt', 'also unchecked')).outcome, 'unreviewed');
  assert.equal(back.clients.length, 0);
});

test('an openDiff error makes pi write the file unreviewed', async (t) => {
  const w = await world(t);
  await w.editor({ failTools: { openDiff: 'diff view failed' } });
  const pi = await w.pi();
  const outcome = await pi.write('a.txt', 'unchecked');
  assert.deepEqual(outcome, { outcome: 'unreviewed', tabName: 'pi-write:1', path: join(w.proj, 'a.txt'), written: 'unchecked', reason: 'openDiff failed: diff view failed' });
  assert.equal(await readFile(join(w.proj, 'a.txt'), 'utf8'), 'unchecked');
});

test('edit proposes the whole file with the replacement applied', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi();
  await writeFile(join(w.proj, 'a.ts'), 'const a = 1;\nconst b = 2;\n');
  const editing = pi.edit('a.ts', 'b = 2', 'b = 3');
  const diff = await editor.waitForDiff('pi-edit:1');
  assert.equal(diff.args.new_file_contents, 'const a = 1;\nconst b = 3;\n');
  editor.decide(diff.tabName, 'saved');
  assert.equal((await editing).outcome, 'saved');
  assert.equal(await readFile(join(w.proj, 'a.ts'), 'utf8'), 'const a = 1;\nconst b = 3;\n');
  await assert.rejects(pi.edit('a.ts', 'missing', 'x'), /oldText not found/);
});

test('a turn waits for a slow editor\'s diagnostics and gets pi-ide.nvim\'s empty []', async (t) => {
  const w = await world(t);
  await w.editor({ diagnosticsDelayMs: 120 });
  const pi = await w.pi();
  const started = Date.now();
  const result = await pi.turn();
  assert.ok(Date.now() - started >= 110);
  assert.deepEqual(toolTexts(result), ['[]']);
});

test('suggestions are answered as plain strings, as pi-ide.nvim expects, and recorded with their model', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi({ suggestions: (p) => [`for ${(p as { filePath: string }).filePath}`] });
  await editor.waitForClients(1);
  const r = await editor.getSuggestions({ filePath: '/p/a.ts', cursorBefore: 'x', cursorAfter: '', suggestionCount: 1, model: 'fake/smart' });
  assert.deepEqual(r.result, { suggestions: ['for /p/a.ts'] });
  assert.equal((pi.suggestionRequests[0]!.params as { model: string }).model, 'fake/smart');
  const models = await editor.listSuggestionModels();
  assert.equal((models.result as { currentModel: string }).currentModel, 'fake/fast');
  assert.deepEqual(pi.modelRequests[0]!.params, []);
});

test('a cancelled getSuggestions is aborted and never answered', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi({ suggestionDelayMs: 5_000 });
  await editor.waitForClients(1);
  const { id, response } = editor.startRequest('getSuggestions', { cursorBefore: '', cursorAfter: '' });
  await waitFor(() => pi.suggestionRequests.length === 1);
  editor.cancel(id);
  await waitFor(() => pi.cancelled.includes(id));
  const settled = await Promise.race([response.then(() => 'answered'), new Promise((r) => setTimeout(r, 100, 'silent'))]);
  assert.equal(settled, 'silent');
  // The connection is fine: the next request is served.
  assert.ok((await withTimeout(editor.listSuggestionModels(), WAIT_MS, 'models')).result);
});

test('a pi session with no suggestions configured answers one plain-string suggestion', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  await w.pi();
  await editor.waitForClients(1);
  const r = await editor.getSuggestions({ cursorBefore: '', cursorAfter: '' });
  assert.deepEqual(r.result, { suggestions: ['fake suggestion'] });
});

test('selection_changed from pi-ide.nvim reaches every connected pi session, without a fileUrl', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const one = await w.pi();
  const two = await w.pi();
  await editor.waitForClients(2);
  const sent = editor.sendSelection({ filePath: '/p/a.ts', fileUrl: 'file:///p/a.ts', text: 'abc', start: { line: 1, character: 0 }, end: { line: 1, character: 3 } });
  assert.equal(sent, 2);
  const expected = {
    text: 'abc',
    filePath: '/p/a.ts',
    selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 3 }, isEmpty: false },
  };
  await waitFor(() => one.selections.length === 1 && two.selections.length === 1);
  assert.deepEqual(one.selections[0], expected);
  assert.deepEqual(two.selections[0], expected);
});

test('pi keeps what pi-ide keeps of a selection: file, cursor line, selected lines; a proposed buffer is named "<path> [pi-proposed]"', async (t) => {
  const w = await world(t);
  const editor = await w.editor();
  const pi = await w.pi();
  await editor.waitForClients(1);
  editor.sendSelection({ filePath: '/p/a.ts', text: 'ab\ncd', start: { line: 3, character: 1 }, end: { line: 4, character: 2 } });
  await waitFor(() => pi.editor?.filePath === '/p/a.ts', { message: 'the selection kept' });
  assert.deepEqual(pi.editor, { filePath: '/p/a.ts', cursorLine: 3, selection: { startLine: 3, endLine: 4, text: 'ab\ncd' } });
  editor.sendSelection({ filePath: '/p/a.ts', proposed: true, start: { line: 7, character: 0 } });
  await waitFor(() => pi.editor?.cursorLine === 7, { message: 'the cursor in the proposed buffer' });
  assert.deepEqual(pi.editor, { filePath: '/p/a.ts [pi-proposed]', cursorLine: 7, selection: null });
  // Without a filePath pi-ide ignores it: what it kept stays.
  editor.broadcast('selection_changed', { text: 'x' });
  editor.sendSelection({ filePath: '/p/b.ts' });
  await waitFor(() => pi.editor?.filePath === '/p/b.ts', { message: 'the next selection kept' });
  assert.equal(pi.selections.length, 4);
});

test('diagnostics reach the model as pi-ide reads them: errors and warnings only, one line each, positions one-based', async (t) => {
  const w = await world(t);
  const range = (line: number, character: number) => ({ start: { line, character }, end: { line, character: character + 1 } });
  await w.editor({
    diagnostics: {
      'file:///p/a.ts': [
        { message: 'boom', severity: 'Error', range: range(2, 4) },
        { message: 'careful', severity: 'Warning', range: range(0, 0) },
        { message: 'fyi', severity: 'Information', range: range(1, 0) },
        { message: 'hint', severity: 'Hint', range: range(1, 0) },
      ],
    },
  });
  const pi = await w.pi();
  assert.deepEqual(await pi.diagnosticsForModel(), ['file:///p/a.ts:3:5 [Error] boom', 'file:///p/a.ts:1:1 [Warning] careful']);
});

test('diagnostics pi-ide cannot read: a number as severity is not shown; a kept one without a range, or a value that is no list, fails the turn', async (t) => {
  const w = await world(t);
  const editor = await w.editor({ diagnostics: { 'file:///p/a.ts': [{ message: 'numbered', severity: 1, range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }] } });
  const pi = await w.pi();
  assert.deepEqual(await pi.diagnosticsForModel(), [], 'LSP numbers are not the names pi-ide looks for');
  editor.setDiagnostics({ 'file:///p/a.ts': [{ message: 'no range', severity: 'Error' }] });
  await assert.rejects(pi.diagnosticsForModel(), /no range/);
  editor.setDiagnostics({ 'file:///p/a.ts': 5 as never });
  await assert.rejects(pi.diagnosticsForModel(), /not iterable/);
});
