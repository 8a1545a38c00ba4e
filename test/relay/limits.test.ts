// Limits on every axis a peer controls (a flood costs bounded memory, upstream calls and log).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { waitFor } from '../peers/wait.ts';
import { startHarness, type Harness } from './harness.ts';

async function harness(t: TestContext, settings: Record<string, unknown> = {}): Promise<Harness> {
  const h = await startHarness({}, settings);
  t.after(() => h.close());
  return h;
}

test('a flood of initialize costs one listSuggestionModels, not one each', async (t) => {
  const h = await harness(t);
  const folder = await h.folder('flood');
  const pi = await h.pi(folder);
  const answers = await Promise.all(Array.from({ length: 2000 }, () => pi.rpc.call('initialize', { clientInfo: { name: 'pi-ide' } })));
  assert.ok(answers.every((a) => a.result !== undefined), 'every initialize answered');
  const session = (await h.hub.call('snapshot', undefined)).sessions[0]!;
  await waitFor(async () => (await h.hub.call('models.list', { sessionId: session.id }))[0]!.fetchedAt !== null, { message: 'models known' });
  const asked = pi.received.filter((m) => m.method === 'listSuggestionModels').length;
  assert.ok(asked >= 1 && asked <= 2, `asked ${asked} times`);
});

test('huge string ids and method names are cut short in the traffic log', async (t) => {
  const h = await harness(t);
  const pi = await h.pi(await h.folder('ids'));
  const huge = 'i'.repeat(1024 * 1024);
  const answers = await Promise.all(Array.from({ length: 5 }, (_, n) => {
    pi.rpc.send({ jsonrpc: '2.0', id: `${huge}${n}`, method: `x/${huge}` });
    return waitFor(() => pi.received.find((m) => m.id === `${huge}${n}`), { message: `answer ${n}`, timeoutMs: 10_000 });
  }));
  assert.equal(answers.length, 5);
  const session = (await h.hub.call('snapshot', undefined)).sessions[0]!;
  const traffic = await h.hub.call('traffic', { sessionId: session.id });
  const withHugeId = traffic.filter((e) => typeof e.id === 'string' && e.id.startsWith('iii'));
  assert.ok(withHugeId.length >= 10, 'requests and answers are logged');
  for (const entry of withHugeId) {
    assert.ok((entry.id as string).length <= 101, `id kept at ${(entry.id as string).length} characters`);
    assert.ok((entry.method ?? '').length <= 101);
    assert.ok(entry.preview.length <= 401);
    assert.ok(entry.bytes > 1024 * 1024, 'the size is still the real one');
  }
});

test('requests over the pending limit are refused (a diff as DIFF_REJECTED) and logged a few times, not once each', async (t) => {
  const h = await harness(t, { maxPendingPerSession: 2 });
  const folder = await h.folder('limit');
  const pi = await h.pi(folder);
  const held = [pi.write(join(folder, 'a.txt'), 'a'), pi.write(join(folder, 'b.txt'), 'b')];
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.length === 2, { message: 'two diffs holding the limit' });
  const refused = await Promise.all(Array.from({ length: 300 }, () => pi.rpc.call('tools/call', { name: 'getDiagnostics', arguments: {} })));
  assert.ok(refused.every((r) => r.error?.code === -32000), 'each refused with TOO_MANY_REQUESTS');
  assert.equal((await pi.write(join(folder, 'c.txt'), 'c')).outcome, 'rejected', 'a diff over the limit is rejected, never an error');
  const lines = h.logs.filter((line) => line.includes('more than 2 requests pending'));
  assert.ok(lines.length >= 1 && lines.length <= 3, `${lines.length} log lines for 301 refusals`);
  for (const diff of (await h.hub.call('snapshot', undefined)).diffs) await h.hub.call('diffs.reject', { id: diff.id });
  await Promise.all(held);
});
