// The daemon's terminal or reader goes away: `patchbay daemon 2>&1 | tee log` and Ctrl-C (the
// shell's SIGINT reaches tee too, so the reader is gone before the daemon says "stopping"), or
// the terminal window it runs in is closed (SIGHUP). It must still stop cleanly: a pi-ide whose
// link drops writes its pending edit unreviewed, and hidden lockfiles leave agents no editor.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import { waitFor } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, statusUntil } from './daemon-process.ts';

test('a daemon whose output reader went away (| tee, then Ctrl-C) still rejects the pending edit and restores the lockfiles', async (t) => {
  const { tmp, env, project } = await e2eFolder('daemon-output-gone');
  const peers: PeerProcess[] = [];
  t.after(async () => {
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });
  const editor = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']);
  peers.push(editor);
  const daemon = await startDaemon(env);
  t.after(() => daemon.stop('SIGKILL'));
  const adopted = join(env.piLockDir, '.patchbay', `${editor.ready.port}.lock`);
  await waitFor(() => existsSync(adopted), { message: 'the editor lockfile adopted' });

  const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
  peers.push(pi);
  const session = await statusUntil(env, (s) => s.sessions[0], 'the pi session');
  assert.equal((await cli(env, ['bind', session.id, 'none'])).code, 0);
  pi.send({ cmd: 'write', path: join(project, 'held.txt'), contents: 'proposed\n', tag: 'w1' });
  await statusUntil(env, (s) => s.diffs.length === 1, 'the edit held in Patchbay');

  // tee is gone: every later write of the daemon's meets a closed pipe (EPIPE).
  daemon.child.stdout!.destroy();
  daemon.child.stderr!.destroy();
  const stopped = await daemon.stop('SIGINT');

  const line = await pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result', { timeoutMs: 5000 });
  assert.equal((line.result as { outcome: string }).outcome, 'rejected', 'the agent heard a rejection, not a dropped link');
  assert.equal(existsSync(join(project, 'held.txt')), false, 'nothing written unreviewed');
  assert.deepEqual(stopped, { code: 0, signal: null });
  const locks = (await readdir(env.piLockDir)).filter((f) => f.endsWith('.lock'));
  assert.deepEqual(locks, [`${editor.ready.port}.lock`], 'the editor lockfile is back and the door is gone');
  assert.equal(JSON.parse(await readFile(join(env.piLockDir, locks[0]!), 'utf8')).ideName, 'nvim');
});

const BIN = fileURLToPath(new URL('../../src/cli/bin.mjs', import.meta.url));

test('closing the terminal a daemon runs in (SIGHUP) rejects the pending edit and restores the lockfiles', async (t) => {
  const { tmp, env, project } = await e2eFolder('daemon-hangup');
  const peers: PeerProcess[] = [];
  t.after(async () => {
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });
  const editor = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']);
  peers.push(editor);
  // util-linux script(1) gives the daemon a terminal of its own, as a terminal window does.
  const command = [process.execPath, BIN, 'daemon'].map((word) => `'${word}'`).join(' ');
  const terminal = spawn('script', ['-qfec', command, '/dev/null'], { env: env.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  t.after(() => void terminal.kill('SIGKILL'));
  await waitFor(() => output.includes(' running (pid '), { timeoutMs: 15_000, message: () => `the daemon to start: ${output}` });
  const pid = Number(/ running \(pid (\d+)\)/.exec(output)![1]);
  t.after(() => {
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  });
  await waitFor(() => existsSync(join(env.piLockDir, '.patchbay', `${editor.ready.port}.lock`)), { message: 'the editor lockfile adopted' });

  const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
  peers.push(pi);
  const session = await statusUntil(env, (s) => s.sessions[0], 'the pi session');
  assert.equal((await cli(env, ['bind', session.id, 'none'])).code, 0);
  pi.send({ cmd: 'write', path: join(project, 'held.txt'), contents: 'proposed\n', tag: 'w1' });
  await statusUntil(env, (s) => s.diffs.length === 1, 'the edit held in Patchbay');

  process.kill(pid, 'SIGHUP');
  const line = await pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result', { timeoutMs: 5000 });
  assert.equal((line.result as { outcome: string }).outcome, 'rejected', 'the agent heard a rejection, not a dropped link');
  await waitFor(() => !alive(pid), { timeoutMs: 10_000, message: 'the daemon to exit' });
  assert.equal(existsSync(join(project, 'held.txt')), false, 'nothing written unreviewed');
  const locks = (await readdir(env.piLockDir)).filter((f) => f.endsWith('.lock'));
  assert.deepEqual(locks, [`${editor.ready.port}.lock`], 'the editor lockfile is back and the door is gone');
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
