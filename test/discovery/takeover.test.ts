import assert from 'node:assert/strict';
import { chmod, lstat, mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  adoptLockfile,
  isOtherPatchbay,
  listAdopted,
  removeDeadDoors,
  removeFile,
  restoreAdopted,
  writeDoorLockfile,
} from '../../src/discovery/takeover.ts';
import { readLockfile, type LockEntry, type Lockfile } from '../../src/protocol/lockfile.ts';
import { deadPid, lockBody, spawnLive, writeLock, type LiveProcess } from './helpers.ts';
import { tempDir } from '../peers/wait.ts';

let root: string;
let cleanup: () => Promise<void>;
let live: LiveProcess;
let dead: number;
before(async () => {
  ({ path: root, cleanup } = await tempDir('takeover'));
  live = await spawnLive();
  dead = await deadPid();
});
after(async () => {
  await live.kill();
  await cleanup();
});

async function freshDir(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

async function entryAt(path: string): Promise<LockEntry> {
  const result = await readLockfile(path, 'pi', 65536);
  assert.ok(result.ok, `unreadable ${path}`);
  return result.entry;
}

const isAlive = (pid: number) => pid === live.pid;
const doorLock = (token: string): Lockfile => ({
  pid: process.pid,
  workspaceFolders: ['/a'],
  ideName: 'Patchbay',
  transport: 'ws',
  authToken: token,
});

test('adopting moves the lockfile into .patchbay/ as the same file, and restoring moves it back', async () => {
  const dir = await freshDir('adopt');
  const path = await writeLock(dir, 4711, lockBody(live.pid, 'tok'));
  const before = await stat(path);

  const adopted = await adoptLockfile(path, dir);
  assert.equal(adopted, join(dir, '.patchbay', '4711.lock'));
  await assert.rejects(lstat(path), { code: 'ENOENT' });
  assert.equal((await stat(adopted)).ino, before.ino, 'a rename, not a copy');
  assert.equal((await stat(join(dir, '.patchbay'))).mode & 0o777, 0o700);
  assert.deepEqual(
    (await listAdopted(dir, 'pi')).entries.map((e) => [e.port, e.dir, e.path]),
    [[4711, dir, adopted]],
  );

  const report = await restoreAdopted(dir, 'pi', isAlive);
  assert.deepEqual(report, { restored: [path], removed: [], warnings: [] });
  assert.equal((await stat(path)).ino, before.ino);
  assert.deepEqual(await readdir(dir), ['4711.lock'], 'the emptied .patchbay/ goes too');
});

test('restoring deletes the adopted files of dead editors', async () => {
  const dir = await freshDir('dead');
  const adopted = await adoptLockfile(await writeLock(dir, 4712, lockBody(dead, 'tok')), dir);
  const report = await restoreAdopted(dir, 'pi', isAlive);
  assert.deepEqual(report, { restored: [], removed: [adopted], warnings: [] });
  assert.deepEqual(await readdir(dir), []);
});

test('restoring never overwrites a lockfile the editor wrote meanwhile', async () => {
  const dir = await freshDir('newer');
  const adopted = await adoptLockfile(await writeLock(dir, 4713, lockBody(live.pid, 'old-token')), dir);
  const newer = await writeLock(dir, 4713, lockBody(live.pid, 'new-token'));
  const report = await restoreAdopted(dir, 'pi', isAlive);
  assert.deepEqual(report, { restored: [], removed: [adopted], warnings: [] });
  assert.equal(JSON.parse(await readFile(newer, 'utf8')).authToken, 'new-token');
  await assert.rejects(lstat(adopted), { code: 'ENOENT' });
});

test('the door lockfile is 0600 in a 0700 dir it creates', async () => {
  const dir = join(root, 'door-new', 'ide');
  const path = await writeDoorLockfile(dir, 6000, doorLock('door-token'));
  assert.equal(path, join(dir, '6000.lock'));
  assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.equal((await stat(dir)).mode & 0o777, 0o700);
  assert.equal((await entryAt(path)).lock.authToken, 'door-token');
  assert.deepEqual(await readdir(dir), ['6000.lock'], 'no temp file left behind');
});

test("the door lockfile leaves a pre-existing dir's mode alone", async () => {
  const dir = await freshDir('door-existing');
  await chmod(dir, 0o755);
  await writeDoorLockfile(dir, 6001, doorLock('t'));
  assert.equal((await stat(dir)).mode & 0o777, 0o755);
});

test('a symlink planted at the door path is replaced, and its target is not written', async () => {
  const dir = await freshDir('door-symlink');
  const victim = join(root, 'victim.txt');
  await writeFile(victim, 'precious');
  await symlink(victim, join(dir, '6002.lock'));
  const path = await writeDoorLockfile(dir, 6002, doorLock('t'));
  assert.equal(await readFile(victim, 'utf8'), 'precious');
  assert.ok((await lstat(path)).isFile());
  assert.equal((await entryAt(path)).lock.ideName, 'Patchbay');
});

test('removing a file that is already gone is fine', async () => {
  await removeFile(join(root, 'never-existed.lock'));
  const path = await writeLock(await freshDir('remove'), 4714, 'x');
  await removeFile(path);
  await assert.rejects(lstat(path), { code: 'ENOENT' });
});

test('another Patchbay is one with a live pid that is not ours', () => {
  const door = (pid: number) => ({ pid, workspaceFolders: [], ideName: 'Patchbay', transport: 'ws' as const, authToken: 't' });
  const alive = (pid: number) => pid === live.pid || pid === process.pid;
  assert.equal(isOtherPatchbay(door(live.pid), process.pid, alive), true);
  assert.equal(isOtherPatchbay(door(process.pid), process.pid, alive), false);
  assert.equal(isOtherPatchbay(door(dead), process.pid, alive), false);
  assert.equal(isOtherPatchbay({ ...door(live.pid), ideName: 'Neovim' }, process.pid, alive), false);
  // A door naming an editor's pid belongs to the Patchbay in `patchbayPid`.
  assert.equal(isOtherPatchbay({ ...door(live.pid), patchbayPid: process.pid }, process.pid, alive), false);
  assert.equal(isOtherPatchbay({ ...door(process.pid), patchbayPid: dead }, process.pid, alive), false);
  assert.equal(isOtherPatchbay({ ...door(process.pid), patchbayPid: live.pid }, process.pid, alive), true);
});

test('a dead Patchbay’s doors are removed, those naming a live editor’s pid too; a live one’s stay', async () => {
  const dir = await freshDir('dead-doors');
  const deadMain = await writeLock(dir, 4801, lockBody(dead, 't', ['/a'], 'Patchbay'));
  const deadTerminal = await writeLock(dir, 4802, { ...lockBody(live.pid, 't', ['/a'], 'Patchbay'), patchbayPid: dead });
  const liveTerminal = await writeLock(dir, 4803, { ...lockBody(dead, 't', ['/a'], 'Patchbay'), patchbayPid: live.pid });
  const editor = await writeLock(dir, 4804, lockBody(live.pid, 't'));
  const alive = (pid: number) => pid === live.pid;
  assert.deepEqual((await removeDeadDoors(dir, 'claude', alive)).sort(), [deadMain, deadTerminal].sort());
  assert.ok((await lstat(liveTerminal)).isFile());
  assert.ok((await lstat(editor)).isFile());
});
