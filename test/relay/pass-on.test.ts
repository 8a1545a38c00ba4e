// An answer relayed back as it arrives (AnswerReading.passOn): it goes to the asker in the same
// turn, under the asker's id, ahead of anything the editor sent after it; an error answer can be
// left to the caller.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { INVALID_REQUEST } from '../../src/protocol/jsonrpc.ts';
import { fakeLink } from './fake-link.ts';

const DIAGNOSTICS = { content: [{ type: 'text', text: '[{"uri":"file:///w/app/a.ts","diagnostics":[]}]' }] };

test('an answer passed on reaches the asker under its own id before what the editor sent after it', async () => {
  const agent = fakeLink('agent');
  // A notification goes on to the agent as it comes, as the relay fans them out.
  const editor = fakeLink('editor', { onNotification: (msg) => agent.link.send(msg) });
  const call = editor.link.relay({ jsonrpc: '2.0', id: 'agent-7', method: 'tools/call', params: { name: 'getDiagnostics', arguments: {} } }, null, {
    passOn: { to: agent.link, id: 'agent-7' },
  });
  assert.equal(editor.sent.at(-1)?.id, call.id, 'the editor is asked under an id of the link');
  editor.receive({ jsonrpc: '2.0', id: call.id, result: DIAGNOSTICS });
  editor.receive({ jsonrpc: '2.0', method: 'selection_changed', params: { text: 'x' } });
  assert.deepEqual(
    agent.sent.map((m) => m.id ?? m.method),
    ['agent-7', 'selection_changed'],
    'the answer left in the turn it came, before the selection sent after it',
  );
  assert.deepEqual(agent.sent[0]!.result, DIAGNOSTICS);
  const reply = await call.response;
  assert.equal(reply.passedOn, true, 'the caller is told it has gone');
  assert.deepEqual(reply.msg.result, DIAGNOSTICS, 'passed on unread, it still reads as the answer');
  assert.equal(agent.sent.length, 2, 'sent once, not again by the caller');
});

test('an error answer is left to the caller when it asks for that, and passed on when it does not', async () => {
  const agent = fakeLink('agent');
  const editor = fakeLink('editor');
  const held = editor.link.relay({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getDiagnostics' } }, null, {
    passOn: { to: agent.link, id: 1, unlessError: true },
  });
  editor.receive({ jsonrpc: '2.0', id: held.id, error: { code: -32603, message: 'LSP not ready' } });
  const reply = await held.response;
  assert.equal(reply.passedOn, undefined);
  assert.equal(reply.msg.error?.message, 'LSP not ready');
  assert.equal(agent.sent.length, 0, 'nothing went to the agent: the caller answers (getDiagnostics: empty)');

  const passed = editor.link.relay({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'closeAllDiffTabs' } }, null, {
    passOn: { to: agent.link, id: 2 },
  });
  editor.receive({ jsonrpc: '2.0', id: passed.id, error: { code: -32601, message: 'no such tool' } });
  assert.deepEqual(agent.sent, [{ jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'no such tool' } }]);
  assert.equal((await passed.response).passedOn, true);
});

test('an answer too costly to read reaches the asker as Patchbay’s error, passed on like any other', async () => {
  const agent = fakeLink('agent');
  const editor = fakeLink('editor', { onMalformed: () => {} });
  const call = editor.link.relay({ jsonrpc: '2.0', id: 'agent-9', method: 'tools/call', params: { name: 'openEditors' } }, null, {
    passOn: { to: agent.link, id: 'agent-9' },
  });
  // Hundreds of thousands of tiny values: refused by its weight, unread (frame-cost.ts).
  editor.receiveBytes(Buffer.from(`{"jsonrpc":"2.0","id":${call.id},"result":{"tabs":[${'[],'.repeat(400_000)}[]]}}`));
  assert.equal(agent.sent.length, 1, 'the asker has its answer at once');
  assert.equal(agent.sent[0]!.id, 'agent-9');
  assert.equal((agent.sent[0]!.error as { code?: number } | undefined)?.code, INVALID_REQUEST);
  assert.equal((await call.response).passedOn, true);
});

test('the traffic log shows an answer passed on as it went, under the asker’s id, whatever its characters', () => {
  for (const text of ['no problems', 'Unerwartetes Zeichen „ü“ — 修正してください 🙂']) {
    const logged: { dir: string; text: string; bytes: number }[] = [];
    const agent = fakeLink('agent', { onFrame: (dir, frameText, _message, bytes) => void logged.push({ dir, text: frameText, bytes }) });
    const editor = fakeLink('editor');
    const call = editor.link.relay({ jsonrpc: '2.0', id: 'agent-3', method: 'tools/call', params: { name: 'getDiagnostics' } }, null, {
      passOn: { to: agent.link, id: 'agent-3' },
    });
    // The id after the text: its byte offsets are not its character offsets when the text is not ASCII.
    editor.receiveBytes(Buffer.from(`{"jsonrpc":"2.0","result":${JSON.stringify({ content: [{ type: 'text', text }] })},"id":${call.id}}`));
    const sent = agent.sentBytes.at(-1)!;
    assert.deepEqual(logged, [{ dir: 'out', text: sent.toString('utf8'), bytes: sent.length }], text);
    assert.match(logged[0]!.text, /"id":"agent-3"/);
  }
});

test('an answer that is not JSON is not passed on: the asker gets no garbage, and the caller still waits', async () => {
  const problems: string[] = [];
  const agent = fakeLink('agent');
  const editor = fakeLink('editor', { onMalformed: (problem) => void problems.push(problem) });
  const call = editor.link.relay({ jsonrpc: '2.0', id: 'agent-4', method: 'tools/call', params: { name: 'getDiagnostics' } }, null, {
    passOn: { to: agent.link, id: 'agent-4' },
    deadline: { ms: 50, what: 'getDiagnostics' },
  });
  // Valid at its top level (an id, a result), broken inside.
  editor.receiveBytes(Buffer.from(`{"jsonrpc":"2.0","id":${call.id},"result":{"content":[{"type":"text","text":"x"},]}}`));
  assert.equal(agent.sent.length, 0, 'nothing reached the agent');
  assert.equal(problems.length, 1, 'the frame is reported');
  await assert.rejects(call.response, /getDiagnostics: no answer within 50 ms/, 'the caller answers by its deadline (getDiagnostics: empty)');
});
