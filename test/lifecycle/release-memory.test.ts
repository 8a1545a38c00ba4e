import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fullCollection, MemoryRelease, RELEASE_MIN_BYTES } from '../../src/lifecycle/release-memory.ts';
import { waitFor } from '../peers/wait.ts';

const MiB = 1024 * 1024;

test('a burst of big decided diffs is collected once, after the traffic has been quiet for a while', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let collections = 0;
  const release = new MemoryRelease(() => collections++, 1000);
  t.after(() => release.dispose());
  for (let i = 0; i < 5; i++) {
    release.noteGarbage(30 * MiB);
    t.mock.timers.tick(400); // the next diff comes before the quiet time is over
  }
  assert.equal(collections, 0, 'no collection while big diffs keep coming');
  t.mock.timers.tick(600);
  assert.equal(collections, 1, 'one collection once they stopped');
  t.mock.timers.tick(5000);
  assert.equal(collections, 1, 'and no more without new garbage');
});

test('small decided diffs are left to V8 until together they leave a MiB behind', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let collections = 0;
  const release = new MemoryRelease(() => collections++, 1000);
  t.after(() => release.dispose());
  const each = RELEASE_MIN_BYTES / 4;
  for (let i = 0; i < 3; i++) release.noteGarbage(each);
  t.mock.timers.tick(5000);
  assert.equal(collections, 0);
  release.noteGarbage(each);
  t.mock.timers.tick(1000);
  assert.equal(collections, 1);
});

test('a disposed release collects nothing', (t) => {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let collections = 0;
  const release = new MemoryRelease(() => collections++, 1000);
  release.noteGarbage(30 * MiB);
  release.dispose();
  t.mock.timers.tick(5000);
  assert.equal(collections, 0);
});

test('the full collection frees what nothing holds any more', async () => {
  const collect = fullCollection();
  const dropped = ((): WeakRef<Buffer> => new WeakRef(Buffer.alloc(4 * MiB)))();
  // V8 alone would not collect it soon: nothing else allocates here.
  await waitFor(
    () => {
      collect();
      return dropped.deref() === undefined;
    },
    { timeoutMs: 5000, intervalMs: 50, message: 'the dropped buffer to be collected' },
  );
});
