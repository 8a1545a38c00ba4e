import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { readOriginal } from '../../src/review/read-original.ts';
import { tempDir, withTimeout, type TempDir, WAIT_MS } from '../peers/wait.ts';

let dir: TempDir;
before(async () => {
  dir = await tempDir('read-original');
});
after(() => dir.cleanup());

test('an existing file is read as the old side of the diff', async () => {
  const path = join(dir.path, 'a.txt');
  await writeFile(path, 'héllo\n');
  assert.deepEqual(await readOriginal(path, 1024), { contents: Buffer.from('héllo\n'), isNew: false, tooLarge: false });
});

test('a file that does not exist is a new file', async () => {
  assert.deepEqual(await readOriginal(join(dir.path, 'missing.txt'), 1024), { contents: null, isNew: true, tooLarge: false });
});

test('a path below a missing folder is a new file', async () => {
  assert.deepEqual(await readOriginal(join(dir.path, 'no', 'such', 'dir', 'f.txt'), 1024), { contents: null, isNew: true, tooLarge: false });
});

test('a file over the size cap is too large, without its contents', async () => {
  const path = join(dir.path, 'big.txt');
  await writeFile(path, 'x'.repeat(101));
  assert.deepEqual(await readOriginal(path, 100), { contents: null, isNew: false, tooLarge: true });
});

test('a file exactly at the size cap is still shown', async () => {
  const path = join(dir.path, 'edge.txt');
  await writeFile(path, 'y'.repeat(100));
  assert.deepEqual(await readOriginal(path, 100), { contents: Buffer.from('y'.repeat(100)), isNew: false, tooLarge: false });
});

test('the cap counts bytes, not characters', async () => {
  const path = join(dir.path, 'wide.txt');
  await writeFile(path, 'é'.repeat(60)); // 120 bytes
  assert.equal((await readOriginal(path, 100)).tooLarge, true);
});

test('an empty file is an existing file with empty contents', async () => {
  const path = join(dir.path, 'empty.txt');
  await writeFile(path, '');
  assert.deepEqual(await readOriginal(path, 100), { contents: Buffer.alloc(0), isNew: false, tooLarge: false });
});

test('a directory is reviewed without an old side and is not a new file', async () => {
  const path = join(dir.path, 'sub');
  await mkdir(path);
  assert.deepEqual(await readOriginal(path, 1024), { contents: null, isNew: false, tooLarge: false, unreadable: 'it is a directory' });
});

test('a FIFO does not hang the review', { skip: process.platform === 'win32' }, async () => {
  const path = join(dir.path, 'pipe');
  const made = spawnSync('mkfifo', [path]);
  assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
  assert.deepEqual(await withTimeout(readOriginal(path, 1024), WAIT_MS, 'readOriginal on a FIFO'), {
    contents: null,
    isNew: false,
    tooLarge: false,
    unreadable: 'it is a FIFO',
  });
});

test('a symlink into /proc is not read: the review never shows the daemon’s environment', { skip: process.platform !== 'linux' }, async () => {
  const path = join(dir.path, 'environ-link');
  await symlink('/proc/self/environ', path);
  assert.deepEqual(await readOriginal(path, 1024 * 1024), { contents: null, isNew: false, tooLarge: false, unreadable: `it is a kernel file (/proc/${process.pid}/environ)` });
});

test('a kernel file that says it is empty is not read to its end (/proc/self/pagemap is hundreds of MiB)', { skip: process.platform !== 'linux' }, async () => {
  const path = join(dir.path, 'pagemap-link');
  await symlink('/proc/self/pagemap', path);
  const before = process.memoryUsage().rss;
  assert.deepEqual(await withTimeout(readOriginal(path, 1024 * 1024), WAIT_MS, 'readOriginal of pagemap'), {
    contents: null,
    isNew: false,
    tooLarge: false,
    unreadable: `it is a kernel file (/proc/${process.pid}/pagemap)`,
  });
  assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'no more than the cap was read');
});

test('a file Patchbay may not read is reviewed without an old side, saying so', { skip: process.getuid?.() === 0 ? 'root reads every file' : process.platform === 'win32' }, async () => {
  const path = join(dir.path, 'locked.txt');
  await writeFile(path, 'secret\n', { mode: 0o000 });
  assert.deepEqual(await readOriginal(path, 1024), { contents: null, isNew: false, tooLarge: false, unreadable: 'Patchbay may not read it' });
});
