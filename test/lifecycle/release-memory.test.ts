import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fullCollection, MemoryRelease, RELEASE_MIN_BYTES, type After } from '../../src/lifecycle/release-memory.ts';
import { waitFor } from '../peers/wait.ts';

const MiB = 1024 * 1024;

/** A clock moved by hand and a relay whose traffic the test makes: no real time passes. */
function scene() {
  let now = 0;
  let timers: { at: number; fn: () => void }[] = [];
  const after: After = (ms, fn) => {
    const timer = { at: now + ms, fn };
    timers.push(timer);
    return { dispose: () => (timers = timers.filter((t) => t !== timer)) };
  };
  const relay = { frames: 0, inFlight: 0 };
  const collectedAt: number[] = [];
  const release = new MemoryRelease(() => collectedAt.push(now), { frames: () => relay.frames, busy: () => relay.inFlight > 0 }, 1000, after);
  const tick = (ms: number): void => {
    const until = now + ms;
    for (let next = timers.find((t) => t.at <= until); next; next = timers.sort((a, b) => a.at - b.at).find((t) => t.at <= until)) {
      timers = timers.filter((t) => t !== next);
      now = next.at;
      next.fn();
    }
    now = until;
  };
  return { release, relay, tick, collections: () => collectedAt.length, collectedAt, armed: () => timers.length };
}

test('big decided diffs are collected once the relay has been idle for the quiet interval', () => {
  const { release, relay, tick, collections, collectedAt, armed } = scene();
  for (let i = 0; i < 5; i++) {
    relay.frames += 3; // the openDiff, its answer, close_tab
    release.noteGarbage(30 * MiB);
    tick(400);
  }
  assert.equal(collections(), 0, 'none while the burst goes on');
  tick(2000);
  assert.deepEqual(collectedAt, [3000], 'one collection for the whole burst, a whole idle interval after its last frame (1600)');
  tick(5000);
  assert.equal(collections(), 1, 'and no more without new garbage');
  assert.equal(armed(), 0, 'nothing left waiting');
});

test('no collection pauses calls still flowing after big diffs: it waits until a whole interval passes without a frame', () => {
  const { release, relay, tick, collections, collectedAt } = scene();
  release.noteGarbage(30 * MiB);
  // An agent's getDiagnostics keep coming (pi-ide asks before every model call), the last at 4900 ms.
  for (let ms = 0; ms < 5000; ms += 100) {
    relay.frames += 2;
    tick(100);
  }
  assert.equal(collections(), 0, 'not while frames arrive');
  tick(2000);
  assert.equal(collections(), 1, 'once the calls stopped');
  assert.ok(collectedAt[0]! >= 4900 + 1000, `a whole interval after the last frame, not at ${collectedAt[0]} ms`);
});

test('a request on its way holds the collection back even when no frame arrives', () => {
  const { release, relay, tick, collections } = scene();
  release.noteGarbage(30 * MiB);
  relay.inFlight = 1; // asked of a slow editor, not answered yet
  tick(3000);
  assert.equal(collections(), 0);
  relay.inFlight = 0;
  relay.frames++; // the answer
  tick(1000);
  assert.equal(collections(), 0, 'the answer was traffic');
  tick(1000);
  assert.equal(collections(), 1);
});

test('small decided diffs are left to V8 until together they leave a MiB behind', () => {
  const { release, tick, collections } = scene();
  const each = RELEASE_MIN_BYTES / 4;
  for (let i = 0; i < 3; i++) release.noteGarbage(each);
  tick(5000);
  assert.equal(collections(), 0);
  release.noteGarbage(each);
  tick(1000);
  assert.equal(collections(), 1);
});

test('a disposed release collects nothing', () => {
  const { release, tick, collections, armed } = scene();
  release.noteGarbage(30 * MiB);
  release.dispose();
  tick(5000);
  assert.equal(collections(), 0);
  assert.equal(armed(), 0);
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
    { intervalMs: 50, message: 'the dropped buffer to be collected' },
  );
});
