// The benchmark's editor must answer as an editor would, or the numbers measure nothing.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import WebSocket from 'ws';
import { tempDir } from '../peers/wait.ts';
import { fileSavedFrame, idInHead, LeanEditor } from './lean-editor.ts';

const dir = await tempDir('lean-editor');
const editors: LeanEditor[] = [];
after(async () => {
  for (const e of editors) await e.stop();
  await dir.cleanup();
});

async function connect(editor: LeanEditor, header = 'x-pi-ide-authorization'): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${editor.port}`, { headers: { [header]: editor.token } });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return ws;
}

async function ask(ws: WebSocket, frame: string | Buffer): Promise<Buffer> {
  const answer = new Promise<Buffer>((resolve) => ws.once('message', (data) => resolve(data as Buffer)));
  ws.send(frame);
  return answer;
}

test('small requests get answers with their own ids spliced in, in the editor’s dialect', async () => {
  const pi = await LeanEditor.start({ lockDir: dir.path, folder: '/w' });
  const claude = await LeanEditor.start({ lockDir: dir.path, folder: '/w', dialect: 'claude' });
  editors.push(pi, claude);
  const ws = await connect(pi);
  const init = JSON.parse((await ask(ws, '{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{}}')).toString());
  assert.equal(init.id, 'a-1');
  assert.equal(init.result.protocolVersion, '2024-11-05');
  const diagnostics = JSON.parse((await ask(ws, '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"getDiagnostics","arguments":{}}}')).toString());
  assert.equal(diagnostics.id, 7);
  assert.ok(JSON.parse(diagnostics.result.content[0].text)['file:///w/src/main.ts'], 'pi-ide.nvim: a map');
  const viaClaude = await connect(claude, 'x-claude-code-ide-authorization');
  const array = JSON.parse((await ask(viaClaude, '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"getDiagnostics","arguments":{}}}')).toString());
  assert.equal(JSON.parse(array.result.content[0].text)[0].uri, 'file:///w/src/main.ts', 'Claude dialect: an array');
  const unknown = JSON.parse((await ask(ws, '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"nope","arguments":{}}}')).toString());
  assert.equal(unknown.error.code, -32601);
  ws.close();
  viaClaude.close();
});

test('a big openDiff is answered with the prepared FILE_SAVED under its id, byte for byte', async () => {
  const editor = await LeanEditor.start({ lockDir: dir.path, folder: '/w' });
  editors.push(editor);
  const contents = 'const s = "a \\"b\\" é";\n'.repeat(10_000);
  editor.prepare(contents);
  const ws = await connect(editor);
  const request = JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'openDiff', arguments: { old_file_path: '/w/a', new_file_path: '/w/a', new_file_contents: contents, tab_name: 't' } } });
  const answer = await ask(ws, request);
  assert.ok(answer.equals(fileSavedFrame('42', contents)));
  assert.deepEqual(JSON.parse(answer.toString()).result.content[1].text, contents);
  const stranger = JSON.parse((await ask(ws, JSON.stringify({ jsonrpc: '2.0', id: 43, method: 'tools/call', params: { name: 'other', pad: contents } }))).toString());
  assert.match(stranger.error.message, /not a prepared openDiff/);
  ws.close();
});

test('a wrong token is refused before the upgrade', async () => {
  const editor = await LeanEditor.start({ lockDir: dir.path, folder: '/w' });
  editors.push(editor);
  const ws = new WebSocket(`ws://127.0.0.1:${editor.port}`, { headers: { 'x-pi-ide-authorization': 'wrong' } });
  const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)).once('error', () => resolve(-1)));
  assert.ok(status === 401 || status === -1, `refused (${status})`);
});

test('ids are read from a frame’s first bytes: numbers and strings with escapes', () => {
  assert.equal(idInHead(Buffer.from('{"jsonrpc":"2.0","id":12,"method":"x"}')), '12');
  assert.equal(idInHead(Buffer.from('{"jsonrpc":"2.0","id":"a\\"b","result":{}}')), '"a\\"b"');
  assert.equal(idInHead(Buffer.from('{"jsonrpc":"2.0","method":"x"}')), null);
});

