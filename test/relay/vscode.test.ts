// pi and Claude Code → Patchbay → VS Code (the double of Anthropic's Claude Code extension): its
// port is held by a child of the lockfile's pid, its windows share that pid, and it serves one
// client at a time. Patchbay keeps one link per window for everything, and every diff decided,
// wherever, ends closed in VS Code.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import WebSocket from 'ws';
import type { Snapshot } from '../../src/api/types.ts';
import { formatStatus } from '../../src/cli/format.ts';
import type { FakeEditor } from '../peers/fake-editor.ts';
import { listLockfiles, writeLockfile } from '../peers/lockfiles.ts';
import type { FakePiClient } from '../peers/fake-pi.ts';
import { diffAnswers, openSocket, RpcPeer, toolTexts } from '../peers/rpc-peer.ts';
import { spawnPeer } from '../peers/spawn.ts';
import { waitFor } from '../peers/wait.ts';
import { startHarness, type Harness } from './harness.ts';

interface Setup {
  h: Harness;
  project: string;
  code: FakeEditor;
}

async function vscodeWindow(t: TestContext, settings: Record<string, unknown> = {}): Promise<Setup> {
  const h = await startHarness({}, settings);
  t.after(() => h.close());
  const project = await h.folder('app');
  const code = await h.editor({ workspaceFolders: [project], vscode: true });
  await h.editors(1);
  return { h, project, code };
}

function snapshot(h: Harness): Promise<Snapshot> {
  return h.hub.call('snapshot', undefined);
}

async function boundPi(h: Harness, cwd: string): Promise<FakePiClient> {
  const pi = await h.pi(cwd);
  await waitFor(async () => (await snapshot(h)).sessions.some((s) => s.cwd === cwd && s.editorId !== null && s.clientName !== null), {
    message: `pi in ${cwd} bound to an editor`,
  });
  return pi;
}

function nothingLeftOpen(code: FakeEditor): Promise<void> {
  return code.waitForNoDiffs();
}

// ── 1. ownership ─────────────────────────────────────────────────────────────────────────

test('a VS Code window is listed live: its port is held by a child of the pid in its lockfile', async (t) => {
  const { h, code } = await vscodeWindow(t);
  const snap = await snapshot(h);
  assert.equal(snap.editors.length, 1);
  assert.equal(snap.editors[0]!.pid, process.pid);
  assert.equal(snap.editors[0]!.port, code.port);
  assert.deepEqual(snap.invalidLockfiles, []);
});

test('an editor’s token is never sent to a port that its process (or a child of it) does not hold', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  // A live process of ours that is no ancestor of the listener (this test process).
  const stranger = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  t.after(() => stranger.kill('SIGKILL'));
  const project = await h.folder('app');
  const editor = await h.editor({ workspaceFolders: [project], pid: stranger.pid! });
  const listed = await waitFor(async () => (await snapshot(h)).invalidLockfiles.find((bad) => bad.path.endsWith(`${editor.port}.lock`)), {
    message: 'the lockfile listed as refused',
  });
  assert.match(listed.reason, new RegExp(`pid ${stranger.pid}`));
  assert.equal((await snapshot(h)).editors.length, 0);
  assert.equal(editor.clients.length, 0, 'no connection carried its token');
  assert.equal(editor.refused.length, 0, 'no upgrade was even tried');
});

// ── 2. one link per editor ───────────────────────────────────────────────────────────────

test('two pi sessions and Patchbay’s own watch share one connection to a VS Code window; each pi gets its own answers', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const [a, b] = [await boundPi(h, project), await boundPi(h, project)];
  // Both ask at once with the same request ids: the window sees them apart, each pi gets its answer.
  const [da, db] = await Promise.all([a.turn(), b.turn()]);
  assert.deepEqual(toolTexts(da), ['{}']);
  assert.deepEqual(toolTexts(db), ['{}']);
  const writingA = a.write(join(project, 'a.txt'), 'from a\n');
  const writingB = b.write(join(project, 'b.txt'), 'from b\n');
  await waitFor(() => code.pendingDiffs.length === 2, { message: 'both diffs in VS Code' });
  const byPath = (name: string) => code.pendingDiffs.find((d) => d.args.new_file_path.endsWith(name))!.tabName;
  code.decide(byPath('b.txt'), 'saved', 'b, edited\n');
  code.decide(byPath('a.txt'), 'rejected');
  assert.equal((await writingA).outcome, 'rejected');
  assert.equal((await writingB).outcome, 'saved');
  assert.equal(await readFile(join(project, 'b.txt'), 'utf8'), 'b, edited\n');
  await nothingLeftOpen(code);
  // Beside the one probe of its new lockfile (no initialize), one link did everything.
  const links = code.clients.filter((c) => code.received.some((r) => r.client === c && r.msg.method === 'initialize'));
  assert.equal(links.length, 1, 'one connection, opened once');
  assert.ok(code.clients.length <= 2);
  assert.deepEqual([a.errors, b.errors], [[], []]);
});

test('a link taken over by another client is not taken back in a loop: Patchbay says so once and shows it', async (t) => {
  const { h, code } = await vscodeWindow(t);
  await code.waitForClients(1);
  const ws = await openSocket(`ws://127.0.0.1:${code.port}`, { 'x-claude-code-ide-authorization': code.authToken }, ['mcp']);
  const other = new RpcPeer(ws, {});
  t.after(() => other.close());
  const view = await waitFor(async () => (await snapshot(h)).editors.find((e) => e.link === 'taken'), {
    message: 'the editor shown as taken by another client',
  });
  assert.match(view.linkProblem ?? '', /another client/);
  assert.match(formatStatus(await snapshot(h), '127.0.0.1'), /another client/);
  // The other client keeps the window: Patchbay waits for a reason to connect (a diff to show).
  await new Promise((resolve) => setTimeout(resolve, 1000));
  assert.ok(other.isOpen, 'the other client still has the window');
  assert.equal(code.clients.filter((c) => c.closeCode === null).length, 1);
  const clients = code.clients.length;
  await new Promise((resolve) => setTimeout(resolve, 500));
  assert.equal(code.clients.length, clients, 'Patchbay did not connect again');
  assert.equal(h.logs.filter((line) => /another client/.test(line)).length, 1, 'said once');
});

// ── 3. windows ───────────────────────────────────────────────────────────────────────────

test('two windows of one VS Code are two editors, each serving the pi in its own folder', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const [app, lib] = [await h.folder('app'), await h.folder('lib')];
  const appWindow = await h.editor({ workspaceFolders: [app], vscode: true });
  const libWindow = await h.editor({ workspaceFolders: [lib], vscode: true });
  await h.editors(2);
  const snap = await snapshot(h);
  assert.equal(new Set(snap.editors.map((e) => e.pid)).size, 1, 'one pid');
  assert.ok(snap.editors.every((e) => !e.id.includes('~')), 'told apart by folder, not by port');
  const status = formatStatus(snap, '127.0.0.1');
  assert.match(status, /Visual Studio Code · app/);
  assert.match(status, /Visual Studio Code · lib/);

  const [piApp, piLib] = [await boundPi(h, app), await boundPi(h, lib)];
  const writingApp = piApp.write(join(app, 'x.txt'), 'app\n');
  const writingLib = piLib.write(join(lib, 'x.txt'), 'lib\n');
  const inApp = await appWindow.waitForDiff();
  const inLib = await libWindow.waitForDiff();
  assert.equal(inApp.args.new_file_contents, 'app\n');
  assert.equal(inLib.args.new_file_contents, 'lib\n');
  appWindow.decide(inApp.tabName, 'saved');
  libWindow.decide(inLib.tabName, 'saved');
  assert.equal((await writingApp).outcome, 'saved');
  assert.equal((await writingLib).outcome, 'saved');
  await nothingLeftOpen(appWindow);
  await nothingLeftOpen(libWindow);
});

// ── 4. decided diffs close in VS Code ────────────────────────────────────────────────────

test('pi → VS Code, accepted with edits there: pi gets the edited file and the tab closes once', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const file = join(project, 'accept.txt');
  const writing = pi.write(file, 'from pi\n');
  const shown = await code.waitForDiff();
  code.decide(shown.tabName, 'saved', 'from pi, edited\n');
  assert.equal((await writing).outcome, 'saved');
  assert.deepEqual(diffAnswers(pi.rpc.received), [['FILE_SAVED', 'from pi, edited\n']]);
  assert.equal(await readFile(file, 'utf8'), 'from pi, edited\n');
  await nothingLeftOpen(code);
  assert.equal(code.calls('close_tab').length, 1);
  assert.deepEqual(pi.errors, []);
});

test('pi → VS Code, rejected there or its tab closed: pi hears DIFF_REJECTED and nothing stays open', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const rejecting = pi.write(join(project, 'r.txt'), 'no\n');
  code.decide((await code.waitForDiff()).tabName, 'rejected');
  assert.equal((await rejecting).outcome, 'rejected');
  const closing = pi.write(join(project, 'c.txt'), 'closed\n');
  code.closeTab((await code.waitForDiff()).tabName);
  assert.equal((await closing).outcome, 'rejected');
  await nothingLeftOpen(code);
  assert.deepEqual(diffAnswers(pi.rpc.received).map((a) => a[0]), ['DIFF_REJECTED', 'DIFF_REJECTED']);
});

test('pi → VS Code, rejected in Patchbay: the tab closes in VS Code, and VS Code saving the edit in it as it closes changes nothing', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const writing = pi.write(join(project, 'p.txt'), 'proposed\n');
  const shown = await code.waitForDiff();
  code.editProposed(shown.tabName, 'proposed, half edited\n');
  const diff = (await snapshot(h)).diffs[0]!;
  await h.hub.call('diffs.reject', { id: diff.id });
  assert.equal((await writing).outcome, 'rejected');
  await nothingLeftOpen(code);
  assert.deepEqual(
    code.closedDiffs.map((c) => [c.tabName, c.reason]),
    [[shown.tabName, 'close_tab']],
  );
  assert.deepEqual(diffAnswers(pi.rpc.received).map((a) => a[0]), ['DIFF_REJECTED']);
  const record = (await snapshot(h)).history.find((r) => r.id === diff.id)!;
  assert.deepEqual([record.outcome, record.by], ['rejected', 'patchbay']);
  // VS Code's FILE_SAVED for the tab it saved as it closed came after Patchbay had decided: expected, not a problem.
  const session = (await snapshot(h)).sessions[0]!;
  await waitFor(async () => (await h.hub.call('traffic', { sessionId: session.id })).some((e) => e.dir === 'down' && /FILE_SAVED/.test(e.preview)), {
    message: 'the late FILE_SAVED in the session’s traffic log',
  });
  assert.deepEqual(h.logs.filter((line) => /unknown id/.test(line)), []);
});

test('a daemon stop rejects the diff waiting in VS Code and closes its tab before the link goes', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const writing = pi.write(join(project, 's.txt'), 'pending\n');
  await code.waitForDiff();
  await h.hub.close();
  assert.equal((await writing).outcome, 'rejected');
  assert.equal(code.diffs.size, 0, 'closed before Patchbay let go of the window');
});

test('Claude Code and pi share a VS Code window: a pi diff does not make VS Code accept Claude’s, and Claude’s close_tab reaches it once', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const claude = await h.claude(project);
  await waitFor(async () => (await snapshot(h)).sessions.filter((s) => s.editorId !== null).length === 2, { message: 'Claude Code bound too' });
  const proposing = claude.openDiff(join(project, 'claude.txt'), 'claude\n');
  const claudeTab = (await code.waitForDiff()).tabName;
  const writing = pi.write(join(project, 'pi.txt'), 'pi\n');
  await waitFor(() => code.pendingDiffs.length === 2, { message: () => `both diffs pending in VS Code (open: ${[...code.diffs.keys()].join(', ')})` });
  assert.equal((await snapshot(h)).diffs.length, 2, 'Claude’s diff still waits for the person');

  code.decide(claudeTab, 'saved');
  const outcome = await proposing;
  assert.equal(outcome.outcome, 'accepted');
  await waitFor(() => claude.rpc.received.filter((m) => m.result !== undefined && toolTexts(m.result)[0] === 'TAB_CLOSED').length === 2, {
    message: "Claude's two close_tab answered",
  });
  await waitFor(() => !code.diffs.has(claudeTab), { message: 'Claude’s tab closed' });
  assert.equal(code.calls('close_tab').filter((c) => c.args.tab_name === claudeTab).length, 1);
  code.decide([...code.diffs.keys()][0]!, 'saved');
  assert.equal((await writing).outcome, 'saved');
  await nothingLeftOpen(code);
  assert.deepEqual(claude.errors, []);
});

test('a bad token in a VS Code lockfile is listed, and found without disturbing the window’s client', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const project = await h.folder('app');
  const code = await h.editor({ workspaceFolders: [project], vscode: true, authToken: 'right', writeLockfile: false });
  const ws = new WebSocket(`ws://127.0.0.1:${code.port}`, { headers: { 'x-claude-code-ide-authorization': 'right' } });
  await once(ws, 'open');
  t.after(() => ws.terminate());
  await writeLockfile(h.options.claudeLockDir, code.port, {
    pid: process.pid,
    workspaceFolders: [project],
    ideName: 'Visual Studio Code',
    transport: 'ws',
    runningInWindows: false,
    authToken: 'wrong',
  });
  const listed = await waitFor(async () => (await snapshot(h)).invalidLockfiles.find((bad) => bad.path.endsWith(`${code.port}.lock`)), {
    message: 'the lockfile listed with its bad token',
  });
  assert.match(listed.reason, /token/);
  assert.equal(ws.readyState, WebSocket.OPEN, 'the window’s client keeps its connection');
});

// ── 5. Claude Code keeps VS Code ─────────────────────────────────────────────────────────
// Patchbay runs in this process here, so a VS Code double in it names this process's parent as
// its pid (an ancestor of its port's listener, as VS Code's main process is of its extension host).

const VSCODE_PID = process.ppid;

test('Claude Code run in a VS Code window’s terminal finds Patchbay, is bound to that window, and its diff opens there', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const project = await h.folder('app');
  const code = await h.editor({ workspaceFolders: [project], vscode: true, pid: VSCODE_PID });
  await h.editors(1);
  // Without Patchbay's door naming VS Code's pid, Claude Code there trusts no lockfile (the window's own is taken over).
  const door = await waitFor(async () => (await listLockfiles(h.options.claudeLockDir)).found.find((f) => f.lock.pid === VSCODE_PID), {
    message: 'the door lockfile naming VS Code',
  });
  assert.equal(door.port, h.hub.doorPort);
  // The extension sets CLAUDE_CODE_SSE_PORT in its terminals; its lockfile is taken over, so none has that port.
  const terminal = { ideTerminal: { ssePort: code.port, ancestors: [VSCODE_PID] }, ancestors: [VSCODE_PID] };
  const claude = await h.claudeByLockfile(project, terminal);
  assert.equal(claude.port, h.hub.doorPort);
  const session = await waitFor(async () => (await snapshot(h)).sessions.find((s) => s.kind === 'claude' && s.editorId !== null), { message: 'Claude Code bound' });
  const window = (await snapshot(h)).editors[0]!.id;
  assert.deepEqual([session.editorId, session.reason], [window, 'terminal']);
  // Sent to Patchbay by hand, "Automatic" still names the window the rules (its terminal) pick.
  const moved = await h.hub.call('bind', { sessionId: session.id, editorId: null });
  assert.deepEqual([moved.editorId, moved.reason, moved.automaticEditorId], [null, 'manual', window]);
  await h.hub.call('unpin', { sessionId: session.id });
  const proposing = claude.openDiff(join(project, 'c.txt'), 'from claude\n');
  const shown = await code.waitForDiff();
  code.decide(shown.tabName, 'saved');
  assert.equal((await proposing).outcome, 'accepted');
  assert.equal(await readFile(join(project, 'c.txt'), 'utf8'), 'from claude\n');
  await nothingLeftOpen(code);
});

test('two VS Code apps: Claude Code in each one’s terminal gets in (one through a door of its own) and is bound to its window; in a plain terminal it finds exactly one door', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const [app, lib] = [await h.folder('app'), await h.folder('lib')];
  const here = await h.editor({ workspaceFolders: [app], vscode: true, pid: VSCODE_PID });
  const other = await spawnPeer('editor', ['--lock-dir', h.options.claudeLockDir, '--folder', lib, '--vscode', '--quiet']);
  t.after(() => other.stop());
  await h.editors(2);
  const doors = await waitFor(async () => {
    const { found } = await listLockfiles(h.options.claudeLockDir);
    return found.length === 2 ? found : undefined;
  }, { message: 'two door lockfiles in the Claude dir' });
  assert.deepEqual(new Set(doors.map((d) => d.lock.pid)), new Set([VSCODE_PID, other.ready.pid]), 'one naming each VS Code');
  assert.ok(doors.every((d) => d.lock.ideName === 'Patchbay'));
  assert.ok(doors.some((d) => d.port === h.hub.doorPort), 'one of them the main door');

  const inHere = await h.claudeByLockfile(app, { ideTerminal: { ancestors: [VSCODE_PID] }, ancestors: [VSCODE_PID] });
  const inOther = await h.claudeByLockfile(lib, { ideTerminal: { ancestors: [other.ready.pid] }, ancestors: [other.ready.pid] });
  assert.notEqual(inHere.port, inOther.port);
  const plain = await h.claudeByLockfile(lib);
  assert.equal(plain.port, inOther.port, 'outside an IDE terminal: the one door carrying its folder');
  const snap = await waitFor(async () => {
    const s = await snapshot(h);
    return s.sessions.filter((x) => x.editorId !== null).length === 3 ? s : undefined;
  }, { message: 'three Claude Code sessions bound' });
  const windowOf = (folder: string) => snap.editors.find((e) => e.workspaceFolders.includes(folder))!.id;
  const byCwd = (folder: string) => snap.sessions.filter((s) => s.cwd === folder).map((s) => `${s.editorId} ${s.reason}`).sort();
  assert.deepEqual(byCwd(app), [`${windowOf(app)} terminal`]);
  assert.deepEqual(byCwd(lib), [`${windowOf(lib)} cwd`, `${windowOf(lib)} terminal`]);

  const proposing = inOther.openDiff(join(lib, 'l.txt'), 'lib\n');
  const shown = (await other.waitForLine((l) => l.event === 'diff')) as { tabName: string };
  await other.command({ cmd: 'decide', tabName: shown.tabName, outcome: 'save' });
  assert.equal((await proposing).outcome, 'accepted');
  assert.equal(here.diffs.size, 0);
});

test('with takeover off the door names no editor: Claude Code in a VS Code terminal sees the window’s own lockfile, as without Patchbay', async (t) => {
  const h = await startHarness({}, { takeover: false });
  t.after(() => h.close());
  const project = await h.folder('app');
  const code = await h.editor({ workspaceFolders: [project], vscode: true, pid: VSCODE_PID });
  await h.editors(1);
  const { found } = await waitFor(async () => {
    const listing = await listLockfiles(h.options.claudeLockDir);
    return listing.found.some((f) => f.lock.ideName === 'Patchbay') ? listing : undefined;
  }, { message: 'the door lockfile' });
  assert.equal(found.find((f) => f.lock.ideName === 'Patchbay')!.lock.pid, process.pid);
  const claude = await h.claudeByLockfile(project, { ideTerminal: { ancestors: [VSCODE_PID] } });
  assert.equal(claude.port, code.port);
});

// ── 6. selection and diagnostics reach the agents ───────────────────────────────────────

/** Sends selections until the agent has heard one (its session's link may still be opening). */
async function selectUntilHeard(code: FakeEditor, heard: () => boolean, input: Parameters<FakeEditor['sendSelection']>[0]): Promise<void> {
  await waitFor(() => {
    code.sendSelection(input);
    return heard();
  }, { intervalMs: 50, message: `selection of ${input.filePath} heard` });
}

test('VS Code’s diagnostics and selection reach pi as pi-ide reads them, a diff’s proposed side named as pi-ide.nvim names it', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const uri = `file://${project}/a.ts`;
  const range = (line: number, character: number) => ({ start: { line, character }, end: { line, character: character + 2 } });
  // LSP numbers: the double sends them by VS Code's names ("Error", "Warning", "Information"), pretty-printed, as an array.
  code.setDiagnostics({ [uri]: [{ message: 'boom', severity: 1, range: range(2, 4) }, { message: 'careful', severity: 2, range: range(0, 0) }, { message: 'fyi', severity: 3, range: range(1, 0) }] });
  const pi = await boundPi(h, project);
  assert.deepEqual(await pi.diagnosticsForModel(), [`${uri}:3:5 [Error] boom`, `${uri}:1:1 [Warning] careful`]);

  const file = join(project, 'a.ts');
  await selectUntilHeard(code, () => pi.editor !== null, { filePath: file, text: 'const', start: { line: 4, character: 0 }, end: { line: 4, character: 5 } });
  assert.deepEqual(pi.editor, { filePath: file, cursorLine: 4, selection: { startLine: 4, endLine: 4, text: 'const' } });
  assert.ok(pi.selections.every((sel) => sel.fileUrl === undefined), 'no fileUrl: pi-ide.nvim sends none');
  code.sendSelection({ filePath: file, proposed: true, start: { line: 9, character: 2 } });
  await waitFor(() => pi.editor?.cursorLine === 9, { message: 'the cursor in the proposed side, at pi' });
  assert.deepEqual(pi.editor, { filePath: `${file} [pi-proposed]`, cursorLine: 9, selection: null });
});

test('Claude Code in a VS Code window gets its selection and at_mentioned as the extension sent them, beside a pi', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const claude = await h.claude(project);
  await waitFor(async () => (await snapshot(h)).sessions.filter((s) => s.editorId !== null).length === 2, { message: 'Claude Code bound too' });
  const file = join(project, 'a.ts');
  await selectUntilHeard(code, () => claude.selections.length > 0 && pi.editor !== null, { filePath: file, proposed: true, text: 'x', start: { line: 1, character: 0 }, end: { line: 1, character: 1 } });
  assert.deepEqual(claude.selections.at(-1), {
    text: 'x',
    filePath: file,
    fileUrl: `_claude_fs_right:${file}`,
    selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 }, isEmpty: false },
  });
  assert.equal(pi.editor!.filePath, `${file} [pi-proposed]`);
  assert.equal(code.sendAtMentioned({ filePath: file, lineStart: 3, lineEnd: 7 }), 1, 'one link carries it');
  await waitFor(() => claude.atMentions.length === 1, { message: 'at_mentioned at Claude Code' });
  assert.deepEqual(claude.atMentions[0], { filePath: file, lineStart: 3, lineEnd: 7 });
  // pi-ide reads no at_mentioned; it reached pi unchanged and changed nothing there.
  await waitFor(() => pi.received.some((m) => m.method === 'at_mentioned'), { message: 'at_mentioned passed to pi too' });
  assert.equal(pi.editor!.filePath, `${file} [pi-proposed]`);
  assert.deepEqual([pi.errors, claude.errors], [[], []]);
});

// ── 5. the extension a person installs today (2.1.327 and later) beside 1.0.100 ────────────

test('a pi session bound to today’s VS Code extension (no getOpenEditors) hears of no open tab, not an error; bound to 1.0.100 it gets the window’s tabs', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const [today, old] = [await h.folder('today'), await h.folder('old')];
  const tabs = [{ uri: 'file:///w/a.ts', isActive: true, label: 'a.ts' }];
  const current = await h.editor({ workspaceFolders: [today], vscode: true, tabs });
  const legacy = await h.editor({ workspaceFolders: [old], vscode: true, vscodeVersion: '1.0.100', tabs });
  await h.editors(2);
  assert.deepEqual(current.tools.map((tool) => String(tool.name)).filter((n) => ['openFile', 'saveDocument', 'getOpenEditors'].includes(n)), []);
  const openTabs = async (cwd: string) => {
    const pi = await boundPi(h, cwd);
    // The tools are listed once the link has them.
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).editors.every((e) => e.alive));
    await waitFor(() => (cwd === today ? current : legacy).received.some((r) => r.msg.method === 'tools/list'), { message: 'the window’s tools listed' });
    return pi.rpc.call('tools/call', { name: 'getOpenEditorTabs', arguments: {} });
  };
  const none = await openTabs(today);
  assert.equal(none.error, undefined, JSON.stringify(none.error));
  assert.deepEqual(JSON.parse(toolTexts(none.result)[0]!), [], 'no tab known: the extension has no such tool');
  assert.equal(current.calls('getOpenEditors').length, 0, 'not asked for a tool it does not have');
  const some = await openTabs(old);
  assert.deepEqual((JSON.parse(toolTexts(some.result)[0]!) as { uri: string }[]).map((tab) => tab.uri), ['file:///w/a.ts']);
});

test('Claude Code bound to today’s VS Code extension lists its nine tools, bound to 1.0.100 the twelve', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const [today, old] = [await h.folder('today'), await h.folder('old')];
  await h.editor({ workspaceFolders: [today], vscode: true });
  await h.editor({ workspaceFolders: [old], vscode: true, vscodeVersion: '1.0.100' });
  await h.editors(2);
  const listed = async (cwd: string) => {
    const claude = await h.claude(cwd);
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.some((s) => s.cwd === cwd && s.editorId !== null), { message: `Claude in ${cwd} bound` });
    const list = await claude.rpc.call('tools/list', {});
    return ((list.result as { tools: { name: string }[] }).tools ?? []).map((tool) => tool.name).sort();
  };
  const now = await listed(today);
  assert.equal(now.length, 9);
  assert.ok(!now.includes('openFile') && !now.includes('saveDocument') && !now.includes('getOpenEditors'), now.join(', '));
  assert.equal((await listed(old)).length, 12);
});

test('the person reverts one of three changes in today’s VS Code and accepts: pi writes the rest, the decision says 2 of 3, and pi is told which change it did not get', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const file = join(project, 'three.txt');
  await writeFile(file, 'one\ntwo\nthree\nfour\nfive\n');
  const writing = pi.write(file, 'ONE\ntwo\nTHREE\nfour\nFIVE\n');
  const shown = await code.waitForDiff();
  // Listed once its original is read (a person takes longer than that to decide).
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.length === 1);
  code.revertChange(shown.tabName, 2);
  code.decide(shown.tabName, 'saved');
  assert.equal((await writing).outcome, 'saved');
  assert.equal(await readFile(file, 'utf8'), 'ONE\ntwo\nthree\nfour\nFIVE\n');
  const record = (await h.hub.call('snapshot', undefined)).history[0]!;
  assert.deepEqual([record.by, record.edited, record.changes], ['editor', false, { total: 3, accepted: [1, 3], rejected: [2] }]);
  // pi-ide lets the model read only the diagnostics: the words go into the next turn's.
  const lines = await pi.diagnosticsForModel();
  assert.ok(lines.some((line) => line.includes('[Warning]') && /change 2/.test(line)), lines.join('\n'));
  await nothingLeftOpen(code);
});

test('a save in a diff of today’s VS Code accepts only once the person clicked or typed in it; the diff waits in Patchbay meanwhile', async (t) => {
  const { h, project, code } = await vscodeWindow(t);
  const pi = await boundPi(h, project);
  const writing = pi.write(join(project, 'saved.txt'), 'proposed\n');
  const shown = await code.waitForDiff();
  assert.equal(code.save(shown.tabName), false, 'an untouched diff: the save decides nothing (an autosave, a stray Ctrl+S)');
  assert.equal((await h.hub.call('snapshot', undefined)).diffs.length, 1, 'still pending');
  code.touchProposed(shown.tabName);
  assert.equal(code.save(shown.tabName), true);
  assert.equal((await writing).outcome, 'saved');
  assert.equal(await readFile(join(project, 'saved.txt'), 'utf8'), 'proposed\n');
  await nothingLeftOpen(code);
});
