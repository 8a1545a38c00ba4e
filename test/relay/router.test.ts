import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import type { FakeEditor } from '../peers/fake-editor.ts';
import { waitFor } from '../peers/wait.ts';
import { startHarness, type Harness } from './harness.ts';

async function sessionOf(h: Harness, cwd: string) {
  return waitFor(
    async () => (await h.hub.call('snapshot', undefined)).sessions.find((s) => s.cwd === cwd && s.reason !== 'none' ? s : s.cwd === cwd && s),
    { message: `a session in ${cwd}` },
  );
}

async function boundTo(h: Harness, cwd: string, editorId: string | null) {
  return waitFor(
    async () => (await h.hub.call('snapshot', undefined)).sessions.find((s) => s.cwd === cwd && s.editorId === editorId),
    { message: `session in ${cwd} bound to ${editorId}` },
  );
}

describe('a pi session and one pi-ide.nvim editor through Patchbay', () => {
  let h: Harness;
  let nvim: FakeEditor;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('the session is bound by folder, its diff is decided in the editor and the file written', async () => {
    const project = await h.folder('alpha');
    const editor = (nvim = await h.editor({ workspaceFolders: [project] }));
    await h.editors(1);
    const pi = await h.pi(project);
    const editorId = (await h.hub.call('snapshot', undefined)).editors[0]!.id;
    const session = await boundTo(h, project, editorId);
    assert.equal(session.reason, 'cwd');
    assert.equal(session.kind, 'pi');

    const file = join(project, 'a.txt');
    await writeFile(file, 'old\n');
    const writing = pi.write(file, 'new\n');
    const diff = await editor.waitForDiff();
    // Listed once its original is read, which starts as it goes to the editor.
    const pending = await waitFor(async () => {
      const { diffs } = await h.hub.call('snapshot', undefined);
      return diffs.length > 0 && diffs;
    });
    assert.equal(pending.length, 1);
    assert.equal(pending[0]!.path, file);
    assert.equal(pending[0]!.tool, 'write');
    assert.equal((await h.hub.call('diffs.get', { id: pending[0]!.id })).oldContents, 'old\n');

    editor.decide(diff.tabName, 'saved', 'new, edited in the editor\n');
    const outcome = await writing;
    assert.equal(outcome.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), 'new, edited in the editor\n');
    const snap = await h.hub.call('snapshot', undefined);
    assert.equal(snap.diffs.length, 0);
    assert.equal(snap.history[0]!.by, 'editor');
    assert.equal(snap.history[0]!.edited, true);
    await waitFor(() => pi.errors.length === 0 && pi.received.some((m) => JSON.stringify(m).includes('TAB_CLOSED')));
  });

  test('a write a pi 1.6 codemode script made reaches pi-ide.nvim under its own tab name, pi-write:<call>/<n>', async () => {
    const project = await h.folder('alpha');
    const pi = await h.pi(project);
    const editorId = (await h.hub.call('snapshot', undefined)).editors[0]!.id;
    await boundTo(h, project, editorId);
    const writing = pi.write(join(project, 'b.txt'), 'scripted\n', { calledBy: 'call_9' });
    const shown = await nvim.waitForDiff('pi-write:call_9/1');
    nvim.decide(shown.tabName, 'saved');
    assert.equal((await writing).outcome, 'saved');
    assert.equal(await readFile(join(project, 'b.txt'), 'utf8'), 'scripted\n');
    // pi-ide's close_tab after the decision names the same tab: nothing is left open.
    await waitFor(() => nvim.calls('close_tab').some((c) => c.args.tab_name === 'pi-write:call_9/1') || nvim.diffs.size === 0, { message: 'the tab closed' });
    assert.equal(nvim.diffs.size, 0);
  });

  test('diagnostics pass through as pi-ide.nvim sends them, empty `[]` quirk included', async () => {
    const project = await h.folder('alpha');
    const pi = await h.pi(project);
    await sessionOf(h, project);
    const editor = (await h.hub.call('snapshot', undefined)).editors[0]!;
    await boundTo(h, project, editor.id);
    const empty = (await pi.turn()) as { content: { text: string }[] };
    assert.equal(Object.keys(JSON.parse(empty.content[0]!.text) as object).length, 0);
    const uri = `file://${project}/a.ts`;
    nvim.setDiagnostics({ [uri]: [{ message: 'oops', severity: 'Error', range: { start: { line: 1, character: 0 }, end: { line: 1, character: 2 } } }] } as never);
    const full = (await pi.turn()) as { content: { text: string }[] };
    assert.equal((JSON.parse(full.content[0]!.text) as Record<string, { message: string }[]>)[uri]![0]!.message, 'oops');
  });

  test('malformed JSON gets -32700 and the connection stays usable', async () => {
    const project = await h.folder('alpha');
    const pi = await h.pi(project);
    const got = new Promise<{ error?: { code: number } }>((resolve) => {
      pi.rpc.ws.once('message', (data) => resolve(JSON.parse(String(data))));
    });
    pi.rpc.ws.send('{not json');
    assert.equal((await got).error?.code, -32700);
    const result = (await pi.turn()) as { content: unknown[] };
    assert.ok(Array.isArray(result.content));
  });
});

describe('routing between several editors', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('with editors on nested folders the deepest folder wins', async () => {
    const outer = await h.folder('mono');
    const inner = await h.folder('mono/packages/web');
    const outerEditor = await h.editor({ workspaceFolders: [outer], ideName: 'outer' });
    const innerEditor = await h.editor({ workspaceFolders: [inner], ideName: 'inner' });
    await h.editors(2);
    const snap = await h.hub.call('snapshot', undefined);
    const id = (name: string) => snap.editors.find((e) => e.ideName === name)!.id;
    await h.pi(join(inner, 'src') === inner ? inner : inner);
    await h.pi(await h.folder('mono/docs'));
    await boundTo(h, inner, id('inner'));
    await boundTo(h, join(outer, 'docs'), id('outer'));
    assert.ok(outerEditor.openClients.length >= 1 && innerEditor.openClients.length >= 1);
  });

  test('a session moved with bind while a diagnostics call is in flight gets its answer, then talks to the new editor', async () => {
    const folder = await h.folder('shared');
    const slow = await h.editor({ workspaceFolders: [folder], ideName: 'slow', diagnosticsDelayMs: 300 });
    const fast = await h.editor({ workspaceFolders: [folder], ideName: 'fast' });
    fast.setDiagnostics({ 'file:///x.ts': [{ message: 'from fast', severity: 'Error', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }] as never });
    slow.setDiagnostics({ 'file:///x.ts': [{ message: 'from slow', severity: 'Error', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }] as never });
    await h.editors(4);
    const snap = await h.hub.call('snapshot', undefined);
    const slowId = snap.editors.find((e) => e.ideName === 'slow')!.id;
    const fastId = snap.editors.find((e) => e.ideName === 'fast')!.id;
    const pi = await h.pi(folder);
    const session = await sessionOf(h, folder);
    await h.hub.call('bind', { sessionId: session.id, editorId: slowId });
    await boundTo(h, folder, slowId);

    const inFlight = pi.turn();
    await slow.waitForCall('getDiagnostics');
    const moved = await h.hub.call('bind', { sessionId: session.id, editorId: fastId });
    assert.equal(moved.editorId, fastId);
    assert.equal(moved.reason, 'manual');
    const first = (await inFlight) as { content: { text: string }[] };
    assert.match(first.content[0]!.text, /from slow/);
    const second = (await pi.turn()) as { content: { text: string }[] };
    assert.match(second.content[0]!.text, /from fast/);
    assert.equal(pi.closeCode, null, 'the agent was never disconnected');
  });
});

describe('an editor restart', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('the session rebinds by itself, and a diff open in the crashed editor is re-offered and decided there', async () => {
    const project = await h.folder('restart');
    const first = await h.editor({ workspaceFolders: [project], ideName: 'nvim' });
    await h.editors(1);
    const pi = await h.pi(project);
    const editorId = (await h.hub.call('snapshot', undefined)).editors[0]!.id;
    await boundTo(h, project, editorId);

    const file = join(project, 'b.txt');
    const writing = pi.write(file, 'hello\n');
    await first.waitForDiff();
    await first.crash();
    // Still pending in Patchbay, not in any editor, and the agent is still waiting.
    await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.some((d) => !d.inEditor));

    const second = await h.editor({ workspaceFolders: [project], ideName: 'nvim' });
    assert.notEqual(second.port, first.port);
    const reoffered = await second.waitForDiff();
    assert.equal(reoffered.args.new_file_contents, 'hello\n');
    const snap = await h.hub.call('snapshot', undefined);
    assert.equal(snap.editors.length, 1);
    assert.equal(snap.editors[0]!.id, editorId, 'same identity after the restart');
    assert.equal(snap.editors[0]!.port, second.port);
    second.decide(reoffered.tabName, 'saved');
    const outcome = await writing;
    assert.equal(outcome.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), 'hello\n');
  });
});

describe('no editor for the session', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('the diff waits in Patchbay, diagnostics answer empty at once, and accept with edits writes them', async () => {
    const project = await h.folder('lonely');
    const pi = await h.pi(project);
    const session = await boundTo(h, project, null);
    assert.equal(session.reason, 'none');
    const diagnostics = (await pi.turn()) as { content: { text: string }[] };
    assert.deepEqual(JSON.parse(diagnostics.content[0]!.text), {});

    const file = join(project, 'new.txt');
    const writing = pi.write(file, 'draft\n');
    const diff = await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs[0]);
    assert.equal(diff.isNew, true);
    await h.hub.call('diffs.accept', { id: diff.id, contents: 'final\n' });
    const outcome = await writing;
    assert.equal(outcome.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), 'final\n');
    // A second decision says when and where the first was made.
    await assert.rejects(h.hub.call('diffs.accept', { id: diff.id }), /^HubError: d\d+ was already accepted in Patchbay \(edited by you\) at \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
  });

  test('a rejected diff is DIFF_REJECTED and nothing is written', async () => {
    const project = await h.folder('lonely');
    const pi = await h.pi(project);
    await boundTo(h, project, null);
    const file = join(project, 'never.txt');
    const writing = pi.write(file, 'nope\n');
    const diff = await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs[0]);
    await h.hub.call('diffs.reject', { id: diff.id });
    assert.equal((await writing).outcome, 'rejected');
    await assert.rejects(readFile(file, 'utf8'), /ENOENT/);
  });
});

describe('the door', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  const status = (headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${h.hub.doorPort}`, { headers });
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => {
        ws.close();
        resolve(101);
      });
      ws.on('error', () => {});
    });

  test('refuses a wrong token with 401 and a browser origin with 403, before the upgrade', async () => {
    assert.equal(await status({ 'x-pi-ide-authorization': 'wrong' }), 401);
    assert.equal(await status({}), 401);
    const token = (h.hub as unknown as { tokens: { pi: string } }).tokens.pi;
    assert.equal(await status({ 'x-pi-ide-authorization': token, origin: 'http://evil.example' }), 403);
    assert.equal(await status({ 'x-pi-ide-authorization': token }), 101);
  });

  test('the door lockfile is 0600 and advertises the live editors’ folders', async () => {
    const project = await h.folder('advertised');
    await h.editor({ workspaceFolders: [project] });
    await h.editors(1);
    const snap = await waitFor(async () => {
      const s = await h.hub.call('snapshot', undefined);
      const lock = JSON.parse(await readFile(s.door.lockfiles[0]!, 'utf8')) as { workspaceFolders: string[] };
      return lock.workspaceFolders.includes(project) && s;
    });
    const { stat } = await import('node:fs/promises');
    const lockfile = snap.door.lockfiles.find((p) => p.startsWith(h.options.piLockDir))!;
    assert.equal((await stat(lockfile)).mode & 0o777, 0o600);
    const lock = JSON.parse(await readFile(lockfile, 'utf8')) as { ideName: string; pid: number };
    assert.equal(lock.ideName, 'Patchbay');
    assert.equal(lock.pid, process.pid);
  });
});

describe('sticky memory', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('a session bound by hand comes back to that editor after the agent restarts, without dragging its neighbour', async () => {
    const folder = await h.folder('sticky');
    await h.editor({ workspaceFolders: [folder], ideName: 'one' });
    await h.editor({ workspaceFolders: [folder], ideName: 'two' });
    await h.editors(2);
    const snap = await h.hub.call('snapshot', undefined);
    const two = snap.editors.find((e) => e.ideName === 'two')!.id;
    const first = await h.pi(folder);
    const neighbour = await h.pi(folder);
    const [s1, s2] = await waitFor(async () => {
      const sessions = (await h.hub.call('snapshot', undefined)).sessions.filter((s) => s.cwd === folder && s.editorId);
      return sessions.length === 2 && sessions;
    });
    const target = s1!.editorId === two ? s2! : s1!;
    const other = target === s1 ? s2! : s1!;
    const otherBefore = other.editorId;
    await h.hub.call('bind', { sessionId: target.id, editorId: two === target.editorId ? snap.editors.find((e) => e.id !== two)!.id : two });
    const chosen = (await h.hub.call('snapshot', undefined)).sessions.find((s) => s.id === target.id)!;
    assert.equal(chosen.reason, 'manual');
    assert.equal((await h.hub.call('snapshot', undefined)).sessions.find((s) => s.id === other.id)!.editorId, otherBefore);

    await (target === s1 ? first : neighbour).close();
    await h.pi(folder);
    const again = await waitFor(async () =>
      (await h.hub.call('snapshot', undefined)).sessions.find((s) => s.cwd === folder && s.reason === 'sticky'),
    );
    assert.equal(again.editorId, chosen.editorId);

    // Back to automatic: the choice and the memory go, the broker's rules decide again.
    const auto = await h.hub.call('unpin', { sessionId: again.id });
    assert.notEqual(auto.reason, 'manual');
    assert.notEqual(auto.reason, 'sticky');
    const known = new Set((await h.hub.call('snapshot', undefined)).sessions.map((s) => s.id));
    await h.pi(folder);
    const fresh = await waitFor(async () =>
      (await h.hub.call('snapshot', undefined)).sessions.find((s) => !known.has(s.id) && s.cwd === folder && s.editorId !== null),
    );
    assert.equal(fresh.reason, 'focus', 'memory forgotten: two editors share the folder, so the rules pick by focus');
  });
});

describe('an agent whose process lookup fails at first', () => {
  test('is listed as being identified, then bound by its own folder once a retry finds it', async () => {
    let lookupsWork!: () => void;
    const h = await startHarness({}, {}, { lookupsFailUntil: new Promise<void>((resolve) => (lookupsWork = resolve)) });
    try {
      const project = await h.folder('late');
      const other = await h.folder('other');
      await h.editor({ workspaceFolders: [other] });
      const editor = await h.editor({ workspaceFolders: [project] });
      await h.editors(2);
      await h.pi(project);
      await waitFor(() => h.lookupAttempts() >= 2, { message: 'two failed lookups' });
      const [looking] = (await h.hub.call('snapshot', undefined)).sessions;
      assert.equal(looking!.identity, 'looking');
      assert.equal(looking!.cwd, null);
      assert.notEqual(looking!.reason, 'cwd');
      lookupsWork();
      const editorId = (await h.hub.call('snapshot', undefined)).editors.find((e) => e.port === editor.port)!.id;
      const bound = await boundTo(h, project, editorId);
      assert.equal(bound.identity, 'known');
      assert.equal(bound.reason, 'cwd');
    } finally {
      await h.close();
    }
  });
});
