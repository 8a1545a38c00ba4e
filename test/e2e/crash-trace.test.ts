// When Patchbay dies with edits waiting for review. kill -9 of the daemon alone leaves its core,
// which ends review cleanly (the edit rejected, lockfiles back). Both dying at once (power
// loss): pi-ide writes the edit unreviewed (its own behaviour when its link drops), so the next
// start says per file what became of it — written without review, not written, changed since —
// dated when the dead run was last known alive, until the person dismisses it.
import assert from 'node:assert/strict';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import { waitFor, type TempDir } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, status, statusUntil, type Daemon, type Env } from './daemon-process.ts';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('Patchbay killed with edits pending', () => {
  let tmp: TempDir;
  let env: Env;
  let daemon: Daemon | undefined;
  let project: string;
  let peers: PeerProcess[] = [];

  beforeEach(async () => {
    ({ tmp, env, project } = await e2eFolder('e2e-crash'));
    peers = [];
  });

  afterEach(async () => {
    await daemon?.stop('SIGKILL');
    daemon = undefined;
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });

  /** A pi double whose write waits in Patchbay (bound to none: no editor decides it). */
  async function pendingWrite(name: string) {
    const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
    peers.push(pi);
    const session = await statusUntil(env, (s) => s.sessions.find((x) => x.pid === pi.ready.pid), `the pi session for ${name}`);
    assert.equal((await cli(env, ['bind', session.id, 'none'])).code, 0);
    const file = join(project, name);
    await writeFile(file, 'before\n');
    pi.send({ cmd: 'write', path: file, contents: `${name}, never reviewed\n`, tag: name });
    const pending = await statusUntil(env, (s) => s.diffs.find((d) => d.path === file), `${name} waiting in Patchbay`);
    return { pi, file, pending, session };
  }

  test('kill -9 of the daemon alone: its core ends review cleanly, rejecting the edit and putting lockfiles back', async () => {
    const editor = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']);
    peers.push(editor);
    daemon = await startDaemon(env);
    await statusUntil(env, (s) => s.editors.length === 1, 'the editor adopted');
    const { pi, file } = await pendingWrite('alone.txt');
    const cores = daemon.corePids();
    await daemon.killKeeper();
    daemon = undefined;
    const line = await pi.waitForLine((l) => l.tag === 'alone.txt' && l.event === 'result', { timeoutMs: 10_000 });
    assert.equal((line.result as { outcome: string }).outcome, 'rejected');
    assert.equal(await readFile(file, 'utf8'), 'before\n');
    // The editor's lockfile is back where it was, the door's gone, and no empty .patchbay/ is left.
    let listed: string[] = [];
    await waitFor(async () => JSON.stringify((listed = await readdir(env.piLockDir))) === JSON.stringify([`${editor.ready.port}.lock`]), {
      message: () => `the lock dir as it was: ${listed.join(', ')}`,
    });
    await waitFor(() => cores.every((pid) => !processAlive(pid)), { message: 'the core to end once review ended' });
  });

  test('both processes killed at once: the next start says per file what became of each edit, dated, until dismissed', async () => {
    // An editor, so the door advertises the project (the sessions are bound to none all the same).
    peers.push(await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']));
    daemon = await startDaemon(env);
    await statusUntil(env, (s) => s.editors.length === 1, 'the editor adopted');
    const written = await pendingWrite('written.txt');
    const notWritten = await pendingWrite('not-written.txt');
    const changed = await pendingWrite('changed.txt');
    const before = await status(env);
    // This pi is stopped, so it cannot write its edit when its link drops.
    notWritten.pi.child.kill('SIGSTOP');

    const killedAt = Date.now();
    process.kill(before.pid, 'SIGKILL');
    process.kill(before.corePid, 'SIGKILL');
    daemon = undefined;
    for (const agent of [written, changed]) {
      const line = await agent.pi.waitForLine((l) => l.tag === agent.file.split('/').pop() && l.event === 'result', { timeoutMs: 10_000 });
      assert.equal((line.result as { outcome: string }).outcome, 'unreviewed', 'pi-ide wrote it when its link dropped');
    }
    await writeFile(changed.file, 'someone else changed it since\n');
    assert.equal(await readFile(written.file, 'utf8'), 'written.txt, never reviewed\n');

    const down = await cli(env, ['status']);
    assert.equal(down.code, 1);
    assert.match(down.stderr, /not running/);
    assert.match(down.stderr, /stale door: .*\.lock/);

    daemon = await startDaemon(env);
    const snap = await statusUntil(env, (s) => s.notices.find((n) => n.kind === 'crash-trace') && s, 'the trace of the dead run');
    const notice = snap.notices.find((n) => n.kind === 'crash-trace')!;
    const verdicts = Object.fromEntries(notice.files!.map((f) => [f.path, f.verdict]));
    assert.deepEqual(verdicts, { [written.file]: 'written', [notWritten.file]: 'not-written', [changed.file]: 'changed' });
    assert.ok(notice.at <= killedAt && notice.at >= killedAt - 6000, `dated when the dead run was last known alive (${notice.at}, killed at ${killedAt})`);
    const record = snap.history.find((r) => r.id === written.pending.id)!;
    assert.equal(record.outcome, 'interrupted');
    assert.equal(record.at, notice.at);
    const shown = await cli(env, ['status']);
    assert.match(shown.stdout, new RegExp(`NOTICE ${notice.id} .*stopped unexpectedly with 3 edits waiting for review`));
    assert.match(shown.stdout, new RegExp(`${written.file}: WRITTEN WITHOUT REVIEW \\(${written.pending.id}`));

    const dismissed = await cli(env, ['dismiss', notice.id]);
    assert.equal(dismissed.code, 0, dismissed.stderr);
    assert.deepEqual((await status(env)).notices, []);
    // Dismissed stays dismissed: a clean stop and a new start say nothing more.
    await daemon.stop('SIGTERM');
    daemon = await startDaemon(env);
    assert.deepEqual((await status(env)).notices, []);
    notWritten.pi.child.kill('SIGCONT');
  });
});
