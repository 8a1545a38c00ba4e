// The remote manager with a double of ssh (no second machine, no root): the "remote" command
// runs here in /bin/sh, as sshd would run it over there, and the double says which port the
// server allocated as ssh does. What the real OpenSSH adds is in ssh-tunnel.test.ts.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { RemoteView } from '../../src/api/types.ts';
import type { ChildHost, ChildSpec } from '../../src/remote/child-host.ts';
import { lineSplitter } from '../../src/remote/child-host.ts';
import { RemoteManager } from '../../src/remote/manager.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

interface FakeSsh extends ChildHost {
  started: ChildSpec[];
  /** Makes the next starts fail as ssh does, with these stderr lines and status 255. */
  failWith: string[] | null;
  /** Kills the running "connection" (the remote command and all). */
  drop(): void;
}

/** ssh's double: the remote command (its last argument) run here by /bin/sh, with the remote's environment. */
function fakeSsh(remoteEnv: NodeJS.ProcessEnv): FakeSsh {
  let port = 41000;
  const running = new Set<() => void>();
  const host: FakeSsh = {
    started: [],
    failWith: null,
    drop() {
      for (const kill of running) kill();
    },
    start(spec, events) {
      host.started.push(spec);
      if (host.failWith) {
        const lines = host.failWith;
        setImmediate(() => {
          for (const line of lines) events.stderr(line);
          events.exit({ code: 255, signal: null });
        });
        return { pid: null, write() {}, endInput() {}, kill() {} };
      }
      const child = spawn('/bin/sh', ['-c', spec.args.at(-1)!], { env: { PATH: '/usr/bin:/bin', ...remoteEnv }, stdio: ['pipe', 'pipe', 'pipe'] });
      const out = lineSplitter(events.stdout);
      child.stdout.setEncoding('utf8').on('data', (c: string) => out.push(c));
      child.stdin.on('error', () => {});
      const kill = (): void => void child.kill('SIGKILL');
      running.add(kill);
      child.on('exit', (code, signal) => {
        running.delete(kill);
        events.exit({ code, signal });
      });
      const door = spec.args.find((a) => a.startsWith('127.0.0.1:0:'))!.split(':').at(-1);
      setImmediate(() => events.stderr(`Allocated port ${++port} for remote forward to 127.0.0.1:${door}`));
      return {
        pid: child.pid ?? null,
        write: (text) => void (child.stdin.writable && child.stdin.write(text)),
        endInput: () => child.stdin.end(),
        kill: (signal) => void child.kill(signal),
      };
    },
  };
  return host;
}

async function setup(t: TestContext) {
  const dir = await tempDir('remote-manager');
  const remoteEnv = { HOME: dir.path, PI_IDE_LOCK_DIR: join(dir.path, 'pi'), CLAUDE_CONFIG_DIR: join(dir.path, 'claude') };
  const ssh = fakeSsh(remoteEnv);
  const logs: string[] = [];
  const manager = new RemoteManager({
    host: ssh,
    ssh: 'ssh',
    env: {},
    aliveIntervalS: 15,
    aliveCountMax: 3,
    connectTimeoutS: 5,
    upDeadlineMs: 10_000,
    requestTimeoutMs: 5000,
    stopGraceMs: 1000,
    backoff: { firstRetryMs: 50, maxRetryMs: 200, stableMs: 30_000 },
    doorPort: () => 4711,
    dialects: () => ['pi', 'claude'],
    onChange: () => {},
    log: (line) => logs.push(line),
    now: () => Date.now(),
  });
  t.after(async () => {
    await manager.close();
    ssh.drop();
    await dir.cleanup();
  });
  const view = (): RemoteView | undefined => manager.views()[0];
  return { dir, ssh, manager, view, logs };
}

const devbox = { name: 'devbox', destination: 'me@devbox', maps: [{ remote: '/home/me/p', local: '/Users/me/p' }] };

describe('the remote manager', () => {
  test('connects a remote: ssh never prompts, and the door lockfiles over there name the remote dirs, the helper and a token the door takes', async (t) => {
    const { dir, ssh, manager, view } = await setup(t);
    await manager.sync([devbox]);
    const up = await waitFor(() => (view()?.state === 'connected' ? view() : null), { timeoutMs: 10_000 });
    const args = ssh.started[0]!.args;
    assert.ok(args.includes('BatchMode=yes'));
    assert.ok(args.includes('127.0.0.1:0:127.0.0.1:4711'));
    assert.deepEqual(up.lockfiles, [join(dir.path, 'pi', `${up.remotePort}.lock`), join(dir.path, 'claude', 'ide', `${up.remotePort}.lock`)]);
    const [pi, claude] = await Promise.all(up.lockfiles.map(async (f) => JSON.parse(await readFile(f, 'utf8'))));
    assert.deepEqual(pi.workspaceFolders, ['/home/me/p']);
    assert.equal(pi.ideName, 'Patchbay');
    assert.equal(pi.pid, claude.pid, 'both name the helper');
    assert.deepEqual(manager.keys(), [
      { dialect: 'pi', token: pi.authToken, remote: 'devbox' },
      { dialect: 'claude', token: claude.authToken, remote: 'devbox' },
    ]);
    const lock = pi;
    // Nothing secret on ssh's command line (others can read it): the script and tokens go on stdin.
    assert.ok(!args.join(' ').includes(lock.authToken));
  });

  test('a dropped connection is retried by itself, with new tokens, and the old lockfile is gone', async (t) => {
    const { ssh, manager, view } = await setup(t);
    await manager.sync([devbox]);
    const first = await waitFor(() => (view()?.state === 'connected' ? view() : null), { timeoutMs: 10_000 });
    const firstKeys = manager.keys();
    ssh.drop();
    const second = await waitFor(() => (view()?.state === 'connected' && view()!.remotePort !== first.remotePort ? view() : null), { timeoutMs: 10_000 });
    assert.equal(existsSync(first.lockfiles[0]!), false);
    assert.ok(existsSync(second.lockfiles[0]!));
    assert.notDeepEqual(manager.keys(), firstKeys);
    assert.equal(ssh.started.length, 2);
  });

  test('ssh failing says what to fix, and is tried again after a wait that grows', async (t) => {
    const { ssh, manager, view } = await setup(t);
    ssh.failWith = ['me@devbox: Permission denied (publickey).'];
    await manager.sync([devbox]);
    const failed = await waitFor(() => (view()?.state === 'failed' ? view() : null));
    assert.match(failed.reason ?? '', /accepted none of your keys .* ssh-agent/);
    assert.ok(failed.retryAt !== null && failed.retryAt >= failed.since);
    await waitFor(() => ssh.started.length >= 3);
    ssh.failWith = null;
    await waitFor(() => view()?.state === 'connected');
  });

  test('removing a remote, or closing, ends its helper, which removes its lockfiles first', async (t) => {
    const { manager, view } = await setup(t);
    await manager.sync([devbox, { ...devbox, name: 'other', destination: 'other' }]);
    await waitFor(() => manager.views().filter((v) => v.state === 'connected').length === 2, { timeoutMs: 10_000 });
    const [kept, removed] = [manager.views()[0]!, manager.views()[1]!];
    await manager.sync([devbox]);
    assert.deepEqual(manager.views().map((v) => v.name), ['devbox']);
    for (const file of removed.lockfiles) assert.equal(existsSync(file), false, `${file} removed with its remote`);
    assert.ok(kept.lockfiles.every((f) => existsSync(f)));
    assert.equal(view()?.state, 'connected');
    await manager.close();
    for (const file of kept.lockfiles) assert.equal(existsSync(file), false, `${file} removed on close`);
    assert.equal(manager.resources, 0);
  });
});
