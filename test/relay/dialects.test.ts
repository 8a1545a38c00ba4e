import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { FakeEditor } from '../peers/fake-editor.ts';
import { waitFor } from '../peers/wait.ts';
import { startHarness, type Harness } from './harness.ts';

const diag = (message: string) => ({
  message,
  severity: 'Error',
  range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } },
});

/** Each test has its own hub, editors and agents: none depends on what another left behind. */
async function harness(t: TestContext, ...args: Parameters<typeof startHarness>): Promise<Harness> {
  const h = await startHarness(...args);
  t.after(() => h.close());
  return h;
}

async function bound(h: Harness, cwd: string) {
  return waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.find((s) => s.cwd === cwd && s.editorId !== null), {
    message: `a bound session in ${cwd}`,
  });
}

describe('Claude Code against pi-ide.nvim through Patchbay', () => {
  test('the tool list is clean for Claude and speaks its names; diagnostics and open editors are translated', async (t) => {
    const h = await harness(t);
    const project = await h.folder('claude-on-nvim');
    const editor = await h.editor({ workspaceFolders: [project] });
    editor.setDiagnostics({ [`file://${project}/a.ts`]: [diag('boom')] } as never);
    editor.setTabs([{ uri: `file://${project}/a.ts`, isActive: true, isDirty: false, languageId: 'typescript' }]);
    await h.editors(1);
    const claude = await h.claude(project);
    const session = await bound(h, project);
    assert.equal(session.kind, 'claude');
    // tools/list was asked before binding settled; ask again as Claude does after list_changed.
    const list = await claude.rpc.call('tools/list', {});
    const tools = (list.result as { tools: { name: string; inputSchema: { properties: unknown } }[] }).tools;
    assert.ok(tools.some((t) => t.name === 'getOpenEditors'));
    assert.ok(!tools.some((t) => t.name === 'getOpenEditorTabs'));
    for (const tool of tools) assert.ok(!Array.isArray(tool.inputSchema.properties), `${tool.name} has object properties`);

    assert.deepEqual(await claude.getDiagnostics(), [{ uri: `file://${project}/a.ts`, diagnostics: [diag('boom')] }]);
    const tabs = (await claude.getOpenEditors()) as { tabs: { uri: string; label: string }[] };
    assert.equal(tabs.tabs[0]!.label, 'a.ts');
    assert.ok(editor.calls('getOpenEditorTabs').length >= 1, 'the editor was asked by its own name');
  });

  test('closeAllDiffTabs at a prompt withdraws only this session’s diffs; a rejection is DIFF_REJECTED, never TAB_CLOSED', async (t) => {
    const h = await harness(t);
    const project = await h.folder('claude-on-nvim');
    await h.editor({ workspaceFolders: [project] });
    await h.editors(1);
    const editor = (await h.hub.call('snapshot', undefined)).editors[0]!;
    const claude = await h.claude(project);
    const other = await h.claude(project);
    await bound(h, project);
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.filter((s) => s.editorId === editor.id).length >= 2);

    const mine = claude.openDiff(join(project, 'mine.txt'), 'mine\n');
    const theirs = other.openDiff(join(project, 'theirs.txt'), 'theirs\n');
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.length === 2);
    const closed = (await claude.prompt()) as { content: { text: string }[] };
    assert.equal(closed.content[0]!.text, 'CLOSED_1_DIFF_TABS');
    assert.equal((await mine).outcome, 'rejected');
    const left = (await h.hub.call('snapshot', undefined)).diffs;
    assert.equal(left.length, 1);
    assert.match(left[0]!.path, /theirs\.txt$/);
    await h.hub.call('diffs.accept', { id: left[0]!.id });
    assert.equal((await theirs).outcome, 'accepted');
    assert.equal(await readFile(join(project, 'theirs.txt'), 'utf8'), 'theirs\n');
  });
});

describe('editor → agent traffic', () => {
  test('selection_changed reaches the sessions bound to that editor only', async (t) => {
    const h = await harness(t);
    const a = await h.folder('sel-a');
    const b = await h.folder('sel-b');
    const editorA = await h.editor({ workspaceFolders: [a], ideName: 'A' });
    const editorB = await h.editor({ workspaceFolders: [b], ideName: 'B' });
    await h.editors(2);
    const piA = await h.pi(a);
    const piB = await h.pi(b);
    await bound(h, a);
    await bound(h, b);
    // The session's own link to A may still be opening: select until the agent hears it.
    const got = await waitFor(() => {
      editorA.sendSelection({ filePath: join(a, 'x.ts'), text: 'hi' });
      return piA.selections[0];
    }, { intervalMs: 50, message: 'selection at the session bound to A' });
    assert.equal(got.text, 'hi');
    await waitFor(() => editorA.openClients.length === 1, { message: 'Patchbay keeps one link to A: the session’s, no spare monitor' });
    // The marker: B's own selection reaches piB after anything of A's would have.
    await waitFor(() => {
      editorB.sendSelection({ filePath: join(b, 'y.ts'), text: 'from B' });
      return piB.selections.length > 0;
    }, { intervalMs: 50, message: 'selection at the session bound to B' });
    assert.ok(piB.selections.every((sel) => sel.text === 'from B'), 'nothing of A reached the session bound to B');
    const snap = await h.hub.call('snapshot', undefined);
    assert.ok(snap.editors.find((e) => e.ideName === 'A')!.focusedAt !== null, 'focus recorded');
  });

  test('getSuggestions from the editor reaches the bound pi session with the chosen model; cancel follows the id', async (t) => {
    const h = await harness(t, {}, { suggestionModel: 'fake/smart' });
    const folder = await h.folder('suggest');
    const editor = await h.editor({ workspaceFolders: [folder], ideName: 'S' });
    await h.editors(1);
    const pi = await h.pi(folder, { suggestionDelayMs: 5000 });
    const session = await bound(h, folder);
    await waitFor(async () => (await h.hub.call('models.list', { sessionId: session.id }))[0]!.models.length === 2, {
      message: 'Patchbay asked the session for its models',
    });

    // The editor may pick any of its clients (Patchbay's monitor included): it still reaches pi.
    const started = editor.startRequest('getSuggestions', { cursorBefore: 'let x = ', cursorAfter: '', suggestionCount: 1 });
    await waitFor(() => pi.suggestionRequests.length === 1, { message: 'getSuggestions at pi' });
    assert.equal((pi.suggestionRequests[0]!.params as { model?: string }).model, 'fake/smart');
    editor.cancel(started.id);
    await waitFor(() => pi.cancelled.length === 1, { message: 'request_cancelled at pi' });
    assert.equal(pi.cancelled[0], pi.suggestionRequests[0]!.id);

    const models = await editor.listSuggestionModels();
    assert.equal((models.result as { models: unknown[] }).models.length, 2);
  });

  test("suggestions follow the folder: a pi in the editor's folder bound to Patchbay's review still gets its editor's getSuggestions", async (t) => {
    const h = await harness(t);
    const folder = await h.folder('suggest-unbound');
    const editor = await h.editor({ workspaceFolders: [folder], ideName: 'U' });
    await h.editors(1);
    const pi = await h.pi(folder);
    const session = await bound(h, folder);
    await h.hub.call('bind', { sessionId: session.id, editorId: null });
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions[0]!.editorId === null, { message: 'bound to Patchbay' });
    await waitFor(() => editor.openClients.length >= 1);
    const response = await editor.getSuggestions({ filePath: `${folder}/a.ts`, cursorBefore: 'let x = ', cursorAfter: '' });
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    assert.equal(pi.suggestionRequests.length, 1);
  });

  test('getSuggestions with no pi session bound gets an error, not silence', async (t) => {
    const h = await harness(t);
    const folder = await h.folder('nobody');
    const editor = await h.editor({ workspaceFolders: [folder], ideName: 'N' });
    await h.editors(1);
    await waitFor(() => editor.openClients.length >= 1);
    const response = await editor.getSuggestions({ cursorBefore: '', cursorAfter: '' });
    assert.ok(response.error, 'an error answer');
  });
});

describe('a slow editor and a vanishing agent', () => {
  test('getDiagnostics past the deadline is answered empty before the editor answers; the late answer is dropped', async (t) => {
    const h = await harness(t, {}, { diagnosticsDeadlineMs: 150 });
    const folder = await h.folder('slow');
    const editor = await h.editor({ workspaceFolders: [folder], diagnosticsDelayMs: 600 });
    // Were the editor's answer passed on, the agent would see this, not an empty map.
    editor.setDiagnostics({ [`file://${folder}/a.ts`]: [diag('late')] } as never);
    await h.editors(1);
    const pi = await h.pi(folder);
    const session = await bound(h, folder);
    const result = (await pi.turn()) as { content: { text: string }[] };
    assert.deepEqual(JSON.parse(result.content[0]!.text), {});
    // The marker: the editor's late answer has reached Patchbay (the traffic log shows it).
    const traffic = () => h.hub.call('traffic', { sessionId: session.id });
    const late = await waitFor(async () => (await traffic()).find((e) => e.dir === 'down' && e.preview.includes('late')), {
      message: "the editor's late answer",
    });
    const answered = (await traffic()).filter((e) => e.dir === 'out' && e.preview.includes('"content"'));
    assert.equal(answered.length, 1, 'the agent got one answer only');
    assert.ok(answered[0]!.at <= late.at, 'the agent was answered before the editor answered');
    assert.equal(pi.errors.length, 0);
  });

  test('an agent that disconnects mid-diff has its diff withdrawn and the editor tab closed', async (t) => {
    const h = await harness(t);
    const folder = await h.folder('slow');
    const slowEditor = await h.editor({ workspaceFolders: [folder], diagnosticsDelayMs: 600 });
    await h.editors(1);
    const editor = (await h.hub.call('snapshot', undefined)).editors[0]!;
    const pi = await h.pi(folder);
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.find((s) => s.editorId === editor.id && s.cwd === folder));
    void pi.write(join(folder, 'gone.txt'), 'x').catch(() => {});
    const diff = await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.find((d) => d.inEditor));
    await slowEditor.waitForDiff(diff.tabName);
    pi.kill();
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.length === 0, { message: 'diff withdrawn' });
    // Like pi-ide.nvim, the editor keeps a gone client's tab open: Patchbay closes it.
    await waitFor(() => !slowEditor.diffs.has(diff.tabName), { message: 'the editor tab closed by Patchbay' });
    assert.ok(slowEditor.closedDiffs.some((c) => c.tabName === diff.tabName && c.reason === 'close_tab'));
    const record = (await h.hub.call('snapshot', undefined)).history.find((r) => r.id === diff.id)!;
    assert.equal(record.outcome, 'withdrawn');
  });

  test('stopping Patchbay with a diff pending answers the agent DIFF_REJECTED first', async (t) => {
    const h = await harness(t);
    const folder = await h.folder('stop');
    const pi = await h.pi(folder);
    const writing = pi.write(join(folder, 'stop.txt'), 'x');
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.length === 1);
    await h.hub.close('test stop');
    assert.equal((await writing).outcome, 'rejected');
  });
});

describe('pi against a Claude-dialect editor (VS Code-like) through Patchbay', () => {
  test('the editor is found in Claude’s lock dir; its diagnostics array reaches pi as a map, and its diffs work', async (t) => {
    const h = await harness(t);
    const project = await h.folder('vscode');
    const code = await h.editor({ workspaceFolders: [project], dialect: 'claude' });
    code.setDiagnostics({ [`file://${project}/b.ts`]: [diag('from vscode')] } as never);
    await h.editors(1);
    const listed = (await h.hub.call('snapshot', undefined)).editors[0]!;
    assert.equal(listed.dialect, 'claude');
    const pi = await h.pi(project);
    await bound(h, project);
    // Patchbay speaks to the editor in its own dialect: the Claude header, which it requires.
    await waitFor(() => code.clients.some((c) => c.authHeader === 'x-claude-code-ide-authorization'));

    const result = (await pi.turn()) as { content: { text: string }[] };
    assert.deepEqual(JSON.parse(result.content[0]!.text), { [`file://${project}/b.ts`]: [diag('from vscode')] });

    const file = join(project, 'c.txt');
    const writing = pi.write(file, 'from pi\n');
    const open = await code.waitForDiff();
    code.decide(open.tabName, 'saved');
    assert.equal((await writing).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), 'from pi\n');
  });
});

describe('an older claudecode.nvim (before June 2026)', () => {
  test('its diagnostics, one text item each with numeric severities, reach pi as a map pi-ide reads; none at all as an empty map', async (t) => {
    const h = await harness(t);
    const project = await h.folder('old-nvim');
    const nvim = await h.editor({ workspaceFolders: [project], claudecode: true, legacyDiagnostics: true });
    await h.editors(1);
    const pi = await h.pi(project);
    await bound(h, project);

    const empty = (await pi.turn()) as { content: { text: string }[] };
    assert.deepEqual(JSON.parse(empty.content[0]!.text), {});

    const at = (line: number, character: number) => ({ start: { line, character }, end: { line, character } });
    nvim.setDiagnostics({
      [`file://${project}/a.lua`]: [
        { message: 'undefined global', severity: 1, source: 'lua_ls', range: at(4, 2) },
        { message: 'unused local', severity: 2, source: 'lua_ls', range: at(9, 0) },
      ],
      [`file://${project}/b.lua`]: [{ message: 'a hint', severity: 4, source: 'lua_ls', range: at(0, 0) }],
    });
    const result = (await pi.turn()) as { content: { text: string }[] };
    assert.deepEqual(JSON.parse(result.content[0]!.text), {
      [`file://${project}/a.lua`]: [
        { message: 'undefined global', severity: 'Error', source: 'lua_ls', range: at(4, 2) },
        { message: 'unused local', severity: 'Warning', source: 'lua_ls', range: at(9, 0) },
      ],
      [`file://${project}/b.lua`]: [{ message: 'a hint', severity: 'Hint', source: 'lua_ls', range: at(0, 0) }],
    });
  });
});

describe('selections across dialects', () => {
  test('Claude Code bound to pi-ide.nvim hears a selection in pi-ide.nvim’s proposed buffer as VS Code would send it', async (t) => {
    const h = await harness(t);
    const project = await h.folder('claude-sel');
    const editor = await h.editor({ workspaceFolders: [project] });
    await h.editors(1);
    const claude = await h.claude(project);
    await bound(h, project);
    const file = join(project, 'my file.ts');
    await waitFor(() => {
      editor.sendSelection({ filePath: file, text: 'y' });
      return claude.selections.length > 0;
    }, { intervalMs: 50, message: 'a selection at Claude Code' });
    assert.equal((claude.selections[0] as { fileUrl: string }).fileUrl, `file://${project.split('/').map(encodeURIComponent).join('/')}/my%20file.ts`);
    const seen = claude.selections.length;
    editor.sendSelection({ filePath: file, proposed: true, start: { line: 5, character: 0 } });
    await waitFor(() => claude.selections.length > seen, { message: 'the proposed-side selection at Claude Code' });
    const last = claude.selections.at(-1) as { filePath: string; fileUrl: string; selection: { start: { line: number } } };
    assert.deepEqual([last.filePath, last.fileUrl, last.selection.start.line], [file, `_claude_fs_right:${file}`, 5]);
  });
});
