// A remote's tunnel through a restart of Patchbay's core, with the real `patchbay daemon` and the
// ssh double (test/peers/fake-ssh.mjs; no root needed): the keeper owns the ssh process as it owns
// hosted pis, so after `patchbay restart` and after kill -9 of the core the tunnel is the same
// (its port, its helper, its lockfiles over there), an agent connected through it stays
// connected as the same session, its pending edit stays pending, and a new agent over there is
// let in with the lockfile's token. A full stop still removes the lockfiles over there.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import type { RemoteView, Snapshot } from '../../src/api/types.ts';
import { fakeSshRemote } from '../peers/fake-ssh-remote.ts';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import { alive, cli, e2eFolder, startDaemon, status, statusUntil, type Env } from './daemon-process.ts';

/** The lockfile over there names the helper, which lives exactly as long as the tunnel. */
async function helperPid(lockfile: string): Promise<number> {
  return (JSON.parse(await readFile(lockfile, 'utf8')) as { pid: number }).pid;
}

test('a remote’s tunnel, an agent connected through it and its pending edit go on through patchbay restart and kill -9 of the core', { timeout: 180_000 }, async (t) => {
  const { tmp, env, project } = await e2eFolder('e2e-remote-restart');
  t.after(() => tmp.cleanup());
  const remote = await fakeSshRemote(tmp.path, env.env.PATH);
  const daemonEnv: Env = { ...env, env: { ...env.env, PATH: remote.path } };
  const there = join(tmp.path, 'remote', 'project');
  await mkdir(there, { recursive: true });

  const daemon = await startDaemon(daemonEnv);
  t.after(() => daemon.stop('SIGKILL'));
  const peers: PeerProcess[] = [];
  t.after(() => Promise.all(peers.map((p) => p.kill())));
  const added = await cli(daemonEnv, ['remote', 'add', 'devbox', 'devbox.example', '--map', `${there}=${project}`]);
  assert.equal(added.code, 0, added.stderr);
  const [view] = JSON.parse((await cli(daemonEnv, ['remote', 'list', '--json'])).stdout) as RemoteView[];
  assert.equal(view?.state, 'connected', JSON.stringify(view));
  const lockfile = join(remote.piLockDir, `${view!.remotePort}.lock`);
  const helper = await helperPid(lockfile);
  const lockfileText = await readFile(lockfile, 'utf8');

  const agent = await spawnPeer('pi', ['--cwd', there, '--lock-dir', remote.piLockDir, '--quiet'], { cwd: there });
  peers.push(agent);
  const session = await statusUntil(daemonEnv, (s) => s.sessions.find((x) => x.remote === 'devbox' && x.identity === 'known'), 'the remote agent known', 30_000);
  assert.equal(session.cwd, there);
  agent.send({ cmd: 'write', path: join(there, 'notes.txt'), contents: 'from over there\n', tag: 'w1' });
  const pending = await statusUntil(daemonEnv, (s) => s.diffs[0], 'its edit pending');
  assert.equal(pending.path, join(project, 'notes.txt'), 'reviewed at the path here');
  assert.deepEqual(pending.remote, { name: 'devbox', path: join(there, 'notes.txt'), mapped: true });

  /** After a restart: the same tunnel and helper, the same session and edit; nobody was disconnected. */
  const keptThrough = async (before: Snapshot, reason: 'restart' | 'crash'): Promise<Snapshot> => {
    const after = await statusUntil(daemonEnv, (s) => s.corePid !== before.corePid && s.remotes[0]?.state === 'connected' && s.diffs.length === 1 && s, 'the new core with the tunnel', 30_000);
    assert.equal(after.core.reason, reason);
    assert.equal(after.remotes[0]!.remotePort, view!.remotePort, 'the forwarded port over there is the same');
    assert.deepEqual(after.remotes[0]!.lockfiles, view!.lockfiles, 'and so are its lockfiles');
    assert.equal(await readFile(lockfile, 'utf8'), lockfileText, 'the lockfile over there is untouched (same helper pid, same token)');
    assert.ok(alive(helper), 'the helper over there runs on');
    assert.deepEqual(after.sessions.map((s) => [s.id, s.remote, s.cwd]), [[session.id, 'devbox', there]], 'the agent is the same session, still the remote’s');
    assert.equal(after.diffs[0]!.id, pending.id, 'its edit is pending under the same id');
    assert.deepEqual(after.diffs[0]!.remote, pending.remote);
    assert.equal(agent.lines.find((l) => l.event === 'closed'), undefined, 'the agent was never disconnected');
    assert.equal(agent.lines.find((l) => l.tag === 'w1' && l.event === 'result'), undefined, 'nor answered');
    return after;
  };

  const before = await status(daemonEnv);
  const restarted = await cli(daemonEnv, ['restart']);
  assert.equal(restarted.code, 0, restarted.stderr);
  const afterRestart = await keptThrough(before, 'restart');

  process.kill(afterRestart.corePid, 'SIGKILL');
  await keptThrough(afterRestart, 'crash');

  // The door still takes the token agents over there read: a new one connects through the same tunnel.
  const second = await spawnPeer('pi', ['--cwd', there, '--lock-dir', remote.piLockDir, '--quiet'], { cwd: there });
  peers.push(second);
  await statusUntil(daemonEnv, (s) => s.sessions.filter((x) => x.remote === 'devbox' && x.identity === 'known').length === 2, 'a second remote agent after the restarts', 30_000);

  const accepted = await cli(daemonEnv, ['diffs', 'accept', pending.id]);
  assert.equal(accepted.code, 0, accepted.stderr);
  const result = await agent.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
  assert.equal((result.result as { outcome: string }).outcome, 'saved');
  assert.equal(await readFile(join(there, 'notes.txt'), 'utf8'), 'from over there\n', 'the agent wrote its own file over there');

  const stopped = await daemon.stop('SIGTERM');
  assert.equal(stopped.code, 0);
  for (const file of view!.lockfiles) assert.equal(existsSync(file), false, `${file} removed by the stop`);
  assert.equal(alive(helper), false, 'the helper ended with the tunnel');
});

