// Agents on another machine, over real OpenSSH (test/peers/ssh-remote.ts: a network namespace,
// sshd started by ssh's ProxyCommand, a user of its own): Patchbay's tunnel, its lockfiles over
// there, a remote agent's edits reviewed in a local editor at the local path, its cursor and
// diagnostics back at the agent's paths, a dropped tunnel coming back, and a stop that leaves
// nothing behind over there.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chown, lstat, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test, type TestContext } from 'node:test';
import type { RemoteConfig, RemoteView } from '../../src/api/types.ts';
import { createHub, type Hub } from '../../src/hub.ts';
import type { HubOptions } from '../../src/options.ts';
import { PatchbayStore } from '../../src/settings/store.ts';
import { FakeEditor } from '../peers/fake-editor.ts';
import { isolatedOptions } from '../peers/hub-options.ts';
import type { PeerProcess } from '../peers/spawn.ts';
import { startSshRemote, sshRemoteUnavailable, type SshRemote } from '../peers/ssh-remote.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const unavailable = sshRemoteUnavailable();

interface World {
  remote: SshRemote;
  hub: Hub;
  options: HubOptions;
  /** The project here, and the same files over there. */
  local: string;
  there: string;
}

async function world(t: TestContext, overrides: Partial<HubOptions> = {}): Promise<World> {
  const remote = await startSshRemote(t);
  const dir = await tempDir('remote-hub');
  const local = join(dir.path, 'project');
  await mkdir(local);
  await writeFile(join(local, 'a.txt'), 'one\n');
  await chown(local, remote.uid, remote.gid);
  await chown(join(local, 'a.txt'), remote.uid, remote.gid);
  const there = join(remote.dir.path, 'remote', 'work', 'project');
  await remote.bindMount(local, there);
  const options = isolatedOptions(dir.path, {
    toolEnv: { PATH: remote.path, HOME: dir.path },
    remoteAliveIntervalS: 1,
    remoteAliveCountMax: 2,
    remoteRetryFirstMs: 200,
    remoteRetryMaxMs: 1000,
    ...overrides,
  });
  const config: RemoteConfig = { name: 'devbox', destination: remote.destination, maps: [{ remote: there, local }] };
  PatchbayStore.open(options.home).updateSettings({ remotes: [config] }, { local: true });
  const hub = await createHub(options, { log: (line) => t.diagnostic(line) });
  t.after(async () => {
    await hub.close('test over');
    await dir.cleanup();
  });
  return { remote, hub, options, local, there };
}

/** The ssh processes this process started (the hub's tunnels). */
function sshChildren(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .flatMap((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return comm === 'ssh' && ppid === process.pid ? [Number(pid)] : [];
      } catch {
        return [];
      }
    });
}

async function remoteView(hub: Hub): Promise<RemoteView | undefined> {
  return (await hub.call('snapshot', undefined)).remotes[0];
}

async function connected(hub: Hub, timeoutMs = 20_000): Promise<RemoteView> {
  let last: RemoteView | undefined;
  return waitFor(
    async () => {
      last = await remoteView(hub);
      return last?.state === 'connected' ? last : null;
    },
    { timeoutMs, intervalMs: 50, message: () => `the remote connected (last: ${JSON.stringify(last)})` },
  );
}

describe('remote agents over SSH', { skip: unavailable ?? false }, () => {
  test('a remote connects by itself: a port over there leads to the door, whose lockfiles (0600, in 0700 dirs) name the remote dirs and a live process over there', async (t) => {
    const { remote, hub, there } = await world(t);
    const view = await connected(hub);
    assert.ok(view.remotePort !== null);
    const piLock = join(remote.piLockDir, `${view.remotePort}.lock`);
    const claudeLock = join(remote.claudeLockDir, `${view.remotePort}.lock`);
    assert.deepEqual(view.lockfiles, [piLock, claudeLock]);
    for (const file of [piLock, claudeLock]) {
      const stats = await lstat(file);
      assert.equal(stats.mode & 0o777, 0o600, file);
      assert.equal(stats.uid, remote.uid, `${file} is the remote user's`);
    }
    assert.equal((await lstat(remote.piLockDir)).mode & 0o777, 0o700);
    const lock = JSON.parse(await readFile(piLock, 'utf8'));
    assert.equal(lock.ideName, 'Patchbay');
    assert.deepEqual(lock.workspaceFolders, [there]);
    assert.ok((await remote.remotePids()).includes(lock.pid), 'the lockfile names a process over there');
    // Over there the forwarded port leads to Patchbay; the door itself is out of reach.
    assert.equal(await remote.remoteAccepts(view.remotePort!), true);
    assert.equal(await remote.remoteAccepts(hub.doorPort), false);
  });

  test("a remote agent's edit is reviewed in the local editor at the local path; its cursor and diagnostics come back at the agent's paths", async (t) => {
    const { remote, hub, options, local, there } = await world(t);
    const editor = await FakeEditor.start({ lockDir: options.piLockDir, workspaceFolders: [local], dialect: 'pi' });
    t.after(() => editor.stop());
    await waitFor(async () => (await hub.call('snapshot', undefined)).editors.length === 1);
    await connected(hub);
    const agent: PeerProcess = await remote.spawnRemotePeer('pi', ['--cwd', there, '--lock-dir', remote.piLockDir], { cwd: there });
    t.after(() => agent.stop());
    const session = await waitFor(async () => (await hub.call('snapshot', undefined)).sessions.find((s) => s.identity === 'known'), { timeoutMs: 10_000 });
    assert.equal(session.remote, 'devbox');
    assert.equal(session.cwd, there);
    assert.equal(session.localCwd, local);
    assert.equal(session.reason, 'cwd');
    assert.ok(session.editorId !== null);

    // The edit, proposed at the remote path, opens in the editor at the local one.
    const writing = agent.command({ cmd: 'write', path: join(there, 'a.txt'), contents: 'two\n' }, { timeoutMs: 15_000 });
    const diff = await editor.waitForDiff(undefined, { timeoutMs: 10_000 });
    assert.equal(diff.args.new_file_path, join(local, 'a.txt'));
    const pending = await waitFor(async () => (await hub.call('snapshot', undefined)).diffs[0], { timeoutMs: 10_000 });
    assert.equal(pending.path, join(local, 'a.txt'));
    assert.deepEqual(pending.remote, { name: 'devbox', path: join(there, 'a.txt'), mapped: true });
    editor.decide(diff.tabName, 'saved');
    const outcome = (await writing) as { outcome: string };
    assert.equal(outcome.outcome, 'saved');
    // The agent wrote its own file over there: the same bytes here.
    assert.equal(await readFile(join(local, 'a.txt'), 'utf8'), 'two\n');

    // The person's cursor, here, reaches the agent at its own path.
    editor.sendSelection({ filePath: join(local, 'a.txt'), text: 'two' });
    const selection = await agent.waitForLine((l) => (l.msg as { method?: string } | undefined)?.method === 'selection_changed');
    assert.equal((selection.msg as { params: { filePath: string } }).params.filePath, join(there, 'a.txt'));
    // A file no map covers is not the agent's to hear of.
    editor.sendSelection({ filePath: '/etc/hostname', text: 'x' });
    editor.sendSelection({ filePath: join(local, 'b.txt'), text: 'y' });
    await agent.waitForLine((l) => (l.msg as { params?: { filePath?: string } } | undefined)?.params?.filePath === join(there, 'b.txt'));
    assert.ok(!agent.lines.some((l) => JSON.stringify(l).includes('/etc/hostname')));

    editor.setDiagnostics({ [`file://${join(local, 'a.txt')}`]: [{ severity: 'Error', message: 'boom', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } }], 'file:///etc/hosts': [] } as never);
    const diagnostics = (await agent.command({ cmd: 'turn' }, { timeoutMs: 10_000 })) as { content: { text: string }[] };
    assert.deepEqual(Object.keys(JSON.parse(diagnostics.content[0]!.text)), [`file://${join(there, 'a.txt')}`]);
  });

  test('an edit of a remote file no map covers is reviewed in Patchbay by its remote path, and never offered to a local editor', async (t) => {
    const { remote, hub, options, local, there } = await world(t);
    const editor = await FakeEditor.start({ lockDir: options.piLockDir, workspaceFolders: [local], dialect: 'pi' });
    t.after(() => editor.stop());
    await connected(hub);
    const agent = await remote.spawnRemotePeer('pi', ['--cwd', there, '--lock-dir', remote.piLockDir], { cwd: there });
    t.after(() => agent.stop());
    await waitFor(async () => (await hub.call('snapshot', undefined)).sessions[0]?.editorId, { timeoutMs: 10_000 });
    const outside = join(remote.dir.path, 'remote', 'elsewhere.txt');
    await writeFile(outside, 'as it is over there\n');
    const writing = agent.command({ cmd: 'write', path: outside, contents: 'x\n' }, { timeoutMs: 15_000 });
    const diff = await waitFor(async () => (await hub.call('snapshot', undefined)).diffs[0], { timeoutMs: 10_000 });
    assert.equal(diff.path, outside);
    assert.deepEqual(diff.remote, { name: 'devbox', path: outside, mapped: false });
    assert.equal(diff.inEditor, false);
    // Reviewed against the file as it is over there, read through the tunnel.
    const detail = await hub.call('diffs.get', { id: diff.id });
    assert.equal(detail.oldContents, 'as it is over there\n');
    assert.equal(detail.isNew, false);
    await hub.call('diffs.reject', { id: diff.id, reason: 'not there' });
    assert.equal(((await writing) as { outcome: string }).outcome, 'rejected');
    assert.equal(editor.calls('openDiff').length, 0);
  });

  test('a dropped tunnel comes back by itself, with a new port and new lockfiles, the old ones gone', async (t) => {
    const { remote, hub } = await world(t);
    const first = await connected(hub);
    const oldLock = first.lockfiles[0]!;
    assert.ok((await remote.killSshd()) > 0);
    await waitFor(async () => (await remoteView(hub))?.state !== 'connected', { timeoutMs: 10_000 });
    const again = await connected(hub);
    assert.notEqual(again.lockfiles[0], oldLock);
    assert.ok(existsSync(again.lockfiles[0]!));
    assert.equal(existsSync(oldLock), false, 'the dropped tunnel’s lockfile is gone');
    assert.equal(await remote.remoteAccepts(again.remotePort!), true);
  });

  test('a client that goes silent (a laptop closed, a network cut) leaves no live lockfile over there; once back it connects again', async (t) => {
    const { hub } = await world(t);
    const first = await connected(hub);
    // This process's ssh, frozen: to the server it is a client that stopped answering.
    const ssh = sshChildren();
    assert.equal(ssh.length, 1);
    process.kill(ssh[0]!, 'SIGSTOP');
    t.after(() => {
      try {
        process.kill(ssh[0]!, 'SIGCONT');
      } catch {
        // gone already
      }
    });
    // The helper hears no beat for 3 s (1 s × (2 + 1)), so it ends and takes its lockfiles along.
    await waitFor(() => first.lockfiles.every((f) => !existsSync(f)), { timeoutMs: 15_000, message: 'the silent tunnel’s lockfiles removed over there' });
    process.kill(ssh[0]!, 'SIGCONT');
    // Awake again, ssh finds its session ended: the tunnel is opened anew.
    const again = await waitFor(async () => {
      const view = await remoteView(hub);
      return view?.state === 'connected' && view.remotePort !== first.remotePort ? view : null;
    }, { timeoutMs: 30_000, message: 'a new tunnel' });
    assert.ok(again.lockfiles.every((f) => existsSync(f)));
  });

  test('a full stop of Patchbay removes every lockfile it wrote over there', async (t) => {
    const { remote, hub } = await world(t);
    const view = await connected(hub);
    assert.ok(view.lockfiles.every((f) => existsSync(f)));
    await hub.close('stop');
    for (const file of view.lockfiles) assert.equal(existsSync(file), false, `${file} removed`);
    assert.equal(hub.openResources(), 0);
    assert.deepEqual(await remote.remotePids(), [], 'nothing of Patchbay runs over there');
  });

  test('a host whose key is not known fails without asking, saying what to fix, and is retried', async (t) => {
    const remote = await startSshRemote(t);
    const dir = await tempDir('remote-hub');
    const options = isolatedOptions(dir.path, { toolEnv: { PATH: remote.path, HOME: dir.path }, remoteRetryFirstMs: 200, remoteRetryMaxMs: 400 });
    PatchbayStore.open(options.home).updateSettings({ remotes: [{ name: 'nokey', destination: remote.unknownHost, maps: [{ remote: '/srv/p', local: dir.path }] }] }, { local: true });
    const hub = await createHub(options);
    t.after(async () => {
      await hub.close();
      await dir.cleanup();
    });
    const failed = await waitFor(async () => {
      const v = await remoteView(hub);
      return v?.state === 'failed' ? v : null;
    }, { timeoutMs: 15_000 });
    assert.match(failed.reason ?? '', /host key is not known here: run "ssh unknownbox" once in a terminal/);
    assert.ok(failed.retryAt !== null);
    // It keeps trying (and failing the same way) by itself.
    await waitFor(async () => {
      const v = await remoteView(hub);
      return v !== undefined && v.since > failed.since && v.state === 'failed';
    }, { timeoutMs: 10_000 });
  });

  test('removing a remote closes its tunnel and removes its lockfiles over there', async (t) => {
    const { remote, hub, options } = await world(t);
    const view = await connected(hub);
    PatchbayStore.open(options.home).updateSettings({ remotes: [] }, { local: true });
    const after = await hub.call('remotes.reload', {});
    assert.deepEqual(after, []);
    for (const file of view.lockfiles) assert.equal(existsSync(file), false);
    assert.deepEqual(await remote.remotePids(), []);
  });
});
