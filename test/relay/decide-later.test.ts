// A person's decision waits a few seconds in the hub before the agent hears it (the review's Undo):
// every face sees the same thing meanwhile, and nothing is lost if the page that made it closes.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { formatStatus } from '../../src/cli/format.ts';
import { pendingCount } from '../../electron/shared/diff-notifications.ts';
import { waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';
import { startHarness, type Harness } from './harness.ts';

async function oneWaiting(h: Harness, name: string) {
  const folder = await h.folder(name);
  const pi = await h.pi(folder);
  const writing = pi.write(join(folder, 'a.txt'), 'new\n');
  const [diff] = await waitFor(async () => {
    const diffs = (await h.hub.call('snapshot', undefined)).diffs;
    return diffs.length === 1 && diffs;
  });
  return { pi, writing, id: diff!.id };
}

const words = { batch: 'b1', verb: 'Accepting', what: 'a.txt' };

test('a decision made a moment ago is shown as on its way everywhere, and reaches the agent when its time is up', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const { writing, id } = await oneWaiting(h, 'later');
  const listed = await h.hub.call('diffs.decideLater', { id, outcome: 'accept', graceMs: 300, ...words });
  assert.equal(listed.deciding?.outcome, 'accept');
  const snapshot = await h.hub.call('snapshot', undefined);
  assert.equal(pendingCount(snapshot), 0, 'the badge no longer counts it');
  assert.match(formatStatus(snapshot, '127.0.0.1'), /Pending diffs: 0 \(and 1 decided, on its way to the agent\)/);
  assert.equal((await withTimeout(writing, WAIT_MS, 'the agent hearing it')).outcome, 'saved');
  assert.equal((await h.hub.call('snapshot', undefined)).history[0]?.status, 'accepted');
});

test('a decision taken back before its time leaves the diff waiting, and the agent hears nothing', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const { writing, id } = await oneWaiting(h, 'back');
  await h.hub.call('diffs.decideLater', { id, outcome: 'reject', graceMs: 200, ...words });
  assert.deepEqual(await h.hub.call('diffs.takeBack', { ids: [id] }), [id]);
  await new Promise((resolve) => setTimeout(resolve, 400));
  const [diff] = (await h.hub.call('snapshot', undefined)).diffs;
  assert.equal(diff?.status, 'pending');
  assert.equal(diff?.deciding, undefined);
  let heard = false;
  void writing.then(() => (heard = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(heard, false);
  const [record] = await h.hub.call('diffs.sendNow', { ids: [id] });
  assert.equal(record, undefined, 'nothing was waiting any more');
  await h.hub.call('diffs.accept', { id });
  assert.equal((await writing).outcome, 'saved');
});

test('a decision refused by the hub (a change the proposal lacks) is refused at once, not when its time is up', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const { id } = await oneWaiting(h, 'refused');
  await assert.rejects(h.hub.call('diffs.decideLater', { id, outcome: 'accept', changes: [9], graceMs: 200, ...words }), /no change 9/);
});

test('stopping Patchbay sends the decisions still waiting instead of rejecting them', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const { writing, id } = await oneWaiting(h, 'stop');
  await h.hub.call('diffs.decideLater', { id, outcome: 'accept', graceMs: 60_000, ...words });
  await h.hub.close();
  assert.equal((await writing).outcome, 'saved');
});
