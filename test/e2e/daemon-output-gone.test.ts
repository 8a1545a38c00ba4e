// The daemon's terminal or reader goes away: `patchbay daemon 2>&1 | tee log` and Ctrl-C (the
// shell's SIGINT reaches tee too, so the reader is gone before the daemon says "stopping"), or
// the terminal window it runs in is closed (SIGHUP). It must still stop cleanly: a pi-ide whose
// link drops writes its pending edit unreviewed, and hidden lockfiles leave agents no editor.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { pidAlive } from '../../src/discovery/liveness.ts';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import { START_MS, waitFor } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, statusUntil, type Env } from './daemon-process.ts';

const BIN = fileURLToPath(new URL('../../src/cli/bin.mjs', import.meta.url));

interface Scene {
  env: Env;
  project: string;
  editor: PeerProcess;
  /** Starts a pi bound to Patchbay's inbox and has it propose an edit there. */
  holdAnEdit(): Promise<PeerProcess>;
  /** The edit was rejected (not written), the editor's lockfile is back and the door gone. */
  assertStoppedCleanly(pi: PeerProcess): Promise<void>;
}

async function scene(t: TestContext, name: string): Promise<Scene> {
  const { tmp, env, project } = await e2eFolder(name);
  const peers: PeerProcess[] = [];
  t.after(async () => {
    await Promise.all(peers.map((p) => p.kill()));
    await tmp.cleanup();
  });
  const editor = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']);
  peers.push(editor);
  const held = join(project, 'held.txt');
  return {
    env,
    project,
    editor,
    async holdAnEdit() {
      await waitFor(() => existsSync(join(env.piLockDir, '.patchbay', `${editor.ready.port}.lock`)), { message: 'the editor lockfile adopted' });
      const pi = await spawnPeer('pi', ['--cwd', project, '--lock-dir', env.piLockDir, '--quiet'], { cwd: project });
      peers.push(pi);
      const session = await statusUntil(env, (s) => s.sessions[0], 'the pi session');
      assert.equal((await cli(env, ['bind', session.id, 'none'])).code, 0);
      pi.send({ cmd: 'write', path: held, contents: 'proposed\n', tag: 'w1' });
      await statusUntil(env, (s) => s.diffs.length === 1, 'the edit held in Patchbay');
      return pi;
    },
    async assertStoppedCleanly(pi) {
      const line = await pi.waitForLine((l) => l.tag === 'w1' && l.event === 'result');
      assert.equal((line.result as { outcome: string }).outcome, 'rejected', 'the agent heard a rejection, not a dropped link');
      assert.equal(existsSync(held), false, 'nothing written unreviewed');
      const locks = (await readdir(env.piLockDir)).filter((f) => f.endsWith('.lock'));
      assert.deepEqual(locks, [`${editor.ready.port}.lock`], 'the editor lockfile is back and the door is gone');
      assert.equal(JSON.parse(await readFile(join(env.piLockDir, locks[0]!), 'utf8')).ideName, 'nvim');
    },
  };
}

test('a daemon whose output reader went away (| tee, then Ctrl-C) still rejects the pending edit and restores the lockfiles', async (t) => {
  const { env, holdAnEdit, assertStoppedCleanly } = await scene(t, 'daemon-output-gone');
  const daemon = await startDaemon(env);
  t.after(() => daemon.stop('SIGKILL'));
  const pi = await holdAnEdit();

  // tee is gone: every later write of the daemon's meets a closed pipe (EPIPE).
  daemon.child.stdout!.destroy();
  daemon.child.stderr!.destroy();
  const stopped = await daemon.stop('SIGINT');

  await assertStoppedCleanly(pi);
  assert.deepEqual(stopped, { code: 0, signal: null });
});

test('closing the terminal a daemon runs in (SIGHUP) rejects the pending edit and restores the lockfiles', async (t) => {
  const { env, holdAnEdit, assertStoppedCleanly } = await scene(t, 'daemon-hangup');
  // util-linux script(1) gives the daemon a terminal of its own, as a terminal window does.
  const command = [process.execPath, BIN, 'daemon'].map((word) => `'${word}'`).join(' ');
  const terminal = spawn('script', ['-qfec', command, '/dev/null'], { env: env.env, stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  terminal.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  t.after(() => void terminal.kill('SIGKILL'));
  await waitFor(() => output.includes(' running (pid '), { timeoutMs: START_MS, message: () => `the daemon to start: ${output}` });
  const pid = Number(/ running \(pid (\d+)\)/.exec(output)![1]);
  t.after(() => {
    if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  const pi = await holdAnEdit();

  process.kill(pid, 'SIGHUP');
  await waitFor(() => !pidAlive(pid), { timeoutMs: 10_000, message: 'the daemon to exit' });
  await assertStoppedCleanly(pi);
});
