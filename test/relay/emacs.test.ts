// pi and Claude Code → Patchbay → Emacs (the double of claude-code-ide.el 0.2.7): its lockfile
// has no authToken and its server takes any local connection. Patchbay adopts it, routes to it,
// says it is unauthenticated, and never sends it a token it did not ask for.
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { Snapshot } from '../../src/api/types.ts';
import { formatStatus } from '../../src/cli/format.ts';
import type { FakeEditor } from '../peers/fake-editor.ts';
import { diffAnswers } from '../peers/rpc-peer.ts';
import { waitFor } from '../peers/wait.ts';
import { withEditor, type Harness } from './harness.ts';

interface Setup {
  h: Harness;
  project: string;
  emacs: FakeEditor;
}

async function emacsWith(t: TestContext): Promise<Setup> {
  const { h, project, editor } = await withEditor(t, 'elisp', { emacs: true });
  return { h, project, emacs: editor };
}

const snapshot = (h: Harness): Promise<Snapshot> => h.hub.call('snapshot', undefined);

async function boundPi({ h, project }: Setup) {
  const pi = await h.pi(project);
  await waitFor(async () => (await snapshot(h)).sessions.some((s) => s.cwd === project && s.editorId !== null), { message: 'pi bound to Emacs' });
  return pi;
}

test('Emacs, whose lockfile has no token, is adopted and served; status says it is unauthenticated, and no connection carries a token', async (t) => {
  const { h, emacs } = await emacsWith(t);
  const lock = JSON.parse(await readFile(emacs.lockfile!.replace(/\/(\d+\.lock)$/, '/.patchbay/$1'), 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(lock).sort(), ['ideName', 'pid', 'transport', 'workspaceFolders'], 'adopted as it was written: no authToken');
  const snap = await snapshot(h);
  assert.deepEqual(snap.invalidLockfiles, [], 'not refused for a missing "authToken"');
  assert.deepEqual(snap.editors.map((e) => [e.ideName, e.alive, e.authenticated]), [['Emacs', true, false]]);
  assert.match(formatStatus(snap, '127.0.0.1'), /: unauthenticated: its lockfile has no token, so any local user can reach it\n/);
  assert.ok(emacs.clients.length >= 2, 'the probe and the link');
  for (const client of emacs.clients) {
    assert.deepEqual(Object.keys(client.headers).filter((h) => h.endsWith('-authorization')), [], 'no token header of any dialect');
    assert.equal(client.protocol, 'mcp');
  }
});

test("pi's diff is shown in Emacs and accepted there (ediff, then Accept): pi writes it, and Patchbay closes the decided diff", async (t) => {
  const setup = await emacsWith(t);
  const { h, project, emacs } = setup;
  const pi = await boundPi(setup);
  const file = join(project, 'init.el');
  await writeFile(file, ';; old\n');
  const writing = pi.write(file, ';; new\n');
  const shown = await emacs.waitForDiff();
  assert.match(shown.tabName, /^✻ \[pi\] init\.el \(d\d+\) ⧉$/);
  emacs.decide(shown.tabName, 'saved', ';; new, edited in ediff\n');
  assert.equal((await writing).outcome, 'saved');
  assert.equal(await readFile(file, 'utf8'), ';; new, edited in ediff\n');
  await emacs.waitForNoDiffs();
  assert.deepEqual(emacs.closedDiffs.map((c) => [c.tabName, c.reason]), [[shown.tabName, 'close_tab']]);
  assert.deepEqual(emacs.calls('close_tab').map((c) => c.args.tab_name), [shown.tabName], 'only its own diff name: Emacs errs on any other');
  assert.deepEqual(pi.errors, []);
  const [record] = (await snapshot(h)).history;
  assert.deepEqual([record?.by, record?.edited], ['editor', true]);
});

test('a diff decided in Patchbay while Emacs shows it: Emacs closes it without answering, and pi gets the decision once', async (t) => {
  const setup = await emacsWith(t);
  const { h, project, emacs } = setup;
  const pi = await boundPi(setup);
  const writing = pi.write(join(project, 'rejected.el'), '(oops)\n');
  await emacs.waitForDiff();
  const diff = await waitFor(async () => (await snapshot(h)).diffs[0]);
  await h.hub.call('diffs.reject', { id: diff.id, reason: 'not in init' });
  assert.equal((await writing).outcome, 'rejected');
  await emacs.waitForNoDiffs();
  assert.equal(diffAnswers(pi.rpc.received).length, 1);
  await assert.rejects(readFile(join(project, 'rejected.el')), { code: 'ENOENT' });
});

test("Claude Code reaches Emacs through the door: the tools are Emacs's, its diagnostics pass as the array they are, and Emacs's list_changed after initialize has them read again", async (t) => {
  const { h, project, emacs } = await emacsWith(t);
  const uri = `file://${project}/init.el`;
  emacs.setDiagnostics({ [uri]: [{ message: 'free variable', severity: 'Warning', range: { start: { line: 2, character: 0 }, end: { line: 2, character: 3 } } }] });
  const claude = await h.claudeByLockfile(project, { searchMs: 5000 });
  assert.equal(claude.toolListError, null);
  assert.deepEqual(claude.tools.map((tool) => tool.name), ['openFile', 'getDiagnostics', 'close_tab', 'openDiff', 'closeAllDiffTabs', 'executeCode']);
  assert.deepEqual(await claude.getDiagnostics(), [{ uri, diagnostics: [{ message: 'free variable', severity: 'Warning', range: { start: { line: 2, character: 0 }, end: { line: 2, character: 3 } } }] }]);
  // Patchbay's link asked for the tools once at the start and once after Emacs's list_changed.
  await waitFor(() => emacs.received.filter((r) => r.msg.method === 'tools/list').length >= 2, { message: 'tools/list asked again' });
});
