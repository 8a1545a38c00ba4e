// Patchbay's home is trusted only when it is the user's own: another user's home (or a file
// they put in it) could name a program for Patchbay to run, a server for the CLI to talk to,
// or block the start with a fake "already running".
import assert from 'node:assert/strict';
import { chmod, chown, mkdir, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkHome, checkHomeDir } from '../../src/fs/home-check.ts';
import { tempDir } from '../peers/wait.ts';

/** Another user: nobody (as the discovery tests use; we run as root, so chown works). */
const OTHER = 65534;
const ME = process.getuid!();
const skip = ME !== 0 ? 'needs root to make files another user owns' : false;

async function home(t: { after(fn: () => Promise<void>): void }) {
  const dir = await tempDir('home-check');
  t.after(() => dir.cleanup());
  const path = join(dir.path, 'home');
  await mkdir(path, { mode: 0o700 });
  return { dir, path };
}

test('a missing home is created, private; one of your own passes', async (t) => {
  const dir = await tempDir('home-check');
  t.after(() => dir.cleanup());
  const path = join(dir.path, 'a', 'home');
  await checkHome(path);
  assert.equal((await stat(path)).mode & 0o777, 0o700);
  await writeFile(join(path, 'config.json'), '{}', { mode: 0o600 });
  await mkdir(join(path, 'history'), { mode: 0o700 });
  await writeFile(join(path, 'history', 'index.json'), '{}', { mode: 0o600 });
  await checkHome(path);
  await checkHomeDir(path);
});

test('a home another user owns is refused, saying whose it is and what to do', { skip }, async (t) => {
  const { path } = await home(t);
  await chown(path, OTHER, OTHER);
  const expected = new RegExp(`^Patchbay's home ${path} belongs to uid ${OTHER}, not to you \\(uid ${ME}\\).*PATCHBAY_HOME`);
  await assert.rejects(checkHome(path), { message: expected });
  await assert.rejects(checkHomeDir(path), { message: expected });
});

test('a home others may write is refused, with the chmod that fixes it', async (t) => {
  const { path } = await home(t);
  await chmod(path, 0o777);
  await assert.rejects(checkHome(path), { message: new RegExp(`^Patchbay's home ${path} can be written by its group and others \\(mode 777\\).*chmod go-w ${path}`) });
  await chmod(path, 0o770);
  await assert.rejects(checkHomeDir(path), { message: /can be written by its group \(mode 770\)/ });
});

test('a home that is a symlink another user made is refused, even to a folder of yours', { skip }, async (t) => {
  const { dir, path } = await home(t);
  const link = join(dir.path, 'link');
  await symlink(path, link);
  await checkHome(link);
  const { lchown } = await import('node:fs/promises');
  await lchown(link, OTHER, OTHER);
  await assert.rejects(checkHome(link), { message: new RegExp(`${link} is a symlink that belongs to uid ${OTHER}`) });
});

for (const [name, make] of [
  ['config.json', (p: string) => writeFile(p, '{"settings":{"piCommand":"/tmp/evil"}}', { mode: 0o600 })],
  ['control.json', (p: string) => writeFile(p, '{}', { mode: 0o600 })],
  ['browser.json', (p: string) => writeFile(p, '{}', { mode: 0o600 })],
  ['history', (p: string) => mkdir(p, { mode: 0o700 })],
  ['history/index.json', async (p: string) => {
    await mkdir(join(p, '..'), { mode: 0o700 });
    await writeFile(p, '{}', { mode: 0o600 });
  }],
  ['sign-in', (p: string) => mkdir(p, { mode: 0o700 })],
  ['hosted-sessions.json', (p: string) => writeFile(p, '{"sessions":[]}', { mode: 0o600 })],
  ['pending.json', (p: string) => writeFile(p, '[]', { mode: 0o600 })],
] as const) {
  test(`${name} put in your home by another user is refused, naming it`, { skip }, async (t) => {
    const { path } = await home(t);
    const entry = join(path, name);
    await make(entry);
    await chown(entry, OTHER, OTHER);
    await assert.rejects(checkHome(path), { message: new RegExp(`^${entry} belongs to uid ${OTHER}, not to you \\(uid ${ME}\\).*rm `) });
  });

  test(`${name} that others may write is refused, with the chmod that fixes it`, async (t) => {
    const { path } = await home(t);
    const entry = join(path, name);
    await make(entry);
    await chmod(entry, 0o666 | ((await stat(entry)).isDirectory() ? 0o111 : 0));
    await assert.rejects(checkHome(path), { message: new RegExp(`^${entry} can be written by its group and others .*chmod go-w ${entry}`) });
  });
}

test('a patchbay.sock another user listens on is refused before anything asks it who it is', { skip }, async (t) => {
  const { path } = await home(t);
  const socket = join(path, 'patchbay.sock');
  const fake = createServer((s) => s.end('{"pid":1,"kind":"daemon"}\n')).listen(socket);
  await new Promise((r) => fake.once('listening', r));
  t.after(() => new Promise((r) => fake.close(r)));
  await chown(socket, OTHER, OTHER);
  await assert.rejects(checkHome(path), { message: new RegExp(`^${socket} belongs to uid ${OTHER}`) });
});
