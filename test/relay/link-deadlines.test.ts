// Requests relayed with a deadline: one timer per link serves them all, each still ends on time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fakeLink } from './fake-link.ts';

test('each request with a deadline is given up at its own time; one answered in time is not', async () => {
  const editor = fakeLink('editor');
  const started = Date.now();
  const settledAt = (p: Promise<unknown>) => p.then(() => ['answered', Date.now() - started] as const, (err: Error) => [err.message, Date.now() - started] as const);
  const late = settledAt(editor.link.request('tools/call', { name: 'getDiagnostics' }, { deadline: { ms: 120, what: 'slow' } }).response);
  const early = settledAt(editor.link.request('tools/call', { name: 'getDiagnostics' }, { deadline: { ms: 40, what: 'fast' } }).response);
  const kept = editor.link.request('tools/call', { name: 'getDiagnostics' }, { deadline: { ms: 80, what: 'kept' } });
  editor.receive({ jsonrpc: '2.0', id: kept.id, result: { content: [] } });
  assert.equal((await settledAt(kept.response))[0], 'answered');
  const [earlyWhy, earlyAt] = await early;
  assert.equal(earlyWhy, 'fast: no answer within 40 ms');
  assert.ok(earlyAt >= 35, `given up after ${earlyAt} ms`);
  const [lateWhy, lateAt] = await late;
  assert.equal(lateWhy, 'slow: no answer within 120 ms');
  assert.ok(lateAt >= 115, `given up after ${lateAt} ms, not with the earlier one`);
  assert.equal(editor.link.inFlight, 0, 'nothing left waiting');
  editor.drop();
});
