// A full stop and a new start of `patchbay daemon`: the door comes back on the same port with
// the same tokens, so Claude Code (which retries the URL and token it first read, five times
// over ~15 s) reconnects by itself under its old session id; a pi, whose pi-ide never
// reconnects by itself, is listed as not reconnected until it does. If another program took the
// port meanwhile, the door moves and says so loudly.
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import type { TempDir } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, status, statusUntil, type Daemon, type Env } from './daemon-process.ts';

describe('a full stop and a new start', () => {
  let tmp: TempDir;
  let env: Env;
  let project: string;
  let daemon: Daemon | undefined;
  let peers: PeerProcess[] = [];

  beforeEach(async () => {
    ({ tmp, env, project } = await e2eFolder('e2e-full-restart'));
    peers = [];
    // The door advertises the project, so both agents find it.
    peers.push(await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']));
  });

  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });

  test('Claude Code reconnects by itself under its old id; a pi that does not is listed as not reconnected, then comes back as itself', async () => {
    daemon = await startDaemon(env);
    await statusUntil(env, (s) => s.editors.length === 1, 'the editor adopted');
    const claude = await spawnPeer('claude', ['--cwd', project, '--config-dir', join(tmp.path, 'claude'), '--quiet'], { cwd: project });
    peers.push(claude);
    const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
    peers.push(pi);
    const before = await statusUntil(env, (s) => s.sessions.length === 2 && s.sessions.every((x) => x.pid !== null) && s, 'both agents identified');
    const idOf = (pid: number, s = before) => s.sessions.find((x) => x.pid === pid)?.id;

    assert.equal((await daemon.stop('SIGTERM')).code, 0);
    await claude.waitForLine((l) => l.event === 'closed');
    daemon = await startDaemon(env);
    const after = await status(env);
    assert.equal(after.door.port, before.door.port, 'the door is where agents found it');

    await claude.waitForLine((l) => l.event === 'reconnected', { timeoutMs: 20_000 });
    const back = await statusUntil(env, (s) => idOf(claude.ready.pid, s) && s, 'Claude Code back');
    assert.equal(idOf(claude.ready.pid, back), idOf(claude.ready.pid), 'under its old session id');
    assert.deepEqual(await claude.command({ cmd: 'prompt' }), { content: [{ type: 'text', text: 'CLOSED_0_DIFF_TABS' }] }, 'and working');

    const lost = back.notReconnected.find((l) => l.pid === pi.ready.pid);
    assert.ok(lost, `the pi listed as not reconnected: ${JSON.stringify(back.notReconnected)}`);
    assert.equal(lost.sessionId, idOf(pi.ready.pid));
    assert.match(lost.hint, /\/ide/);
    assert.equal(back.idleAgents.find((a) => a.pid === pi.ready.pid), undefined, 'not as an agent that started before Patchbay');
    const shown = await cli(env, ['status']);
    assert.match(shown.stdout, new RegExp(`NOT RECONNECTED[^]*${lost.sessionId} +pi +${pi.ready.pid}`));

    // Its /ide (a new connection from the same process): the same id again, and off the list.
    await pi.command({ cmd: 'ide' });
    const reconnected = await statusUntil(env, (s) => s.notReconnected.length === 0 && idOf(pi.ready.pid, s) && s, 'the pi back');
    assert.equal(idOf(pi.ready.pid, reconnected), idOf(pi.ready.pid), 'under its old session id');
  });

  test('the door whose port another program took moves, and says so in status', async () => {
    daemon = await startDaemon(env);
    const first = await status(env);
    await daemon.stop('SIGTERM');
    daemon = undefined;
    const squatter = createServer().listen(first.door.port!, '127.0.0.1');
    await new Promise((resolve) => squatter.once('listening', resolve));
    try {
      daemon = await startDaemon(env);
      const moved = await status(env);
      assert.notEqual(moved.door.port, first.door.port);
      const notice = moved.notices.find((n) => n.kind === 'port-taken');
      assert.ok(notice, 'a notice');
      assert.match(notice.message, new RegExp(`Port ${first.door.port}, where agents found Patchbay's door before, is held by another program; the door is on port ${moved.door.port} now`));
      assert.match((await cli(env, ['status'])).stdout, new RegExp(`NOTICE ${notice.id} .*Port ${first.door.port}`), 'in status');
      assert.match(daemon.output(), new RegExp(`warning: Port ${first.door.port}`), 'and the log');
    } finally {
      squatter.close();
    }
  });
});
