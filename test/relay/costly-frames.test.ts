// Frames whose values would cost many times their size (frame-cost.ts) are refused unread, and
// answered as their envelope asks: an openDiff with a decision (an error would make pi-ide write
// the file unreviewed), another request with an error, an answer by ending its request's wait.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { INVALID_REQUEST } from '../../src/protocol/jsonrpc.ts';
import { floodFrame } from '../peers/frame-flood.ts';
import { toolTexts } from '../peers/rpc-peer.ts';
import { waitFor } from '../peers/wait.ts';
import { fakeLink } from './fake-link.ts';
import { startHarness } from './harness.ts';

/** `[{},{},…]` of about `bytes`. */
const junk = (bytes: number): string => `[${'{},'.repeat(Math.floor(bytes / 3))}{}]`;

test('an agent’s openDiff with a costly unknown argument is rejected unread, saying why; its other costly requests get an error', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const folder = await h.folder('costly');
  const pi = await h.pi(folder);
  for (const mb of [0.2, 3]) {
    const before = pi.rpc.received.length;
    pi.rpc.ws.send(floodFrame('junk', mb, join(folder, 'a.txt'), 'pi-write:junk'));
    const answer = await waitFor(() => pi.rpc.received.slice(before).find((m) => m.id === 2 && m.method === undefined), { message: `the answer to the ${mb} MB openDiff` });
    assert.deepEqual(toolTexts(answer.result).slice(0, 2), ['DIFF_REJECTED', 'pi-write:junk'], `${mb} MB: a decision, not an error`);
    assert.match(toolTexts(answer.result)[2] ?? '', /^Patchbay: a frame of [\d.]+ MiB holding so many JSON values/);
  }
  const before = pi.rpc.received.length;
  pi.rpc.ws.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"getOpenEditorTabs","arguments":{"x":${junk(300_000)}}}}`);
  const refused = await waitFor(() => pi.rpc.received.slice(before).find((m) => m.id === 'big'), { message: 'the answer to the costly call' });
  assert.equal(refused.error?.code, INVALID_REQUEST);
  assert.match(refused.error?.message ?? '', /not read/);
  assert.equal((await h.hub.call('snapshot', undefined)).diffs.length, 0, 'nothing held');
  assert.ok(h.logs.some((line) => /refused tools\/call openDiff: a frame of/.test(line)));
  // The session goes on as before.
  assert.deepEqual(toolTexts(await pi.turn()), ['{}']);
});

test('a costly answer ends the wait of the request it answers with an error, and a costly notification is dropped', async () => {
  const logs: string[] = [];
  const editor = fakeLink('editor', { onMalformed: (problem) => logs.push(problem) });
  const call = editor.link.request('tools/call', { name: 'getDiagnostics', arguments: {} });
  editor.receiveBytes(Buffer.from(`{"jsonrpc":"2.0","id":${call.id},"result":{"content":${junk(400_000)}}}`));
  const { msg } = await call.response;
  assert.equal(msg.error?.code, INVALID_REQUEST);
  assert.match(msg.error?.message ?? '', /^Patchbay: a frame of .* is not read/);
  editor.receiveBytes(Buffer.from(`{"jsonrpc":"2.0","method":"selection_changed","params":{"x":${junk(400_000)}}}`));
  assert.equal(logs.length, 2);
  assert.match(logs[1]!, /^editor: a frame of .* is not read$/);
  assert.equal(editor.sent.length, 1, 'only the request was sent; nothing answered the notification');
});
