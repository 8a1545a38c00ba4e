// One hub per home: the instance lock, within one process and across a crashed one.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { InstanceHeldError, acquireInstanceLock, instanceSocketPath } from '../../src/web/instance-lock.ts';
import { tempDir } from '../peers/wait.ts';

/** Leaves a socket file with no listener behind, as a hub killed with -9 does. */
async function staleSocket(path: string): Promise<void> {
  const child = spawn(process.execPath, ['-e', "require('net').createServer().listen(process.argv[1], () => console.log('up'))", path], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(existsSync(path), 'the crash left the socket file');
}

test('a second lock on the same home is refused, naming the holder; after release it can be taken again', async (t) => {
  const dir = await tempDir('lock');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const lock = await acquireInstanceLock(home, 'daemon');
  await assert.rejects(acquireInstanceLock(home, 'desktop app'), (err: unknown) => {
    assert.ok(err instanceof InstanceHeldError);
    assert.deepEqual(err.holder, { pid: process.pid, kind: 'daemon' });
    assert.equal(err.message, `Patchbay is already running for ${home} (pid ${process.pid}, the daemon)`);
    return true;
  });
  const other = await acquireInstanceLock(join(dir.path, 'other-home'), 'daemon');
  await Promise.all([lock.release(), lock.release()]);
  assert.ok(!existsSync(instanceSocketPath(home)), 'the socket goes with the lock');
  const again = await acquireInstanceLock(home, 'desktop app');
  await again.release();
  await other.release();
});

test('of many simultaneous takers of a lock left by a crash, exactly one gets it', async (t) => {
  const dir = await tempDir('lock-stale');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  await acquireInstanceLock(home, 'probe').then((l) => l.release()); // makes the home
  // A few rounds, the takers a millisecond or two apart: one that found the socket stale must
  // never remove the live one another taker has bound since.
  for (let round = 0; round < 3; round++) {
    await staleSocket(instanceSocketPath(home));
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => new Promise((r) => setTimeout(r, i % 3)).then(() => acquireInstanceLock(home, 'daemon'))),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    assert.equal(won.length, 1, `round ${round}: ${lost.map((r) => String(r.reason)).join('\n')}`);
    for (const r of lost) assert.ok(r.reason instanceof InstanceHeldError, String(r.reason));
    await won[0]!.value.release();
    assert.ok(!existsSync(`${instanceSocketPath(home)}.cleanup`), 'the cleanup mutex is gone');
  }
});

test('a lock path too long for a socket is refused with the reason', async () => {
  const home = join('/tmp', 'x'.repeat(120));
  await assert.rejects(acquireInstanceLock(home, 'daemon'), /longer than 103 bytes; use a shorter PATCHBAY_HOME/);
  assert.ok(!existsSync(home), 'nothing made');
});
