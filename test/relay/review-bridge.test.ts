// The review bridge with a whole file coming back: the editor's FILE_SAVED reaches the agent as
// the bytes the editor sent, before Patchbay reads it; an unreadable one is never a decision.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LazyText, parseLazily } from '../../src/protocol/lazy-json.ts';
import { LAZY_FRAME_BYTES } from '../../src/relay/rpc-link.ts';
import type { Session } from '../../src/relay/session.ts';
import { fakeReview } from './fake-review.ts';
import { fakeLink } from './fake-link.ts';
import { waitFor } from '../peers/wait.ts';

/** Source text over the lazy bound, with what JSON must escape. */
const BIG = 'const s = "a \\"quoted\\" \\\\ path\\tü";\n'.repeat(Math.ceil(LAZY_FRAME_BYTES / 30));

function setup() {
  const agent = fakeLink('agent');
  const editor = fakeLink('editor');
  const session = { id: 's1', dialect: 'pi', link: agent.link, clientInfo: { name: 'pi-ide', version: '1' }, closed: false, upstreams: { openLinkById: () => editor.link } } as unknown as Session;
  return { agent, editor, session, ...fakeReview(session, editor.link, 'ed-1') };
}

async function propose(t: ReturnType<typeof setup>, id: number): Promise<{ answered: Promise<void>; relayedId: unknown }> {
  const request = { jsonrpc: '2.0' as const, id, method: 'tools/call', params: { name: 'openDiff', arguments: { old_file_path: '/w/a.ts', new_file_path: '/w/a.ts', new_file_contents: BIG, tab_name: 'pi-write:1' } } };
  const bytes = Buffer.from(JSON.stringify(request));
  const { id: diffId, answered } = t.bridge.receive(t.session, request, { bytes, text: '' }, request.params.arguments);
  t.bridge.originalRead(diffId, { contents: Buffer.from('old\n'), isNew: false, tooLarge: false });
  await waitFor(() => t.editor.sent.length === 1, { message: 'the diff offered to the editor' });
  return { answered, relayedId: t.editor.sent[0]!.id };
}

function saved(id: unknown, contents: string, raw?: string): Buffer {
  const frame = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: contents }] } });
  return Buffer.from(raw === undefined ? frame : frame.replace(JSON.stringify(contents), raw));
}

test('a big FILE_SAVED reaches the agent byte for byte, and is recorded as the editor’s decision with what it wrote', async () => {
  const t = setup();
  const { answered, relayedId } = await propose(t, 7);
  assert.notEqual(relayedId, 7, 'upstream, the request carries an id of the editor link’s own');
  const edited = `${BIG}// edited in the editor\n`;
  const frame = saved(relayedId, edited);
  assert.ok(frame.length >= LAZY_FRAME_BYTES);
  t.editor.receiveBytes(frame);
  await answered;
  assert.equal(t.agent.sentBytes.length, 1);
  assert.ok(t.agent.sentBytes[0]!.equals(saved(7, edited)), 'the same bytes, under the agent’s id');
  assert.equal(t.decided.length, 1);
  assert.equal(t.decided[0]!.by, 'editor');
  assert.equal(t.decided[0]!.edited, true);
  assert.equal(t.inbox.pending().length, 0);
});

test('a big FILE_SAVED whose file cannot be read is no decision: the diff waits in Patchbay, and is answered properly later', async () => {
  const t = setup();
  const { answered, relayedId } = await propose(t, 8);
  // An invalid escape deep inside the file: the frame looks whole until the file is read.
  t.editor.receiveBytes(saved(relayedId, BIG, `"${'x'.repeat(LAZY_FRAME_BYTES)}\\q"`));
  await waitFor(() => t.logs.some((l) => /saved it with an unreadable answer/.test(l)), { message: 'the problem logged' });
  assert.equal(t.decided.length, 0);
  const [pending] = t.inbox.pending();
  assert.equal(pending?.inEditor, false, 'no longer counted as open in the editor');
  t.bridge.decide(pending!.id, { outcome: 'reject' });
  await answered;
  const last = t.agent.sent.at(-1) as { id: number; result: { content: { text: string }[] } };
  assert.equal(last.id, 8);
  assert.equal(last.result.content[0]!.text, 'DIFF_REJECTED');
});

/** The agent's openDiff as Patchbay's agent link reads a big one: its file left as bytes. */
function lazyRequest(id: number) {
  const request = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'openDiff', arguments: { old_file_path: '/w/a.ts', new_file_path: '/w/a.ts', new_file_contents: BIG, tab_name: 'pi-write:1' } } };
  const bytes = Buffer.from(JSON.stringify(request));
  type Lazy = { jsonrpc: '2.0'; id: number; method: string; params: { name: string; arguments: Omit<typeof request.params.arguments, 'new_file_contents'> & { new_file_contents: LazyText } } };
  const read = parseLazily(bytes, 64 * 1024)!;
  const msg = read.value as Lazy;
  assert.ok(msg.params.arguments.new_file_contents instanceof LazyText);
  return { msg, frame: { bytes, text: '', cost: read.cost, idAt: read.idAt }, bytes, raw: Buffer.from(JSON.stringify(BIG)) };
}

/** Counts decodes of big strings while `run` runs. */
async function decodes<T>(run: () => Promise<T>): Promise<{ result: T; count: number }> {
  const value = LazyText.prototype.value;
  let count = 0;
  LazyText.prototype.value = function (this: LazyText) {
    count++;
    return value.call(this);
  };
  try {
    return { result: await run(), count };
  } finally {
    LazyText.prototype.value = value;
  }
}

test('a big openDiff goes to the editor as the bytes the agent sent, and the file is decoded by nobody on the way there and back', async () => {
  const t = setup();
  const { msg, frame } = lazyRequest(21);
  const { count } = await decodes(async () => {
    const { answered } = t.bridge.receive(t.session, msg, frame, msg.params.arguments);
    await waitFor(() => t.editor.sentBytes.length === 1, { message: 'the diff offered to the editor' });
    const relayedId = t.editor.sent[0]!.id;
    assert.notEqual(relayedId, 21);
    assert.ok(t.editor.sentBytes[0]!.equals(Buffer.from(JSON.stringify({ ...msg, id: relayedId, params: { ...msg.params, arguments: { ...msg.params.arguments, new_file_contents: BIG } } }))), 'the agent’s frame, byte for byte but for the id');
    t.editor.receiveBytes(saved(relayedId, BIG));
    await answered;
  });
  assert.ok(t.agent.sentBytes.at(-1)!.equals(saved(21, BIG)), 'the editor’s answer, under the agent’s id');
  assert.equal(count, 0, 'the file was never decoded');
  assert.equal(t.decided[0]!.edited, false);
});

test('a diff offered again (the editor came back) carries the proposal as the bytes it arrived in; opened in Patchbay it reads whole', async () => {
  const t = setup();
  const { msg, frame, raw } = lazyRequest(22);
  const { result: id, count } = await decodes(async () => {
    const { id } = t.bridge.receive(t.session, msg, frame, msg.params.arguments);
    await waitFor(() => t.editor.sentBytes.length === 1, { message: 'the first offer' });
    t.inbox.offerFailed(id, 'ed-1');
    t.bridge.run(t.inbox.editorAvailable('s1'));
    await waitFor(() => t.editor.sentBytes.length === 2, { message: 'the second offer' });
    return id;
  });
  assert.equal(count, 0, 'not decoded to be offered again');
  const again = t.editor.sentBytes[1]!;
  assert.ok(again.includes(raw), 'the proposal’s bytes, as the agent sent them');
  assert.equal((t.editor.sent[1] as { params: { arguments: { new_file_contents: string } } }).params.arguments.new_file_contents, BIG);
  assert.equal(t.inbox.get(id)!.newContents, BIG, 'opened, it is the whole file');
});

test('a big diff accepted in Patchbay answers the agent with the proposal’s own bytes, undecoded', async () => {
  const t = setup();
  const { msg, frame, raw } = lazyRequest(23);
  const { count } = await decodes(async () => {
    const { id, answered } = t.bridge.receive(t.session, msg, frame, msg.params.arguments);
    t.bridge.decide(id, { outcome: 'accept' });
    await answered;
  });
  assert.equal(count, 0);
  const reply = t.agent.sentBytes.at(-1)!;
  assert.ok(reply.includes(raw));
  assert.deepEqual((t.agent.sent.at(-1) as { id: number; result: unknown }).result, { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: BIG }] });
});
