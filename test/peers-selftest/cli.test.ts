// The doubles as their own processes: ready line, stdin commands, and kill -9.
import assert from 'node:assert/strict';
import { mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { FakeEditor } from '../peers/fake-editor.ts';
import { FakePiClient, type WriteOutcome } from '../peers/fake-pi.ts';
import { spawnPeer, type PeerKind, type PeerProcess } from '../peers/spawn.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

async function dirs(t: TestContext): Promise<{ lockDir: string; proj: string; root: string }> {
  const dir = await tempDir('cli');
  t.after(() => dir.cleanup());
  const proj = join(dir.path, 'proj');
  await mkdir(proj);
  return { lockDir: join(dir.path, 'ide'), proj, root: dir.path };
}

async function peer(t: TestContext, kind: PeerKind, args: string[]): Promise<PeerProcess> {
  const p = await spawnPeer(kind, args);
  t.after(() => p.kill());
  return p;
}

test('the editor process prints its ready line, reviews a diff on command and removes its lockfile on stop', async (t) => {
  const { lockDir, proj } = await dirs(t);
  const editor = await peer(t, 'editor', ['--lock-dir', lockDir, '--folder', proj, '--ide-name', 'Neovim CLI', '--pid', '4242']);
  assert.equal(editor.ready.lockfile, join(lockDir, `${editor.ready.port}.lock`));
  assert.equal(editor.ready.pid, editor.child.pid);
  const lock = JSON.parse(await readFile(editor.ready.lockfile!, 'utf8')) as { pid: number; ideName: string };
  assert.deepEqual([lock.pid, lock.ideName], [4242, 'Neovim CLI']);

  // The lockfile's pid is fake, so connect to it by name rather than by discovery.
  const pi = await FakePiClient.connect({ cwd: proj, lockfile: editor.ready.lockfile! });
  t.after(() => pi.close());
  const writing = pi.write('a.txt', 'proposed');
  const diff = await editor.waitForLine((l) => l.event === 'diff');
  assert.deepEqual([diff.tabName, diff.path], ['pi-write:1', join(proj, 'a.txt')]);
  assert.deepEqual(await editor.command({ cmd: 'decide', tabName: 'pi-write:1', outcome: 'save', contents: 'from stdin' }), {
    tabName: 'pi-write:1',
    outcome: 'save',
  });
  assert.equal((await writing).outcome, 'saved');
  assert.equal(await readFile(join(proj, 'a.txt'), 'utf8'), 'from stdin');
  await editor.waitForLine((l) => l.event === 'message' && (l.msg as { method?: string }).method === 'initialize');
  await assert.rejects(editor.command({ cmd: 'decide', tabName: 'nope', outcome: 'save' }), /no open diff "nope"/);

  const selection = editor.command({ cmd: 'selection', filePath: '/p/a.ts', text: 'x', end: { line: 0, character: 1 } });
  assert.deepEqual(await selection, { sent: 1 });
  await waitFor(() => pi.selections.length === 1);

  await editor.stop();
  assert.equal((await editor.exited).code, 0);
  await assert.rejects(stat(editor.ready.lockfile!), { code: 'ENOENT' });
});

test('kill -9 of the editor process mid-diff leaves its lockfile and pi writes unreviewed', async (t) => {
  const { lockDir, proj } = await dirs(t);
  const editor = await peer(t, 'editor', ['--lock-dir', lockDir, '--folder', proj, '--quiet']);
  const pi = await FakePiClient.connect({ cwd: proj, lockDir });
  t.after(() => pi.close());
  const writing = pi.write('a.txt', 'unchecked');
  await editor.waitForLine((l) => l.event === 'diff');
  assert.equal(editor.lines.some((l) => l.event === 'message'), false, '--quiet logs no messages');
  await editor.kill('SIGKILL');
  assert.equal(((await writing) as WriteOutcome).outcome, 'unreviewed');
  await stat(editor.ready.lockfile!);
});

test('the pi process writes through an editor on command and forwards the editor\'s request answers', async (t) => {
  const { lockDir, proj } = await dirs(t);
  const editor = await FakeEditor.start({ lockDir, workspaceFolders: [proj], pingIntervalMs: 0 });
  t.after(() => editor.stop());
  const pi = await peer(t, 'pi', ['--cwd', proj, '--lock-dir', lockDir, '--suggestion', 'one', '--suggestion', 'two']);
  assert.equal(pi.ready.port, editor.port);
  assert.equal(pi.ready.lockfile, editor.lockfile);

  const writing = pi.command({ cmd: 'write', path: 'a.txt', contents: 'proposed' });
  editor.decide((await editor.waitForDiff('pi-write:1')).tabName, 'saved');
  assert.deepEqual(await writing, { outcome: 'saved', tabName: 'pi-write:1', path: join(proj, 'a.txt'), written: 'proposed', said: [] });
  assert.equal(await readFile(join(proj, 'a.txt'), 'utf8'), 'proposed');
  assert.deepEqual(await pi.command({ cmd: 'turn' }), { content: [{ type: 'text', text: '[]' }] });

  const r = await editor.getSuggestions({ cursorBefore: '', cursorAfter: '' });
  assert.deepEqual(r.result, { suggestions: ['one', 'two'] });

  await editor.crash();
  await pi.waitForLine((l) => l.event === 'closed');
  assert.equal(pi.child.exitCode, null, 'pi keeps running after the IDE drops');
});

test('the Claude process reports its tool list check and runs tool calls on command', async (t) => {
  const { root, proj } = await dirs(t);
  const configDir = join(root, 'claude');
  const editor = await FakeEditor.start({ lockDir: join(configDir, 'ide'), workspaceFolders: [proj], dialect: 'claude', pingIntervalMs: 0 });
  t.after(() => editor.stop());
  editor.setDiagnostics({ 'file:///p/a.ts': [{ message: 'x' }] });
  const claude = await peer(t, 'claude', ['--cwd', proj, '--config-dir', configDir, '--quiet']);
  assert.equal(claude.ready.toolListError, null);
  assert.deepEqual(await claude.command({ cmd: 'getDiagnostics' }), [{ uri: 'file:///p/a.ts', diagnostics: [{ message: 'x' }] }]);
  const [client] = await editor.waitForClients(1);
  assert.deepEqual(editor.received.find((r) => r.msg.method === 'ide_connected')?.msg.params, { pid: claude.child.pid });
  assert.equal(client!.protocol, 'mcp');
});
