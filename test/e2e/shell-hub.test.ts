// The desktop app's hub follows a running daemon; when that daemon goes away it follows the
// one that replaced it, or starts a daemon of its own. Real daemon processes, a real editor process.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import type { HubEvent } from '../../src/api/types.ts';
import { pidAlive } from '../../src/discovery/liveness.ts';
import { resolveOptions, type HubOptions } from '../../src/options.ts';
import { connectShellHub, type ShellHub } from '../../src/web/shell-hub.ts';
import { spawnPeer, type PeerProcess } from '../peers/spawn.ts';
import { tempDir, waitFor, type TempDir } from '../peers/wait.ts';
import { cli, isolatedEnv, startDaemon, type Daemon, type Env } from './daemon-process.ts';

/**
 * What the packaged app runs its daemon with (there with its Electron binary as node): the
 * bundled entry, no TypeScript loader. test/run.mjs rebuilds it when a source changed.
 */
const BUNDLED_CLI = fileURLToPath(new URL('../../out/cli/patchbay.mjs', import.meta.url));

describe('the desktop hub when the daemon it follows goes away', () => {
  let tmp: TempDir;
  let env: Env;
  let options: HubOptions;
  let editor: PeerProcess;
  const daemons: Daemon[] = [];
  const shells: ShellHub[] = [];

  before(async () => {
    tmp = await tempDir('shell-hub');
    env = await isolatedEnv(tmp.path);
    options = { ...resolveOptions(env.env), pollMs: 100, livenessMs: 200 };
    const project = join(tmp.path, 'project');
    await mkdir(project);
    editor = await spawnPeer('editor', ['--lock-dir', env.piLockDir, '--folder', project, '--ide-name', 'nvim', '--quiet']);
  });

  after(async () => {
    for (const shell of shells) await shell.close('the test is over');
    for (const daemon of daemons) await daemon.stop('SIGKILL');
    await editor.kill();
    await tmp.cleanup();
  });

  const shell = async (retryMs: number) => {
    const logs: string[] = [];
    // Its own daemon, when it starts one, runs in this test's world.
    const hub = await connectShellHub(options, { log: (line) => logs.push(line), retryMs, daemon: { command: [process.execPath, BUNDLED_CLI], env: env.env } });
    shells.push(hub);
    const events: HubEvent[] = [];
    hub.subscribe((event) => events.push(event));
    const connection: (string | null)[] = [];
    hub.onConnection((lost) => connection.push(lost));
    return { hub, events, logs, connection };
  };

  const daemon = async (): Promise<Daemon> => {
    const started = await startDaemon(env);
    daemons.push(started);
    return started;
  };

  test('it follows a daemon that was restarted', async () => {
    const first = await daemon();
    // A long first wait, so the second daemon is up before the shell looks again.
    const { hub, events, connection } = await shell(4000);
    assert.equal(hub.owned, false);
    assert.match(hub.description, new RegExp(`pid ${first.child.pid}`));

    assert.equal((await first.stop('SIGTERM')).code, 0, first.output());
    await waitFor(() => hub.description.startsWith('no hub'), { message: () => `the loss noticed: ${hub.description}` });
    await assert.rejects(hub.call('snapshot', undefined), { code: 'unavailable', message: /reconnecting/ });
    const second = await daemon();
    await waitFor(() => hub.description.includes(`pid ${second.child.pid}`), { timeoutMs: 10_000, message: () => hub.description });
    assert.equal(hub.owned, false, 'the new daemon is followed, not fought');
    // The new daemon holds the home a moment before its core serves: "still trying" meanwhile.
    await waitFor(() => connection.at(-1) === null, { message: () => `back: ${connection.join(' / ')}` });
    assert.match(connection[0] ?? '', /closed/, 'lost, saying why');
    assert.ok(connection.slice(1, -1).every((c) => c !== null && /still trying/.test(c)), `then only retries: ${connection.join(' / ')}`);
    assert.equal(connection.at(-1), null, 'then back');
    await waitFor(() => events.some((e) => e.type === 'snapshot'), { message: 'a fresh snapshot for the faces' });
    const snap = await hub.call('snapshot', undefined);
    assert.equal(snap.editors.length, 1, 'the editor, adopted by the new daemon');

    await hub.close('done with it');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(second.child.exitCode, null, 'closing a follower leaves the daemon running');
    assert.equal((await second.stop('SIGTERM')).code, 0, second.output());
  });

  test('when the daemon dies it starts one of its own: it recovers the leftovers, serves the CLI, and stops cleanly when the app quits', async () => {
    const crashed = await daemon();
    const { hub, events, logs } = await shell(50);
    assert.equal(hub.owned, false);
    const adopted = join(env.piLockDir, '.patchbay', `${editor.ready.port}.lock`);
    await waitFor(() => existsSync(adopted), { message: 'the editor adopted by the daemon' });

    await crashed.stop('SIGKILL');
    await waitFor(() => hub.owned, { timeoutMs: 20_000, message: () => `the shell to take over: ${logs.join('\n')}` });
    const snap = await waitFor(async () => {
      const now = await hub.call('snapshot', undefined);
      return now.editors.length === 1 && now;
    }, { message: 'the editor re-adopted by the shell’s own daemon' });
    assert.equal(snap.editors[0]!.port, editor.ready.port);
    assert.ok(events.some((e) => e.type === 'snapshot'), 'faces were told');

    // The CLI now reaches the shell's hub through its control server.
    const status = await cli(env, ['status', '--json']);
    assert.equal(status.code, 0, status.stderr);
    assert.equal((JSON.parse(status.stdout) as { door: { port: number } }).door.port, snap.door.port);
    // Its daemon holds the home: another one started now is refused, naming it.
    const refused = await cli(env, ['daemon'], 10_000);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.equal(refused.stderr, `patchbay: Patchbay is already running for ${env.env.PATCHBAY_HOME} (pid ${snap.pid}, the daemon)\n`);
    // Its Restart is the daemon's: the core restarts under the same daemon, and the app shows the new one.
    const { corePid } = await hub.call('restart', undefined);
    const restarted = await waitFor(async () => {
      const now = await hub.call('snapshot', undefined).catch(() => null);
      return now !== null && now.corePid !== corePid && now;
    }, { timeoutMs: 20_000, message: () => `the restarted core shown: ${logs.join('\n')}` });
    assert.equal(restarted.pid, snap.pid, 'the same daemon');
    assert.equal(restarted.door.port, snap.door.port, 'the same door');
    assert.equal(restarted.editors.length, 1, 'the editor still adopted');
    assert.equal(hub.owned, true, 'still its own daemon: Quit stops it');

    await hub.close('quitting');
    await waitFor(() => !pidAlive(snap.pid) && !pidAlive(restarted.corePid), { message: 'its daemon and core stopped with it' });
    assert.ok(existsSync(join(env.piLockDir, `${editor.ready.port}.lock`)), 'the editor’s lockfile is back');
    assert.ok(!existsSync(adopted));
  });
});

describe('the desktop hub with no daemon to follow', () => {
  let tmp: TempDir;
  let options: HubOptions;

  before(async () => {
    tmp = await tempDir('shell-hub-start');
    options = resolveOptions((await isolatedEnv(tmp.path)).env);
  });

  after(() => tmp.cleanup());

  const start = (command: string[]) => connectShellHub(options, { log: () => {}, daemon: { command } });

  test('a daemon of its own that cannot start says why: its last words, or that the program is missing', async () => {
    await assert.rejects(start([process.execPath, '-e', 'console.error("patchbay: the door could not open"); process.exit(1)']), {
      code: 'unavailable',
      message: 'the daemon did not start: the door could not open',
    });
    await assert.rejects(start([join(tmp.path, 'no-such-patchbay')]), { code: 'unavailable', message: /^the daemon did not start: spawn .*no-such-patchbay ENOENT$/ });
  });
});
