// Files Patchbay reads on others' behalf: bounded whatever they claim, regular files only.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, open, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { inKernelDir, readBounded, readUpTo } from '../../src/fs/bounded-read.ts';
import { tempDir, withTimeout, type TempDir, WAIT_MS } from '../peers/wait.ts';

let dir: TempDir;
before(async () => {
  dir = await tempDir('bounded-read');
});
after(() => dir.cleanup());

test('a file within the cap is read whole; one byte over is too large', async () => {
  const path = join(dir.path, 'a.txt');
  await writeFile(path, 'x'.repeat(100));
  const read = await readBounded(path, 100);
  assert.equal(read.kind, 'bytes');
  assert.equal(read.kind === 'bytes' && read.bytes.toString(), 'x'.repeat(100));
  assert.equal((await readBounded(path, 99)).kind, 'too-large');
});

test('reading stops one byte past the cap even when the file claims to be empty (as kernel files do)', async () => {
  const path = join(dir.path, 'big.bin');
  await writeFile(path, Buffer.alloc(300_000, 7));
  const handle = await open(path, 'r');
  try {
    assert.equal(await readUpTo(handle, 200_000, 0), null, 'over the cap');
    const all = await readUpTo(handle, 300_000, 0);
    assert.equal(all?.length, 300_000, 'grown from a small first read to the whole file');
    assert.equal((await readUpTo(handle, 300_000, 10))?.length, 300_000, 'a size that is too small is only a hint');
  } finally {
    await handle.close();
  }
});

test('a missing file, or one under a missing folder, is missing', async () => {
  assert.deepEqual(await readBounded(join(dir.path, 'nope'), 10), { kind: 'missing' });
  assert.deepEqual(await readBounded(join(dir.path, 'no', 'such'), 10), { kind: 'missing' });
});

test('a FIFO is refused at once, not waited on', { skip: process.platform === 'win32' }, async () => {
  const path = join(dir.path, 'fifo');
  assert.equal(spawnSync('mkfifo', [path]).status, 0);
  assert.deepEqual(await withTimeout(readBounded(path, 10), WAIT_MS, 'a FIFO'), { kind: 'refused', why: 'it is a FIFO' });
});

test('a directory is refused', async () => {
  const path = join(dir.path, 'sub');
  await mkdir(path);
  assert.deepEqual(await readBounded(path, 10), { kind: 'refused', why: 'it is a directory' });
});

test('kernel files are refused, also through a symlink, naming where they really are', { skip: process.platform !== 'linux' }, async () => {
  const link = join(dir.path, 'env');
  await symlink('/proc/self/environ', link);
  const read = await readBounded(link, 1024 * 1024);
  assert.equal(read.kind, 'refused');
  assert.match(read.kind === 'refused' ? read.why : '', /kernel file \(\/proc\/\d+\/environ\)/);
});

test('with noFollow a symlink is refused; without, it is followed', async () => {
  const target = join(dir.path, 'target.txt');
  await writeFile(target, 'hi');
  const link = join(dir.path, 'link.txt');
  await symlink(target, link);
  assert.deepEqual(await readBounded(link, 10, { noFollow: true }), { kind: 'refused', why: 'it is a symlink' });
  assert.equal((await readBounded(link, 10)).kind, 'bytes');
});

test('/proc and /sys are kernel dirs, as written; look-alikes are not', () => {
  for (const path of ['/proc', '/proc/self/environ', '/sys', '/sys/kernel']) assert.equal(inKernelDir(path), true, path);
  for (const path of ['/process', '/system/x', '/home/proc', '/tmp/sys']) assert.equal(inKernelDir(path), false, path);
});
