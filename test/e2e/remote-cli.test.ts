// `patchbay remote …` with the real daemon and real OpenSSH (test/peers/ssh-remote.ts): added in
// a terminal, connected by the running daemon, listed, its agents in `status`, removed, and a
// daemon stopped by SIGTERM leaves nothing behind over there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chown } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RemoteView } from '../../src/api/types.ts';
import { startSshRemote, sshRemoteUnavailable } from '../peers/ssh-remote.ts';
import { cli, e2eFolder, startDaemon, statusUntil } from './daemon-process.ts';

const unavailable = sshRemoteUnavailable();

test('a remote added in a terminal connects, lists, shows its agents in status, and is gone after remove; a stopped daemon leaves no lockfile over there', { skip: unavailable ?? false, timeout: 120_000 }, async (t) => {
  const remote = await startSshRemote(t);
  const { tmp, env, project } = await e2eFolder('remote-cli');
  t.after(() => tmp.cleanup());
  await chown(project, remote.uid, remote.gid);
  const there = join(remote.dir.path, 'remote', 'project');
  await remote.bindMount(project, there);
  env.env.PATH = remote.path;

  const usage = await cli(env, ['remote', 'add', 'devbox', remote.destination]);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /at least one --map <remote-dir>=<local-dir>/);

  const daemon = await startDaemon(env);
  t.after(() => daemon.stop());
  const added = await cli(env, ['remote', 'add', 'devbox', remote.destination, '--map', `${there}=${project}`]);
  assert.equal(added.code, 0, added.stderr);
  assert.match(added.stdout, /devbox\s+devbox\s+connected/);

  const listed = await cli(env, ['remote', 'list', '--json']);
  const [view] = JSON.parse(listed.stdout) as RemoteView[];
  assert.equal(view?.name, 'devbox');
  assert.equal(view?.destination, remote.destination);
  assert.equal(view?.state, 'connected');
  assert.ok(typeof view?.remotePort === 'number');
  assert.deepEqual(view?.maps, [{ remote: there, local: project }]);
  assert.deepEqual(view?.lockfiles, [join(remote.piLockDir, `${view!.remotePort}.lock`), join(remote.claudeLockDir, `${view!.remotePort}.lock`)]);

  const agent = await remote.spawnRemotePeer('pi', ['--cwd', there, '--lock-dir', remote.piLockDir, '--quiet'], { cwd: there });
  t.after(() => agent.stop());
  const session = await statusUntil(env, (s) => s.sessions.find((x) => x.identity === 'known'), 'the remote agent in status', 15_000);
  assert.equal(session.remote, 'devbox');
  assert.equal(session.cwd, there);
  const text = await cli(env, ['status']);
  assert.match(text.stdout, new RegExp(`devbox:${there} \\(here ${project}\\)`));
  await agent.stop();

  const removed = await cli(env, ['remote', 'remove', 'devbox']);
  assert.equal(removed.code, 0, removed.stderr);
  for (const file of view!.lockfiles) assert.equal(existsSync(file), false, `${file} removed`);
  assert.equal((await cli(env, ['remote', 'list'])).stdout.startsWith('No remotes'), true);

  assert.equal((await cli(env, ['remote', 'add', 'devbox', remote.destination, '--map', `${there}=${project}`])).code, 0);
  const again = JSON.parse((await cli(env, ['remote', 'list', '--json'])).stdout) as RemoteView[];
  assert.ok(again[0]!.lockfiles.every((f) => existsSync(f)));
  await daemon.stop('SIGTERM');
  for (const file of again[0]!.lockfiles) assert.equal(existsSync(file), false, `${file} removed by the stop`);
  assert.deepEqual(await remote.remotePids(), []);
});
