// pi-ide's getDiagnostics comes before every model call, the same bytes but for its id, and an
// editor answers it the same way while nothing changed: a link reads such a repeat from the one
// before (request-memo.ts, answer-memo.ts). What reaches the handler, the editor and the agent
// must be what reading each frame afresh would give.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RpcRequest } from '../../src/protocol/jsonrpc.ts';
import { fakeLink } from './fake-link.ts';

const frame = (text: string): Buffer => Buffer.from(text, 'utf8');

test('a repeated request reaches the handler, and the editor under the link’s id, as JSON.parse reads it', () => {
  const editor = fakeLink('editor');
  const seen: RpcRequest[] = [];
  const agent = fakeLink('agent', {
    onRequest: (msg, _link, arrived) => {
      seen.push(msg);
      editor.link.relay(msg, arrived, { passOn: { to: agent.link, id: msg.id } });
    },
  });
  // "params" twice: JSON.parse keeps the last, and so must every repeat, or the editor could be
  // asked for another call than the one Patchbay looked at.
  const text = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"getDiagnostics","arguments":{}},"params":{"name":"getOpenEditors","arguments":{}}}`;
  const ids = ['"9c1d-1"', '"9c1d-2"', '3', '"9c1d-\\"4\\""'];
  for (const id of ids) agent.receiveBytes(frame(text(id)));
  assert.deepEqual(seen, ids.map((id) => JSON.parse(text(id)) as RpcRequest), 'each as read afresh');
  assert.deepEqual(
    editor.sent.map((m) => m.params),
    ids.map(() => ({ name: 'getOpenEditors', arguments: {} })),
    'the editor reads the call Patchbay read, every time',
  );
  assert.equal(new Set(editor.sent.map((m) => m.id)).size, ids.length, 'each under an id of its own');
});

test('a repeated answer is passed on under each asker’s id; a changed one, or one that is not JSON, is read afresh', async () => {
  const agent = fakeLink('agent');
  const editor = fakeLink('editor', { onMalformed: () => {} });
  const answer = (id: number, text = '[]') => frame(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${text}"}]}}`);
  const ask = (askerId: string) =>
    editor.link.relay({ jsonrpc: '2.0', id: askerId, method: 'tools/call', params: { name: 'getDiagnostics' } }, null, { passOn: { to: agent.link, id: askerId } });
  for (const askerId of ['a', 'b', 'c']) {
    const call = ask(askerId);
    editor.receiveBytes(answer(call.id));
    assert.equal((await call.response).passedOn, true);
  }
  assert.deepEqual(
    agent.sent.map((m) => [m.id, m.result]),
    ['a', 'b', 'c'].map((id) => [id, { content: [{ type: 'text', text: '[]' }] }]),
  );
  // The same bytes but cut short: not JSON, so it is not passed on (the editor is told it is malformed).
  const broken = ask('d');
  const cut = answer(broken.id);
  editor.receiveBytes(cut.subarray(0, cut.length - 1));
  assert.equal(agent.sent.length, 3, 'nothing reached the agent');
  editor.link.forget(broken.id);
  // Another answer after it: checked and passed on.
  const changed = ask('e');
  editor.receiveBytes(answer(changed.id, 'x'));
  assert.deepEqual(agent.sent.at(-1), { jsonrpc: '2.0', id: 'e', result: { content: [{ type: 'text', text: 'x' }] } });
});
