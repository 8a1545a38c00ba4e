import assert from 'node:assert/strict';
import { mkdir, stat, writeFile } from 'node:fs/promises';
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
  assert.deepEqual(await scanLockDir(join(root, 'missing'), 'claude', { maxBytes: 65536 }), { entries: [], invalid: [] });
});

test('the watcher creates a missing lock dir as 0700', async (t) => {
  const dir = join(root, 'created', 'ide');
  const watcher = new LockDirWatcher(dir, { pollMs: 1000, onChange: () => {} });
  t.after(() => watcher.close());
  await watcher.start();
  assert.equal((await stat(dir)).mode & 0o777, 0o700);
});

test('a new lockfile is noticed by the watcher within about 100 ms', async (t) => {
  const dir = join(root, 'fast');
  let changes = 0;
  // Polling is slow here so only fs.watch can be this quick.
  const watcher = new LockDirWatcher(dir, { pollMs: 5000, onChange: () => changes++ });
  t.after(() => watcher.close());
  await watcher.start();
  const started = performance.now();
  await writeLock(dir, 4800, lockBody(100, 'x'));
  await waitFor(() => changes > 0, { message: 'a change event' });
  const elapsed = performance.now() - started;
  t.diagnostic(`new lockfile noticed after ${elapsed.toFixed(1)} ms (fs.watch active: ${watcher.watching})`);
  assert.ok(elapsed < 150, `took ${elapsed} ms`);
});

test('a burst of changes is reported once after the debounce', async (t) => {
  const dir = join(root, 'burst');
  let changes = 0;
  const watcher = new LockDirWatcher(dir, { pollMs: 5000, debounceMs: 100, onChange: () => changes++ });
  t.after(() => watcher.close());
  await watcher.start();
  await Promise.all([1, 2, 3, 4, 5].map((i) => writeLock(dir, 4900 + i, lockBody(100, 'x'))));
  await waitFor(() => changes > 0, { message: 'a change event' });
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.equal(changes, 1);
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

test('a closed watcher reports nothing more, and closing twice is fine', async () => {
  const dir = join(root, 'closed');
  let changes = 0;
  const watcher = new LockDirWatcher(dir, { pollMs: 20, onChange: () => changes++ });
  await watcher.start();
  watcher.close();
  watcher.close();
  await writeLock(dir, 5100, lockBody(100, 'x'));
  await new Promise((resolve) => setTimeout(resolve, 80));
  assert.equal(changes, 0);
  assert.equal(watcher.watching, false);
});
