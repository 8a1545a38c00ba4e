// pi (and Claude Code) → Patchbay → claudecode.nvim, with the double that keeps decided diffs open
// until a close_tab: whichever side decides, the editor ends with no diff left open, and the
// agent's answer is what it would have had from its own kind of editor.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { isClaudeDiffName, type FakeEditor } from '../peers/fake-editor.ts';
import type { FakePiClient } from '../peers/fake-pi.ts';
import { diffAnswers, toolTexts } from '../peers/rpc-peer.ts';
import { waitFor } from '../peers/wait.ts';
import { withEditor, type Harness } from './harness.ts';

interface Setup {
  h: Harness;
  project: string;
  nvim: FakeEditor;
}

async function claudecodeNvim(t: TestContext): Promise<Setup> {
  const { h, project, editor } = await withEditor(t, 'claudecode', { claudecode: true });
  return { h, project, nvim: editor };
}

async function boundPi({ h, project }: Setup): Promise<FakePiClient> {
  const pi = await h.pi(project);
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.some((s) => s.cwd === project && s.editorId !== null), {
    message: 'pi bound to claudecode.nvim',
  });
  return pi;
}

/** The editor closed every diff it showed, and was only ever asked to close diff-shaped names. */
async function nothingLeftOpen(nvim: FakeEditor): Promise<void> {
  await nvim.waitForNoDiffs();
  const names = nvim.calls('close_tab').map((c) => String(c.args.tab_name));
  for (const name of names) assert.ok(isClaudeDiffName(name), `close_tab "${name}" reached the editor without its markers`);
  assert.deepEqual(nvim.closedBuffers, [], 'no file of the person was closed');
}

test('pi → claudecode.nvim, accepted with edits in the editor: pi gets the edited file and the decided diff is closed', async (t) => {
  const setup = await claudecodeNvim(t);
  const { h, project, nvim } = setup;
  const pi = await boundPi(setup);
  const file = join(project, 'accept.txt');
  const writing = pi.write(file, 'from pi\n');
  const shown = await nvim.waitForDiff();
  assert.match(shown.tabName, /^✻ \[pi\] accept\.txt \(d\d+\) ⧉$/);
  nvim.decide(shown.tabName, 'saved', 'from pi, edited\n');
  const outcome = await writing;
  assert.equal(outcome.outcome, 'saved');
  assert.deepEqual(diffAnswers(pi.rpc.received), [['FILE_SAVED', 'from pi, edited\n']]);
  assert.equal(await readFile(file, 'utf8'), 'from pi, edited\n');
  await nothingLeftOpen(nvim);
  assert.deepEqual(
    nvim.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [[shown.tabName, 'saved', 'close_tab']],
  );
  assert.equal(nvim.calls('close_tab').length, 1, 'one close_tab, not one per agent close_tab');
  assert.deepEqual(pi.errors, []);
  assert.equal((await h.hub.call('snapshot', undefined)).diffs.length, 0);
});

test('pi → claudecode.nvim, rejected in the editor: pi hears DIFF_REJECTED with its own tab name and the diff is closed', async (t) => {
  const setup = await claudecodeNvim(t);
  const { project, nvim } = setup;
  const pi = await boundPi(setup);
  const writing = pi.write(join(project, 'reject.txt'), 'no\n');
  const shown = await nvim.waitForDiff();
  nvim.decide(shown.tabName, 'rejected');
  const outcome = await writing;
  assert.equal(outcome.outcome, 'rejected');
  assert.deepEqual(diffAnswers(pi.rpc.received), [['DIFF_REJECTED', outcome.tabName]]);
  assert.match(outcome.tabName, /^pi-write:/);
  await nothingLeftOpen(nvim);
  assert.deepEqual(
    nvim.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [[shown.tabName, 'rejected', 'close_tab']],
  );
  assert.deepEqual(pi.errors, []);
});

test('pi 1.6 → claudecode.nvim: a write its codemode script made (tab pi-write:<call>/<n>) is shown, decided and closed like any; pi hears its own tab name', async (t) => {
  const setup = await claudecodeNvim(t);
  const { h, project, nvim } = setup;
  const pi = await boundPi(setup);
  const writing = pi.write(join(project, 'scripted.txt'), 'from a script\n', { calledBy: 'call_3' });
  const shown = await nvim.waitForDiff();
  assert.match(shown.tabName, /^✻ \[pi\] scripted\.txt \(d\d+\) ⧉$/, 'a diff name claudecode.nvim treats as a diff');
  const listed = await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs[0]);
  assert.deepEqual([listed.tabName, listed.tool], ['pi-write:call_3/1', 'write']);
  nvim.decide(shown.tabName, 'rejected');
  const outcome = await writing;
  assert.deepEqual(diffAnswers(pi.rpc.received), [['DIFF_REJECTED', 'pi-write:call_3/1']]);
  assert.equal(outcome.tabName, 'pi-write:call_3/1');
  await nothingLeftOpen(nvim);
  const traffic = await h.hub.call('traffic', { sessionId: listed.sessionId });
  assert.ok(traffic.some((e) => e.dir === 'in' && e.tool === 'openDiff' && e.preview.includes('pi-write:call_3/1')), 'the traffic log shows the nested call as sent');
  assert.deepEqual(pi.errors, []);
});

test('pi → claudecode.nvim, accepted in Patchbay: the diff waiting in the editor is closed and pi gets the file', async (t) => {
  const setup = await claudecodeNvim(t);
  const { h, project, nvim } = setup;
  const pi = await boundPi(setup);
  const file = join(project, 'in-patchbay.txt');
  const writing = pi.write(file, 'accepted in Patchbay\n');
  const shown = await nvim.waitForDiff();
  // Listed once its original is read, which starts as it goes to the editor.
  const diff = await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs[0]);
  await h.hub.call('diffs.accept', { id: diff.id });
  assert.equal((await writing).outcome, 'saved');
  assert.deepEqual(diffAnswers(pi.rpc.received), [['FILE_SAVED', 'accepted in Patchbay\n']]);
  assert.equal(await readFile(file, 'utf8'), 'accepted in Patchbay\n');
  await nothingLeftOpen(nvim);
  // The editor's own answer to a diff Patchbay closed (DIFF_REJECTED) never reaches pi.
  assert.deepEqual(
    nvim.closedDiffs.map((c) => [c.tabName, c.outcome, c.reason]),
    [[shown.tabName, 'rejected', 'close_tab']],
  );
  const record = (await h.hub.call('snapshot', undefined)).history.find((r) => r.id === diff.id)!;
  assert.deepEqual([record.outcome, record.by], ['accepted', 'patchbay']);
});

test('Claude Code → claudecode.nvim: closeAllDiffTabs closes its diff in the editor, not a pi diff shown there', async (t) => {
  const setup = await claudecodeNvim(t);
  const { h, project, nvim } = setup;
  const pi = await boundPi(setup);
  const claude = await h.claude(project);
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.filter((s) => s.editorId !== null).length === 2, {
    message: 'Claude Code bound too',
  });
  const piWriting = pi.write(join(project, 'pi.txt'), 'pi\n');
  const piTab = (await nvim.waitForDiff()).tabName;
  const proposing = claude.openDiff(join(project, 'claude.txt'), 'claude\n');
  await waitFor(() => nvim.pendingDiffs.length === 2, { message: "Claude's diff in the editor" });
  const claudeTab = nvim.pendingDiffs.find((d) => d.tabName !== piTab)!.tabName;

  const closed = (await claude.prompt()) as { content: { text: string }[] };
  assert.equal(closed.content[0]!.text, 'CLOSED_1_DIFF_TABS');
  const outcome = await proposing;
  assert.equal(claudeTab, outcome.tabName.replace('[Claude Code]', '[Claude Code · Patchbay]'));
  assert.deepEqual(outcome, { outcome: 'rejected', tabName: outcome.tabName, path: join(project, 'claude.txt') });
  assert.deepEqual(diffAnswers(claude.rpc.received), [['DIFF_REJECTED', outcome.tabName]], 'Claude hears its own tab name');
  await waitFor(() => !nvim.diffs.has(claudeTab), { message: "Claude's diff closed in the editor" });
  assert.equal(nvim.diffs.get(piTab)?.status, 'pending', "pi's diff is not Claude's to close");

  nvim.decide(piTab, 'saved');
  assert.equal((await piWriting).outcome, 'saved');
  await nothingLeftOpen(nvim);
  assert.deepEqual(claude.errors, []);
});

test('Claude Code → claudecode.nvim, accepted in the editor: the diff closes once, Claude’s own close_tab calls stay with Patchbay', async (t) => {
  const setup = await claudecodeNvim(t);
  const { h, project, nvim } = setup;
  const claude = await h.claude(project);
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.some((s) => s.editorId !== null), { message: 'Claude Code bound' });
  const proposing = claude.openDiff(join(project, 'claude.txt'), 'claude\n');
  const shown = await nvim.waitForDiff();
  nvim.decide(shown.tabName, 'saved');
  const outcome = await proposing;
  assert.equal(outcome.outcome, 'accepted');
  assert.equal(shown.tabName, outcome.tabName.replace('[Claude Code]', '[Claude Code · Patchbay]'), 'a Claude name reaches the editor with its markers');
  await nothingLeftOpen(nvim);
  // Claude Code fires two close_tab after its answer; give them a round trip to arrive.
  await waitFor(() => claude.rpc.received.filter((m) => m.result !== undefined && toolTexts(m.result)[0] === 'TAB_CLOSED').length === 2, {
    message: "Claude's two close_tab answered",
  });
  assert.equal(nvim.calls('close_tab').length, 1);
  assert.deepEqual(claude.errors, []);
});

test('pi → claudecode.nvim: the cursor in a pi diff’s proposed buffer reaches pi as that file’s proposed side, as pi-ide.nvim names it', async (t) => {
  const setup = await claudecodeNvim(t);
  const { project, nvim } = setup;
  const pi = await boundPi(setup);
  const file = join(project, 'shown.txt');
  const writing = pi.write(file, 'one\ntwo\nthree\n');
  await nvim.waitForDiff();
  // Neovim names the buffer `<cwd>/✻ [pi] shown.txt (dN) ⧉ (NEW FILE - proposed)`: pi-ide would take that for a file.
  await waitFor(() => {
    nvim.sendSelection({ filePath: file, proposed: true, start: { line: 2, character: 0 } });
    return pi.editor !== null;
  }, { intervalMs: 50, message: 'the selection heard by pi' });
  assert.deepEqual(pi.editor, { filePath: `${file} [pi-proposed]`, cursorLine: 2, selection: null });
  nvim.decide((await nvim.waitForDiff()).tabName, 'rejected');
  assert.equal((await writing).outcome, 'rejected');
});
