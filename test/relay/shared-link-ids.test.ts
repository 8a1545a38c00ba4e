// Two sessions share one link to an editor (DESIGN §6). The editors written in Lua re-encode
// every number with 14 significant digits (lua-cjson), so a request id 7.000000000000001 comes
// back as 7: were an agent's own id sent on, it could answer, decide or close another session's
// diff. Every request on the link carries an id Patchbay minted instead; these attacks must fail.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { FakeEditor } from '../peers/fake-editor.ts';
import type { RpcMessage, RpcPeer } from '../peers/rpc-peer.ts';
import { toolTexts } from '../peers/rpc-peer.ts';
import { waitFor } from '../peers/wait.ts';
import { startHarness, type Harness } from './harness.ts';

async function harness(t: TestContext): Promise<Harness> {
  const h = await startHarness();
  t.after(() => h.close());
  return h;
}

/** The next double above `n`: an id lua-cjson writes back as `n`. */
function justAbove(n: number): number {
  return n + n * Number.EPSILON;
}

/**
 * The ids an attacker tries, as JSON text: every small integer Patchbay or another agent may
 * have used, each just above it (which comes back as it), as a string, and the big ones lua-cjson
 * writes in exponent form.
 */
function attackIds(upTo: number): string[] {
  const ids: string[] = ['1e14', '100000000000000', '123456789012345', '0'];
  for (let k = 1; k <= upTo; k++) ids.push(String(k), String(justAbove(k)), JSON.stringify(String(k)));
  return ids;
}

/** Sends `params` as a tools/call under the id written exactly as `idText`; resolves with its answer. */
function callWithId(rpc: RpcPeer, idText: string, params: unknown): Promise<RpcMessage> {
  const id = JSON.parse(idText) as number | string;
  const from = rpc.received.length;
  rpc.ws.send(`{"jsonrpc":"2.0","id":${idText},"method":"tools/call","params":${JSON.stringify(params)}}`);
  return waitFor(() => rpc.received.slice(from).find((m) => m.method === undefined && m.id === id), { message: `the answer to id ${idText}` });
}

async function boundTo(h: Harness, editor: FakeEditor, sessions: number): Promise<void> {
  const id = (await h.hub.call('snapshot', undefined)).editors[0]!.id;
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.filter((s) => s.editorId === id).length === sessions, {
    message: `${sessions} sessions bound to ${editor.ideName}`,
  });
}

test('an agent whose ids come back from pi-ide.nvim as another session’s cannot answer or decide that session’s diff', async (t) => {
  const h = await harness(t);
  const project = await h.folder('shared');
  const nvim = await h.editor({ workspaceFolders: [project] });
  assert.equal(nvim.luaNumbers, true, 'the double writes numbers as lua-cjson does');
  await h.editors(1);
  const victim = await h.pi(project);
  const attacker = await h.pi(project);
  await boundTo(h, nvim, 2);

  const victimWrite = victim.write(join(project, 'victim.txt'), 'the victim’s text\n');
  const victimTab = (await nvim.waitForDiff()).tabName;

  // A burst of forwarded calls, answered by the editor at once, under every id that could collide.
  const ids = attackIds(20);
  const answers = await Promise.all(ids.map((id) => callWithId(attacker.rpc, id, { name: 'getOpenEditorTabs', arguments: {} })));
  for (const [i, answer] of answers.entries()) {
    assert.equal(answer.error, undefined, `id ${ids[i]}: ${JSON.stringify(answer.error)}`);
    assert.ok(Array.isArray((answer.result as { content?: unknown })?.content), `id ${ids[i]} got its own tool result`);
  }
  // The attacker's own diff, under an id just above each small integer: the person saves one in the editor.
  const sneaky = attackIds(6).filter((id) => id.includes('.'));
  const proposals = sneaky.map((id, n) =>
    callWithId(attacker.rpc, id, {
      name: 'openDiff',
      arguments: { old_file_path: join(project, `notes${n}.txt`), new_file_path: join(project, `notes${n}.txt`), new_file_contents: `harmless ${n}\n`, tab_name: `pi-write:evil${n}` },
    }),
  );
  await waitFor(() => nvim.pendingDiffs.length === 1 + sneaky.length, { message: 'every diff shown in Neovim' });
  for (const [n] of sneaky.entries()) {
    const diff = nvim.pendingDiffs.find((d) => d.args.new_file_path.endsWith(`notes${n}.txt`))!;
    nvim.decide(diff.tabName, n % 2 === 0 ? 'saved' : 'rejected');
  }
  for (const [n, answer] of (await Promise.all(proposals)).entries()) {
    const expected = n % 2 === 0 ? ['FILE_SAVED', `harmless ${n}\n`] : ['DIFF_REJECTED', `pi-write:evil${n}`];
    assert.deepEqual(toolTexts(answer.result), expected, `the attacker's diff under id ${sneaky[n]} got its own decision`);
  }
  // The attacker closes what it can name: its close_tab and closeAllDiffTabs touch only its own diffs.
  await callWithId(attacker.rpc, String(justAbove(3)), { name: 'close_tab', arguments: { tab_name: victimTab } });
  await callWithId(attacker.rpc, String(justAbove(4)), { name: 'closeAllDiffTabs', arguments: {} });

  // The victim's diff is still waiting, in Patchbay and in Neovim, and only the person decides it.
  const waiting = (await h.hub.call('snapshot', undefined)).diffs.filter((d) => d.path.endsWith('victim.txt'));
  assert.equal(waiting.length, 1, 'still pending in Patchbay');
  assert.equal(waiting[0]!.inEditor, true, 'still shown in Neovim');
  assert.ok(nvim.diffs.get(victimTab)?.status === 'pending', 'its tab in Neovim still waits for the person');
  assert.equal(victim.rpc.received.filter((m) => toolTexts(m.result).length > 0 && m.id !== undefined).length, 0, 'the victim heard nothing yet');
  nvim.decide(victimTab, 'saved', 'the victim’s text, as the person left it\n');
  assert.equal((await victimWrite).outcome, 'saved');
  assert.equal(await readFile(join(project, 'victim.txt'), 'utf8'), 'the victim’s text, as the person left it\n');
  const record = (await h.hub.call('snapshot', undefined)).history.find((r) => r.path.endsWith('victim.txt'))!;
  assert.deepEqual([record.outcome, record.by], ['accepted', 'editor']);
  assert.deepEqual(h.logs.filter((line) => /dropped an answer/.test(line)), [], 'every answer Neovim sent was to an id Patchbay sent');
});

test('claudecode.nvim re-encodes ids the same way: one Claude Code session cannot decide another’s diff', async (t) => {
  const h = await harness(t);
  const project = await h.folder('claude-shared');
  const nvim = await h.editor({ workspaceFolders: [project], claudecode: true });
  assert.equal(nvim.luaNumbers, true);
  await h.editors(1);
  const victim = await h.claude(project);
  const attacker = await h.claude(project);
  await boundTo(h, nvim, 2);

  const victimDiff = victim.openDiff('victim.txt', 'the victim’s text\n');
  const victimTab = (await nvim.waitForDiff()).tabName;
  const ids = attackIds(20);
  const answers = await Promise.all(ids.map((id) => callWithId(attacker.rpc, id, { name: 'getWorkspaceFolders', arguments: {} })));
  for (const [i, answer] of answers.entries()) assert.match(toolTexts(answer.result)[0] ?? '', /"success":true/, `id ${ids[i]} got its own answer`);
  const sneaky = String(justAbove(5));
  const notes = join(project, 'notes.txt');
  const proposal = callWithId(attacker.rpc, sneaky, {
    name: 'openDiff',
    arguments: { old_file_path: notes, new_file_path: notes, new_file_contents: 'harmless\n', tab_name: '✻ [Claude Code] notes.txt (abcdef) ⧉' },
  });
  await waitFor(() => nvim.pendingDiffs.length === 2, { message: 'both diffs shown' });
  nvim.decide(nvim.pendingDiffs.find((d) => d.tabName !== victimTab)!.tabName, 'saved');
  assert.equal(toolTexts((await proposal).result)[0], 'FILE_SAVED');
  await callWithId(attacker.rpc, String(justAbove(6)), { name: 'closeAllDiffTabs', arguments: {} });

  assert.equal(nvim.diffs.get(victimTab)?.status, 'pending', 'the victim’s diff still waits in Neovim');
  assert.equal((await h.hub.call('snapshot', undefined)).diffs.filter((d) => d.path.endsWith('victim.txt')).length, 1);
  nvim.decide(victimTab, 'rejected');
  assert.equal((await victimDiff).outcome, 'rejected');
  assert.deepEqual(h.logs.filter((line) => /dropped an answer/.test(line)), []);
});

test('an editor’s answer to an id Patchbay never sent is dropped, and a flood of them is logged a few times', async (t) => {
  const h = await harness(t);
  const project = await h.folder('stray');
  const nvim = await h.editor({ workspaceFolders: [project] });
  await h.editors(1);
  const pi = await h.pi(project);
  await boundTo(h, nvim, 1);
  const writing = pi.write(join(project, 'a.txt'), 'a\n');
  const tab = (await nvim.waitForDiff()).tabName;
  const link = nvim.openClients[0]!.rpc;
  for (let id = 1; id <= 200; id++) link.send({ jsonrpc: '2.0', id: id + 1000, result: { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: 'stray\n' }] } });
  await waitFor(() => h.logs.some((line) => /dropped an answer to id 1001/.test(line)), { message: 'the first stray answer logged' });
  await pi.turn(); // the link has read everything before this answer
  const lines = h.logs.filter((line) => /dropped an answer/.test(line));
  assert.ok(lines.length >= 1 && lines.length <= 2, `${lines.length} log lines for 200 stray answers`);
  assert.equal(nvim.diffs.get(tab)?.status, 'pending');
  nvim.decide(tab, 'rejected');
  assert.equal((await writing).outcome, 'rejected');
});
