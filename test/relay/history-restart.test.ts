// History you can open: decided diffs keep their contents and survive a restart; ids go on.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { createHub } from '../../src/hub.ts';
import { FakePiClient } from '../peers/fake-pi.ts';
import { waitFor } from '../peers/wait.ts';
import { startHarness } from './harness.ts';

test('a decided diff opens after the daemon restarts, with proposal, written contents and who decided; diff and session ids do not restart', async (t) => {
  const h = await startHarness();
  // Closed last to first: the harness removes the folders the second hub still writes to.
  const closers: Array<() => Promise<unknown>> = [() => h.close()];
  t.after(async () => {
    for (const close of closers.reverse()) await close();
  });
  const folder = await h.folder('inventory');
  const file = join(folder, 'inventory.py');
  await writeFile(file, 'stock = {}\n');
  const pi = await h.pi(folder);
  const writing = pi.write(file, 'stock = {"apples": 3}\n');
  const [pending] = await waitFor(async () => {
    const diffs = (await h.hub.call('snapshot', undefined)).diffs;
    return diffs.length === 1 && diffs;
  });
  await h.hub.call('diffs.accept', { id: pending!.id, contents: 'stock = {"apples": 4}\n' });
  assert.equal((await writing).outcome, 'saved');
  const before = await h.hub.call('diffs.get', { id: pending!.id });
  assert.equal(before.status, 'accepted');
  assert.equal(before.finalContents, 'stock = {"apples": 4}\n');
  await pi.close();
  await h.hub.close();

  const again = await createHub(h.options, { lookupPeer: async () => null });
  closers.push(() => again.close());
  const snapshot = await again.call('snapshot', undefined);
  assert.equal(snapshot.history[0]!.id, pending!.id);
  assert.equal(snapshot.history[0]!.by, 'patchbay');
  assert.equal(snapshot.history[0]!.edited, true);
  const detail = await again.call('diffs.get', { id: pending!.id });
  assert.equal(detail.oldContents, 'stock = {}\n');
  assert.equal(detail.newContents, 'stock = {"apples": 3}\n');
  assert.equal(detail.finalContents, 'stock = {"apples": 4}\n');
  assert.equal(detail.decision!.agent, 'pi-ide');
  await assert.rejects(again.call('diffs.get', { id: 'd999' }), /no diff d999 \(nothing is pending; the history keeps the latest 200 decisions\)/);

  const token = (again as unknown as { tokens: { pi: string } }).tokens.pi;
  const next = await FakePiClient.connect({ cwd: folder, port: again.doorPort, authToken: token });
  closers.push(() => next.close());
  void next.write(file, 'stock = {"pears": 1}\n').catch(() => {});
  const [fresh] = await waitFor(async () => {
    const diffs = (await again.call('snapshot', undefined)).diffs;
    return diffs.length === 1 && diffs;
  });
  assert.equal(Number(fresh!.id.slice(1)), Number(pending!.id.slice(1)) + 1, `${fresh!.id} follows ${pending!.id}`);
  // The new run's session is not called by the name of one its history already speaks of.
  const earlier = snapshot.history[0]!.sessionId;
  assert.equal(Number(fresh!.sessionId.slice(1)), Number(earlier.slice(1)) + 1, `${fresh!.sessionId} follows ${earlier}`);
});
