// `patchbay daemon 2>&1 | tee log`, then Ctrl-C: the shell's SIGINT reaches tee too, so the
// daemon's reader is gone before it says "stopping". It must still stop cleanly: a pi-ide whose
// link drops writes its pending edit unreviewed, and hidden lockfiles leave agents no editor.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
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
