import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { LockDirWatcher, scanLockDir } from '../../src/discovery/lock-dir.ts';
import { lockBody, writeLock } from './helpers.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

let root: string;
let cleanup: () => Promise<void>;
before(async () => ({ path: root, cleanup } = await tempDir('lockdir')));
after(() => cleanup());

test('a scan lists good lockfiles and bad ones with reasons, skipping .patchbay/ and temp files', async () => {
  const dir = join(root, 'scan');
  await mkdir(join(dir, '.patchbay'), { recursive: true });
  await writeLock(dir, 4711, lockBody(100, 'a'));
  await writeLock(dir, 4712, '{garbage');
  await writeLock(join(dir, '.patchbay'), 4713, lockBody(101, 'b'));
  await writeFile(join(dir, '.4714.lock.abcdef.tmp'), 'partial');
  await writeFile(join(dir, '.4715.lock'), JSON.stringify(lockBody(102, 'c')));
  await writeFile(join(dir, 'notes.txt'), 'hello');

  const { entries, invalid } = await scanLockDir(dir, 'pi', { maxBytes: 65536 });
  assert.deepEqual(
    entries.map((e) => [e.port, e.lock.pid, e.dialect]),
    [[4711, 100, 'pi']],
  );
  assert.equal(invalid.length, 1);
  assert.equal(invalid[0]!.path, join(dir, '4712.lock'));
  assert.match(invalid[0]!.reason, /^not JSON/);
});

test('scanning a lock dir that does not exist finds nothing', async () => {
  assert.deepEqual(await scanLockDir(join(root, 'missing'), 'claude', { maxBytes: 65536 }), {
    entries: [],
    invalid: [],
    others: [],
    unreadable: [],
    unlisted: null,
  });
});

test('the watcher creates a missing lock dir as 0700', async (t) => {
  const dir = join(root, 'created', 'ide');
  const watcher = new LockDirWatcher(dir, { pollMs: 1000, onChange: () => {} });
  t.after(() => watcher.close());
  await watcher.start();
  assert.equal((await stat(dir)).mode & 0o777, 0o700);
});

test('a new lockfile is noticed by fs.watch, long before the next poll', async (t) => {
  const dir = join(root, 'fast');
  let changes = 0;
  // Polling every 10 s: a change seen within 5 s came from fs.watch, however loaded the machine.
  const watcher = new LockDirWatcher(dir, { pollMs: 10_000, onChange: () => changes++ });
  t.after(() => watcher.close());
  await watcher.start();
  assert.equal(watcher.watching, true, 'fs.watch is active');
  const started = performance.now();
  await writeLock(dir, 4800, lockBody(100, 'x'));
  await waitFor(() => changes > 0, { message: 'a change event from fs.watch' });
  t.diagnostic(`new lockfile noticed after ${(performance.now() - started).toFixed(1)} ms`);
});

test('a burst of changes is reported once after the debounce', async (t) => {
  const dir = join(root, 'burst');
  let changes = 0;
  const watcher = new LockDirWatcher(dir, { pollMs: 10_000, debounceMs: 100, onChange: () => changes++ });
  t.after(() => watcher.close());
  await watcher.start();
  // Written in one go, so the events are all queued before the debounce timer can run.
  for (const i of [1, 2, 3, 4, 5]) writeFileSync(join(dir, `${4900 + i}.lock`), JSON.stringify(lockBody(100, 'x')));
  await waitFor(() => changes > 0, { message: 'a change event' });
  // One more change after the burst is the marker: when it is reported, the burst is over.
  writeFileSync(join(dir, '4999.lock'), JSON.stringify(lockBody(100, 'x')));
  await waitFor(() => changes > 1, { message: 'the marker change' });
  assert.equal(changes, 2, 'the burst made one report, the marker another');
});

test('polling catches changes fs.watch does not report (inside .patchbay/)', async (t) => {
  const dir = join(root, 'poll');
  await mkdir(join(dir, '.patchbay'), { recursive: true });
  let changes = 0;
  const watcher = new LockDirWatcher(dir, { pollMs: 30, onChange: () => changes++ });
  t.after(() => watcher.close());
  await watcher.start();
  await writeLock(join(dir, '.patchbay'), 5000, lockBody(100, 'x'));
  await waitFor(() => changes > 0, { message: 'a polled change' });
});

test('a closed watcher reports nothing more, and closing twice is fine', async (t) => {
  const dir = join(root, 'closed');
  let changes = 0;
  const watcher = new LockDirWatcher(dir, { pollMs: 20, onChange: () => changes++ });
  await watcher.start();
  watcher.close();
  watcher.close();
  // A second watcher on the same dir is the marker: once it has seen the change and polled
  // twice more, the closed one had every chance to report it.
  let seen = 0;
  let polls = 0;
  const marker = new LockDirWatcher(dir, { pollMs: 20, debounceMs: 10, onChange: () => seen++ });
  t.after(() => marker.close());
  await marker.start();
  await writeLock(dir, 5100, lockBody(100, 'x'));
  await waitFor(() => seen > 0, { message: 'the marker watcher seeing the change' });
  const ticker = setInterval(() => polls++, 20);
  t.after(() => clearInterval(ticker));
  await waitFor(() => polls >= 3, { message: 'three poll intervals' });
  assert.equal(changes, 0);
  assert.equal(watcher.watching, false);
});

test('while fs.watch watches, the safety poll runs at its own slower pace', async (t) => {
  const dir = join(root, 'paced');
  await mkdir(join(dir, '.patchbay'), { recursive: true });
  let slowChanges = 0;
  const slow = new LockDirWatcher(dir, { pollMs: 20, watchedPollMs: 60_000, onChange: () => slowChanges++ });
  t.after(() => slow.close());
  await slow.start();
  assert.equal(slow.watching, true, 'fs.watch is active');
  // A marker polling every 20 ms while watching too: once it has seen the change inside
  // `.patchbay/` (which fs.watch does not report) and polled three times more, a watcher
  // polling at pollMs would have seen it as well.
  let seen = 0;
  const marker = new LockDirWatcher(dir, { pollMs: 20, watchedPollMs: 20, debounceMs: 10, onChange: () => seen++ });
  t.after(() => marker.close());
  await marker.start();
  await writeLock(join(dir, '.patchbay'), 5200, lockBody(100, 'x'));
  await waitFor(() => seen > 0, { message: 'the marker polling the change' });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 20);
  t.after(() => clearInterval(ticker));
  await waitFor(() => ticks >= 3, { message: 'three marker polls' });
  assert.equal(slowChanges, 0);
});

test('a watched lock dir removed and made again is watched again, without waiting for the slow poll', async (t) => {
  const dir = join(root, 'remade');
  let changes = 0;
  const watcher = new LockDirWatcher(dir, { pollMs: 60_000, watchedPollMs: 60_000, debounceMs: 10, onChange: () => changes++ });
  t.after(() => watcher.close());
  await watcher.start();
  // Made again at once: filesystems often give the new dir the old one's inode number.
  await rm(dir, { recursive: true });
  await mkdir(dir, { mode: 0o700 });
  await waitFor(() => changes > 0, { message: 'the removal reported' });
  // Noticed through a new watcher: every poll is a minute away.
  await waitFor(async () => {
    await writeLock(dir, 5300 + changes, lockBody(100, 'x'));
    const seen = changes;
    await new Promise((resolve) => setTimeout(resolve, 100));
    return changes > seen;
  }, { message: 'a lockfile in the new dir reported' });
  assert.equal(watcher.watching, true);
});
