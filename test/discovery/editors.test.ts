import assert from 'node:assert/strict';
import { once } from 'node:events';
import { chown, lstat, mkdir, readFile, readdir, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, test, type TestContext } from 'node:test';
import {
  EditorDiscovery,
  editorId,
  type DiscoveryState,
  type EditorDiscoveryOptions,
} from '../../src/discovery/editors.ts';
import {
  deadPid,
  lockBody,
  spawnLive,
  spawnUnreaped,
  startEditor,
  startHttpServer,
  writeLock,
  type FakeEditor,
  type LiveProcess,
} from './helpers.ts';
import { portHeldBy } from '../../src/discovery/peer-process.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

let root: string;
let cleanup: () => Promise<void>;
let live: LiveProcess;
let dead: number;
let counter = 0;
before(async () => {
  ({ path: root, cleanup } = await tempDir('editors'));
  live = await spawnLive();
  dead = await deadPid();
});
after(async () => {
  await live.kill();
  await cleanup();
});

interface Dirs {
  pi: string;
  claude: string;
}

async function freshDirs(): Promise<Dirs> {
  const base = join(root, `case-${++counter}`);
  const dirs = { pi: join(base, 'pi', 'ide'), claude: join(base, 'claude', 'ide') };
  await mkdir(dirs.pi, { recursive: true });
  await mkdir(dirs.claude, { recursive: true });
  return dirs;
}

async function editor(t: TestContext, token = `tok-${counter}`): Promise<FakeEditor> {
  const e = await startEditor(token);
  t.after(() => e.close());
  return e;
}

async function discover(t: TestContext, dirs: Dirs, options: Partial<EditorDiscoveryOptions> = {}) {
  const states: DiscoveryState[] = [];
  const logs: string[] = [];
  const discovery = new EditorDiscovery({
    dirs: [
      { dir: dirs.pi, dialect: 'pi' },
      { dir: dirs.claude, dialect: 'claude' },
    ],
    takeover: true,
    pollMs: 200,
    livenessMs: 100,
    maxLockfileBytes: 65536,
    selfPid: process.pid,
    probeTimeoutMs: 500,
    // The fake editors serve from this process while their lockfiles name \`live\`'s pid: who
    // holds a port is tested on its own below.
    portHolder: async () => null,
    onChange: (state) => states.push(state),
    log: (msg) => logs.push(msg),
    ...options,
  });
  t.after(() => discovery.close());
  return { discovery, states, logs };
}

/** A TCP server that accepts connections and never answers them (a hung editor); it holds each one. */
async function silentServer(t: TestContext): Promise<{ port: number; held: Set<Socket> }> {
  const held = new Set<Socket>();
  const silent = createServer((socket) => held.add(socket));
  silent.listen(0, '127.0.0.1');
  await once(silent, 'listening');
  t.after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });
  return { port: (silent.address() as AddressInfo).port, held };
}

const ls = async (dir: string) => (await readdir(dir)).sort();

test('a live editor is listed and its lockfile adopted, so agents see only the door', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  const original = await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token, ['/home/me/proj']));
  const { discovery, states } = await discover(t, dirs);
  await discovery.start();

  const adopted = join(dirs.pi, '.patchbay', `${ed.port}.lock`);
  assert.deepEqual(discovery.current().editors, [
    {
      id: editorId('Neovim', ['/home/me/proj']),
      port: ed.port,
      pid: live.pid,
      ideName: 'Neovim',
      workspaceFolders: ['/home/me/proj'],
      authToken: ed.token,
      dialect: 'pi',
      lockfile: adopted,
    },
  ]);
  assert.match(discovery.current().editors[0]!.id, /^ed-[0-9a-f]{8}$/);
  assert.equal(states.length, 1, 'start reports the first state');

  const doors = await discovery.publishDoor({ port: 7000, tokens: { pi: 'door-token' }, folders: ['/home/me/proj'] });
  assert.deepEqual(doors, [join(dirs.pi, '7000.lock')]);
  assert.deepEqual(await ls(dirs.pi), ['.patchbay', '7000.lock']);
  assert.deepEqual(await ls(dirs.claude), []);
  const door = JSON.parse(await readFile(doors[0]!, 'utf8'));
  assert.deepEqual(door, {
    pid: process.pid,
    workspaceFolders: ['/home/me/proj'],
    ideName: 'Patchbay',
    transport: 'ws',
    authToken: 'door-token',
  });

  // Further checks list the door as nothing, and do not probe the editor again.
  await discovery.check();
  await discovery.check();
  assert.equal(discovery.current().editors.length, 1);
  assert.deepEqual(discovery.current().invalid, []);
  assert.equal(ed.upgrades, 1, 'a known-good lockfile is not probed again');

  const report = await discovery.close();
  assert.deepEqual(report, { restored: [original], removed: [] });
  assert.deepEqual(await ls(dirs.pi), [`${ed.port}.lock`], 'nothing of Patchbay’s is left, not even an empty .patchbay/');
  assert.equal(await discovery.close(), report, 'closing twice is the same close');
});

async function writeBadLockfiles(t: TestContext, dirs: Dirs) {
  const other = await editor(t, 'other-editors-token');
  const http = await startHttpServer();
  t.after(() => http.close());
  const gone = await startHttpServer();
  await gone.close();
  return {
    http,
    other,
    gone,
    garbage: await writeLock(dirs.pi, 1111, '{"pid": 12, oops'),
    deadEditor: await writeLock(dirs.pi, 2222, lockBody(dead, 'x')),
    httpOwned: await writeLock(dirs.pi, http.port, lockBody(live.pid, 'x')),
    refused: await writeLock(dirs.claude, gone.port, lockBody(live.pid, 'x')),
    wrongToken: await writeLock(dirs.claude, other.port, lockBody(live.pid, 'not-the-token')),
    badName: await writeLock(dirs.claude, 0, lockBody(live.pid, 'x')),
  };
}

test('bad lockfiles are listed with a reason and break nothing', async (t) => {
  const dirs = await freshDirs();
  const good = await editor(t, 'good');
  await writeLock(dirs.pi, good.port, lockBody(live.pid, 'good'));
  const bad = await writeBadLockfiles(t, dirs);
  const { discovery, logs } = await discover(t, dirs, { takeover: false });
  await discovery.start();

  const { editors, invalid } = discovery.current();
  assert.deepEqual(
    editors.map((e) => e.port),
    [good.port],
  );
  const reasons = Object.fromEntries(invalid.map((i) => [i.path, i.reason]));
  assert.match(reasons[bad.garbage] ?? '', /^not JSON: /);
  assert.equal(reasons[bad.deadEditor], `pid ${dead} is not running`);
  assert.equal(reasons[bad.httpOwned], `port ${bad.http.port} is owned by something that is not an editor's WebSocket server`);
  assert.equal(reasons[bad.refused], `port ${bad.gone.port} is not accepting connections`);
  assert.equal(reasons[bad.wrongToken], `the server on port ${bad.other.port} rejects this lockfile's token`);
  assert.equal(reasons[bad.badName], 'file name is not <port>.lock');
  assert.equal(invalid.length, 6);
  assert.ok(logs.some((line) => line.startsWith(`lockfile ${bad.garbage}: not JSON`)), 'bad input is logged with its source');
});

test('under takeover, bad lockfiles an agent would still count are moved aside too, and put back on quit', async (t) => {
  const dirs = await freshDirs();
  const bad = await writeBadLockfiles(t, dirs);
  const { discovery } = await discover(t, dirs);
  await discovery.start();

  // Agents skip unparsable files, dead pids and closed ports; those stay where they are.
  for (const path of [bad.garbage, bad.deadEditor, bad.refused, bad.badName]) {
    assert.ok((await lstat(path)).isFile(), `${path} left where it was`);
  }
  // A live pid on a port that accepts TCP would be a second match for agents.
  const heldHttp = join(dirs.pi, '.patchbay', `${bad.http.port}.lock`);
  const heldWrong = join(dirs.claude, '.patchbay', `${bad.other.port}.lock`);
  const reasons = Object.fromEntries(discovery.current().invalid.map((i) => [i.path, i.reason]));
  assert.match(reasons[heldHttp] ?? '', /not an editor's WebSocket server/);
  assert.match(reasons[heldWrong] ?? '', /rejects this lockfile's token/);
  await assert.rejects(lstat(bad.httpOwned), { code: 'ENOENT' });
  await assert.rejects(lstat(bad.wrongToken), { code: 'ENOENT' });

  // Later checks keep them held, and list them once.
  await discovery.check();
  assert.equal(discovery.current().invalid.length, 6);
  assert.deepEqual(discovery.current().editors, []);

  const report = await discovery.close();
  assert.deepEqual(report.restored.sort(), [bad.httpOwned, bad.wrongToken].sort());
  assert.ok((await lstat(bad.httpOwned)).isFile());
  assert.ok((await lstat(bad.wrongToken)).isFile());
});

test('with takeover off, editors are listed and their lockfiles stay where they are', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  const original = await writeLock(dirs.claude, ed.port, lockBody(live.pid, ed.token));
  const { discovery } = await discover(t, dirs, { takeover: false });
  await discovery.start();
  assert.equal(discovery.current().editors[0]?.lockfile, original);
  assert.equal(discovery.current().editors[0]?.dialect, 'claude');
  assert.deepEqual(await ls(dirs.claude), [`${ed.port}.lock`]);

  await discovery.setTakeover(true);
  assert.equal(discovery.current().editors[0]?.lockfile, join(dirs.claude, '.patchbay', `${ed.port}.lock`));
  await discovery.setTakeover(false);
  assert.equal(discovery.current().editors[0]?.lockfile, original, 'turning takeover off gives the lockfile back');
  assert.ok((await lstat(original)).isFile());
});

test('stopping takeover restores the adopted lockfiles and reports them, even with a check already queued', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  const original = await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token));
  const { discovery } = await discover(t, dirs, { livenessMs: 60_000 });
  await discovery.start();
  assert.ok(!(await ls(dirs.pi)).includes(`${ed.port}.lock`), 'adopted');

  const queued = discovery.check(); // as a watcher event or the liveness timer would
  const report = await discovery.stopTakeover();
  await queued;
  assert.deepEqual(report, { restored: [original], removed: [] });
  assert.ok((await lstat(original)).isFile());
  assert.equal(discovery.current().editors[0]?.lockfile, original, 'still listed, where agents find it');
});

test('a new editor lockfile is listed by the watcher, not the next poll', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  // Timers far slower than the wait below: only the watcher can list it in time. How fast
  // (within 100 ms) is measured by the benchmark, not here, where load would make it flake.
  const { discovery, states } = await discover(t, dirs, { pollMs: 120_000, livenessMs: 120_000 });
  await discovery.start();
  assert.equal(discovery.current().editors.length, 0);
  await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token));
  await waitFor(() => states.at(-1)?.editors.length === 1, { message: 'the new editor', timeoutMs: 20_000, intervalMs: 5 });
});

test("an editor that dies drops out and its adopted lockfile is deleted", async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  const proc = await spawnLive();
  t.after(() => proc.kill());
  await writeLock(dirs.pi, ed.port, lockBody(proc.pid, ed.token));
  const { discovery, logs } = await discover(t, dirs);
  await discovery.start();
  const adopted = discovery.current().editors[0]?.lockfile;
  assert.equal(adopted, join(dirs.pi, '.patchbay', `${ed.port}.lock`));

  await proc.kill();
  await waitFor(() => discovery.current().editors.length === 0, { message: 'the editor to drop out' });
  await assert.rejects(lstat(adopted!), { code: 'ENOENT' });
  assert.ok(logs.some((line) => line.includes(`editor pid ${proc.pid} is gone`)));
  assert.deepEqual(discovery.current().invalid, [], 'a removed file is not listed as invalid');
});

test('an editor killed but not yet reaped (a zombie) is dead: its adopted lockfile is deleted, not given back', { skip: process.platform !== 'linux' && 'zombies are read from /proc' }, async (t) => {
  const dirs = await freshDirs();
  const ed = await startEditor('zombie');
  const proc = await spawnUnreaped();
  t.after(proc.cleanup);
  await writeLock(dirs.pi, ed.port, lockBody(proc.pid, 'zombie'));
  const { discovery } = await discover(t, dirs, { livenessMs: 60_000 });
  await discovery.start();
  const adopted = discovery.current().editors[0]?.lockfile;
  assert.equal(adopted, join(dirs.pi, '.patchbay', `${ed.port}.lock`));

  // A kill -9 closes the editor's port and leaves its pid a zombie until the parent reaps it.
  await ed.close();
  await proc.kill();
  await discovery.markSuspect(ed.port);
  assert.deepEqual(discovery.current().editors, []);
  await assert.rejects(lstat(adopted!), { code: 'ENOENT' });
  assert.deepEqual(await ls(dirs.pi), ['.patchbay'], 'nothing given back for agents to trip on');
  assert.deepEqual(discovery.current().invalid, []);
});

test('leftovers of a crash are recovered on start: live editors stay adopted, dead ones go', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  const held = join(dirs.pi, '.patchbay');
  await mkdir(held);
  const liveLeftover = await writeLock(held, ed.port, lockBody(live.pid, ed.token));
  const deadLeftover = await writeLock(held, 3333, lockBody(dead, 'x'));
  const staleDoor = await writeLock(dirs.pi, 7100, lockBody(dead, 'door', ['/a'], 'Patchbay'));

  const { discovery } = await discover(t, dirs);
  await discovery.start();
  assert.deepEqual(
    discovery.current().editors.map((e) => [e.port, e.lockfile]),
    [[ed.port, liveLeftover]],
  );
  await assert.rejects(lstat(deadLeftover), { code: 'ENOENT' });
  await assert.rejects(lstat(staleDoor), { code: 'ENOENT' });

  // And the restart's own quit puts the editor's lockfile back where the editor wrote it.
  await discovery.close();
  assert.deepEqual(await ls(dirs.pi), [`${ed.port}.lock`]);
});

test('leftovers are moved back on start when takeover is off', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  await mkdir(join(dirs.claude, '.patchbay'));
  await writeLock(join(dirs.claude, '.patchbay'), ed.port, lockBody(live.pid, ed.token));
  const { discovery } = await discover(t, dirs, { takeover: false });
  await discovery.start();
  assert.equal(discovery.current().editors[0]?.lockfile, join(dirs.claude, `${ed.port}.lock`));
  assert.deepEqual(await ls(join(dirs.claude, '.patchbay')), []);
});

test('a second Patchbay refuses to start while another one is running', async (t) => {
  const dirs = await freshDirs();
  const otherDoor = await editor(t, 'other-door-token');
  const door = await writeLock(dirs.claude, otherDoor.port, lockBody(live.pid, 'other-door-token', ['/a'], 'Patchbay'));
  const { discovery } = await discover(t, dirs);
  await assert.rejects(discovery.start(), (err: Error) => {
    assert.match(err.message, new RegExp(`another Patchbay \\(pid ${live.pid}\\) is running: its door lockfile is ${door}`));
    return true;
  });
  assert.deepEqual(await discovery.close(), { restored: [], removed: [] });
  assert.ok((await lstat(door)).isFile(), "the other Patchbay's door is untouched");
});

test('a Patchbay door whose pid now belongs to something else is cleared as stale', async (t) => {
  const dirs = await freshDirs();
  const gone = await startHttpServer();
  await gone.close();
  const door = await writeLock(dirs.pi, gone.port, lockBody(live.pid, 't', ['/a'], 'Patchbay'));
  const { discovery } = await discover(t, dirs);
  await discovery.start();
  await assert.rejects(lstat(door), { code: 'ENOENT' });
});

test('the same editor in both lock dirs is one editor, spoken to in the pi dialect', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  await writeLock(dirs.claude, ed.port, lockBody(live.pid, ed.token));
  await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token));
  const { discovery } = await discover(t, dirs);
  await discovery.start();
  const { editors } = discovery.current();
  assert.equal(editors.length, 1);
  assert.equal(editors[0]!.dialect, 'pi');
  assert.deepEqual(await ls(dirs.claude), ['.patchbay'], 'both lockfiles are adopted');
  assert.deepEqual(await ls(dirs.pi), ['.patchbay']);
});

test('the door lockfile is rewritten only when what it advertises changes', async (t) => {
  const dirs = await freshDirs();
  const { discovery } = await discover(t, dirs);
  await discovery.start();
  const spec = { port: 7200, tokens: { pi: 'p', claude: 'c' }, folders: ['/x', '/y', '/x'] };
  const paths = await discovery.publishDoor(spec);
  assert.deepEqual(paths, [join(dirs.pi, '7200.lock'), join(dirs.claude, '7200.lock')]);
  assert.deepEqual(discovery.doorLockfiles(), paths);
  assert.deepEqual(JSON.parse(await readFile(paths[1]!, 'utf8')).workspaceFolders, ['/x', '/y']);
  assert.equal((await stat(paths[1]!)).mode & 0o777, 0o600);
  const first = await stat(paths[0]!);

  await discovery.publishDoor({ ...spec, folders: ['/x', '/y'] });
  assert.equal((await stat(paths[0]!)).ino, first.ino, 'same folders: not rewritten');

  await discovery.publishDoor({ ...spec, folders: ['/x', '/y', '/z'] });
  assert.notEqual((await stat(paths[0]!)).ino, first.ino);
  assert.deepEqual(JSON.parse(await readFile(paths[0]!, 'utf8')).workspaceFolders, ['/x', '/y', '/z']);

  // Claude support turned off: its door goes away.
  await discovery.publishDoor({ ...spec, tokens: { pi: 'p' } });
  assert.deepEqual(discovery.doorLockfiles(), [paths[0]]);
  await assert.rejects(lstat(paths[1]!), { code: 'ENOENT' });

  // Deleted by someone else: written again on the next check.
  await unlink(paths[0]!);
  await discovery.check();
  assert.ok((await lstat(paths[0]!)).isFile());

  await discovery.close();
  assert.deepEqual(await ls(dirs.pi), []);
});

test('in the Claude dir the door names an editor’s pid, and another editor pid has its own door carrying its folders', async (t) => {
  const dirs = await freshDirs();
  const { discovery } = await discover(t, dirs);
  await discovery.start();
  const code = 4_100_001; // pids as editors' lockfiles name them; only written here, never checked
  const cursor = 4_100_002;
  const spec = {
    port: 7300,
    tokens: { pi: 'p', claude: 'c' },
    folders: ['/w/app', '/w/app/sub', '/w/lib', '/review', '/other'],
    claude: { pid: code, extra: [{ port: 7301, token: 'x', pid: cursor, folders: ['/w/lib'] }] },
  };
  const paths = await discovery.publishDoor(spec);
  assert.deepEqual(paths, [join(dirs.pi, '7300.lock'), join(dirs.claude, '7300.lock'), join(dirs.claude, '7301.lock')]);
  const read = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  assert.deepEqual(await read(paths[0]!), { pid: process.pid, workspaceFolders: spec.folders, ideName: 'Patchbay', transport: 'ws', authToken: 'p' }, 'pi-ide checks no ancestry: the pi door is Patchbay’s');
  assert.deepEqual(await read(paths[1]!), {
    pid: code,
    workspaceFolders: ['/w/app', '/w/app/sub', '/review', '/other'],
    ideName: 'Patchbay',
    transport: 'ws',
    authToken: 'c',
    patchbayPid: process.pid,
  });
  assert.deepEqual(await read(paths[2]!), { pid: cursor, workspaceFolders: ['/w/lib'], ideName: 'Patchbay', transport: 'ws', authToken: 'x', patchbayPid: process.pid });
  for (const path of paths) assert.equal((await stat(path)).mode & 0o777, 0o600);
  assert.deepEqual(discovery.current().editors, [], 'its own door lockfiles are not editors');

  // The other editor quits: its door's lockfile goes, its folders come back to the main one.
  await discovery.publishDoor({ ...spec, claude: { pid: code, extra: [] } });
  assert.deepEqual(discovery.doorLockfiles(), paths.slice(0, 2));
  await assert.rejects(lstat(paths[2]!), { code: 'ENOENT' });
  assert.deepEqual((await read(paths[1]!)).workspaceFolders, spec.folders);
  // No Claude-dialect editor at all: the door is Patchbay’s, as in the pi dir.
  await discovery.publishDoor({ ...spec, claude: { pid: null, extra: [] } });
  assert.deepEqual(await read(paths[1]!), { pid: process.pid, workspaceFolders: spec.folders, ideName: 'Patchbay', transport: 'ws', authToken: 'c' });
  await discovery.close();
  assert.deepEqual(await ls(dirs.claude), []);
});

test('a crashed Patchbay’s door naming a live editor’s pid is cleared on start; a running one’s makes the second refuse', async (t) => {
  const dirs = await freshDirs();
  const gone = await startHttpServer();
  await gone.close();
  // Its pid (an editor's) is alive, its Patchbay (`patchbayPid`) is not.
  const stale = await writeLock(dirs.claude, gone.port, { ...lockBody(live.pid, 't', ['/a'], 'Patchbay'), patchbayPid: dead });
  const first = await discover(t, dirs);
  await first.discovery.start();
  await assert.rejects(lstat(stale), { code: 'ENOENT' });
  assert.ok(first.logs.some((line) => line.includes(`removed a stale Patchbay door (pid ${dead})`)));
  await first.discovery.close();

  const otherDoor = await editor(t, 'other-door-token');
  const running = await writeLock(dirs.claude, otherDoor.port, { ...lockBody(live.pid, 'other-door-token', ['/a'], 'Patchbay'), patchbayPid: live.pid });
  const second = await discover(t, dirs, { portHolder: async (_port, pid) => (pid === live.pid ? 'pid' : 'other') });
  await assert.rejects(second.discovery.start(), new RegExp(`another Patchbay \\(pid ${live.pid}\\) is running`));
  assert.ok((await lstat(running)).isFile());
});

test('an editor the relay reports as dropped is re-checked at once; its port closed, its lockfile is deleted, not given back', async (t) => {
  const dirs = await freshDirs();
  const ed = await startEditor('suspect');
  t.after(() => ed.close());
  const original = await writeLock(dirs.pi, ed.port, lockBody(live.pid, 'suspect'));
  // Slow liveness timer: only markSuspect can notice in time.
  const { discovery } = await discover(t, dirs, { livenessMs: 60_000 });
  await discovery.start();
  assert.equal(discovery.current().editors.length, 1);

  await ed.close(); // the editor stopped serving (quitting: `:qa!` closes the port first); its pid lives on a moment
  await discovery.markSuspect(ed.port);
  assert.deepEqual(discovery.current().editors, []);
  assert.deepEqual(discovery.current().invalid, []);
  // Given back, it would sit in the agents' dir with a dead pid once the editor is gone.
  await assert.rejects(lstat(original), { code: 'ENOENT' });
  assert.deepEqual(await ls(join(dirs.pi, '.patchbay')), []);
});

test('an editor that rewrites its lockfile is picked up with its new folders', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token, ['/old']));
  const { discovery, states } = await discover(t, dirs);
  await discovery.start();
  await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token, ['/new']));
  await waitFor(() => states.at(-1)?.editors[0]?.workspaceFolders[0] === '/new', { message: 'the new folders' });
  assert.deepEqual(await ls(dirs.pi), ['.patchbay']);
  assert.deepEqual(await ls(join(dirs.pi, '.patchbay')), [`${ed.port}.lock`]);
});

test('restoring by hand gives live editors back and removes dead ones', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  await mkdir(join(dirs.pi, '.patchbay'));
  const liveHeld = await writeLock(join(dirs.pi, '.patchbay'), ed.port, lockBody(live.pid, ed.token));
  const deadHeld = await writeLock(join(dirs.pi, '.patchbay'), 4444, lockBody(dead, 'x'));
  // `patchbay restore` with no daemon: no start, just a restore.
  const { discovery } = await discover(t, dirs);
  const report = await discovery.restoreAll();
  assert.deepEqual(report, { restored: [join(dirs.pi, `${ed.port}.lock`)], removed: [deadHeld] });
  await assert.rejects(lstat(liveHeld), { code: 'ENOENT' });
});

test('an adopted lockfile changed by hand, which no watcher reports, is read again at the next whole pass', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token, ['/old']));
  // The watchers' polls never come: only the liveness ticks' whole pass reads `.patchbay/` again.
  const { discovery, states } = await discover(t, dirs, { pollMs: 120_000, livenessMs: 50 });
  await discovery.start();
  const adopted = discovery.current().editors[0]?.lockfile;
  assert.equal(adopted, join(dirs.pi, '.patchbay', `${ed.port}.lock`));
  // Past the passes the start set off (its probes' answers), so none of them reads the change.
  await new Promise((resolve) => setTimeout(resolve, 150));
  await writeLock(join(dirs.pi, '.patchbay'), ed.port, lockBody(live.pid, ed.token, ['/new']));
  await waitFor(() => states.at(-1)?.editors[0]?.workspaceFolders[0] === '/new', { message: 'the new folders' });
});

test('an editor that starts serving after writing its lockfile is listed once it answers', async (t) => {
  const dirs = await freshDirs();
  const reserved = await startHttpServer();
  const port = reserved.port;
  await reserved.close();
  const path = await writeLock(dirs.pi, port, lockBody(live.pid, 'late'));
  const { discovery, states } = await discover(t, dirs, { livenessMs: 50 });
  await discovery.start();
  assert.deepEqual(discovery.current().invalid, [{ path, reason: `port ${port} is not accepting connections` }]);

  const late = await startEditor('late', 400, port);
  t.after(() => late.close());
  await waitFor(() => states.at(-1)?.editors.length === 1, { message: 'the late editor' });
  assert.deepEqual(discovery.current().invalid, []);
});

test('a port that never answers is probed once, not on every check', async (t) => {
  const dirs = await freshDirs();
  const { held, port } = await silentServer(t);
  await writeLock(dirs.pi, port, lockBody(live.pid, 'x'));
  const { discovery } = await discover(t, dirs, { probeTimeoutMs: 300, livenessMs: 60_000 });
  await discovery.start();
  assert.match(discovery.current().invalid[0]?.reason ?? '', /did not answer a WebSocket handshake within 300 ms/);

  await discovery.check();
  await discovery.check();
  // Each probe is a connection the silent server holds: two more checks, still one.
  assert.equal(held.size, 1, 'one probe connection only');
  assert.match(discovery.current().invalid[0]?.reason ?? '', /did not answer/, 'still listed with its reason');
});

test('hung editors being probed do not delay a new editor: each probe runs beside the checks with its own deadline', async (t) => {
  const dirs = await freshDirs();
  const { held, port: silentPort } = await silentServer(t);
  const { discovery, states } = await discover(t, dirs, { probeTimeoutMs: 60_000, livenessMs: 60_000 });
  await discovery.start();
  // Forty hung editors (one silent server behind forty lockfiles), whose probes wait a minute.
  let probing = 0;
  let probesEnded = 0;
  const hung = await Promise.all(Array.from({ length: 40 }, (_, i) => startEditor(`hung-${i}`)));
  t.after(() => Promise.all(hung.map((e) => e.close())));
  for (const [i, e] of hung.entries()) {
    await e.close(); // its port is free again: proxy it to the silent server instead
    const proxy = createServer((socket) => {
      probing++;
      held.add(socket);
      socket.once('close', () => probesEnded++);
      const upstream = createConnection(silentPort, '127.0.0.1');
      held.add(upstream);
      socket.pipe(upstream);
    });
    proxy.listen(e.port, '127.0.0.1');
    await once(proxy, 'listening');
    t.after(() => new Promise<void>((resolve) => proxy.close(() => resolve())));
    await writeLock(dirs.pi, e.port, lockBody(live.pid, `hung-${i}`));
  }
  await waitFor(() => probing === 40, { message: 'every hung editor being probed' });
  const fresh = await editor(t);
  await writeLock(dirs.claude, fresh.port, lockBody(live.pid, fresh.token));
  await waitFor(() => states.at(-1)?.editors.some((e) => e.port === fresh.port), { message: 'the new editor listed' });
  assert.equal(probesEnded, 0, 'while the hung probes still wait');
});

test('another user’s lockfile is listed with the reason and never adopted, even for a live editor', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root to create a file owned by another uid');
  const dirs = await freshDirs();
  const ed = await editor(t);
  const path = await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token));
  await chown(path, 65534, 65534);
  const { discovery, logs } = await discover(t, dirs);
  await discovery.start();

  assert.deepEqual(discovery.current().editors, []);
  const listed = discovery.current().invalid.find((i) => i.path === path);
  assert.ok(listed, 'the foreign lockfile is listed');
  assert.match(listed.reason, /owned by uid 65534, not by you \(uid 0\)/);
  assert.deepEqual(await ls(dirs.pi), [`${ed.port}.lock`], 'left where it is, nothing adopted');
  assert.equal(ed.upgrades, 0, 'not even probed');
  assert.ok(logs.some((l) => l.includes(path) && l.includes('uid 65534')), 'and logged');
});

test('garbage written at an adopted editor’s path costs the editor nothing; on quit its lockfile goes back and the garbage aside', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t);
  const original = await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token, ['/home/me/proj']));
  const body = await readFile(original, 'utf8');
  const { discovery } = await discover(t, dirs);
  await discovery.start();
  const adopted = join(dirs.pi, '.patchbay', `${ed.port}.lock`);
  assert.equal(discovery.current().editors[0]?.lockfile, adopted);

  await writeLock(dirs.pi, ed.port, 'garbage{');
  await waitFor(() => discovery.current().invalid.some((i) => i.path === original), { message: 'the garbage listed' });
  assert.deepEqual(
    discovery.current().editors.map((e) => [e.port, e.lockfile]),
    [[ed.port, adopted]],
    'the editor is still listed, still adopted',
  );
  assert.equal(await readFile(adopted, 'utf8'), body);

  const report = await discovery.close();
  assert.deepEqual(report.restored, [original]);
  assert.equal(await readFile(original, 'utf8'), body, 'the editor’s own lockfile is back');
  const aside = (await ls(dirs.pi)).filter((name) => name.startsWith(`${ed.port}.lock.displaced-`));
  assert.equal(aside.length, 1, 'the garbage is moved aside, not deleted');
  assert.equal(await readFile(join(dirs.pi, aside[0]!), 'utf8'), 'garbage{');
  assert.ok(report.warnings?.some((w) => w.includes(aside[0]!)), 'and the report says where it went');
});

test('a lock dir that cannot be written is reported stale, and gets the door lockfile within seconds once it can', async (t) => {
  const dirs = await freshDirs();
  // A file where the lock dir should be: no door lockfile can be written there, even by root.
  await rm(dirs.claude, { recursive: true });
  await writeFile(dirs.claude, 'in the way');
  const { discovery, states } = await discover(t, dirs, { doorRetryFirstMs: 50, doorRetryMaxMs: 400 });
  await discovery.start();
  const doors = await discovery.publishDoor({ port: 7001, tokens: { pi: 'door-pi', claude: 'door-claude' }, folders: ['/home/me/proj'] });
  assert.deepEqual(doors, [join(dirs.pi, '7001.lock')]);
  const [problem] = discovery.current().doorProblems;
  assert.ok(problem, 'the stale door is reported');
  assert.ok(problem.includes(join(dirs.claude, '7001.lock')), `names the path: ${problem}`);

  await rm(dirs.claude);
  await mkdir(dirs.claude, { mode: 0o700 });
  const healed = await waitFor(() => states.find((s) => s.doorProblems.length === 0 && states.indexOf(s) > 0), {
    message: 'the door lockfile written once the dir could be written',
  });
  assert.deepEqual(healed.doorProblems, []);
  assert.deepEqual(discovery.doorLockfiles(), [join(dirs.pi, '7001.lock'), join(dirs.claude, '7001.lock')]);
  assert.equal(JSON.parse(await readFile(join(dirs.claude, '7001.lock'), 'utf8')).authToken, 'door-claude');
});

test('a door lockfile someone else rewrote is put right on the next check', async (t) => {
  const dirs = await freshDirs();
  const { discovery, logs } = await discover(t, dirs);
  await discovery.start();
  const [door] = await discovery.publishDoor({ port: 7002, tokens: { pi: 'door-pi' }, folders: ['/home/me/proj'] });
  await writeLock(dirs.pi, 7002, lockBody(process.pid, 'forged', ['/home/me/proj'], 'Patchbay'));
  await discovery.check();
  assert.equal(JSON.parse(await readFile(door!, 'utf8')).authToken, 'door-pi');
  assert.ok(logs.some((l) => l.includes(door!) && l.includes('changed by someone else')), logs.join('\n'));
});

test('a lockfile naming a pid that does not hold its port is not taken for the editor', async (t) => {
  const dirs = await freshDirs();
  const ed = await editor(t); // served by this process
  await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token));
  const { discovery } = await discover(t, dirs, { portHolder: portHeldBy });
  await discovery.start();
  assert.deepEqual(discovery.current().editors, []);
  const listed = discovery.current().invalid.find((i) => i.path.endsWith(`${ed.port}.lock`));
  assert.match(listed?.reason ?? '', new RegExp(`neither pid ${live.pid} nor a process descended from it holds port ${ed.port}`));
  assert.equal(ed.upgrades, 0, 'its token went nowhere');

  // The same file naming the pid that does serve the port is the editor.
  await writeLock(dirs.claude, ed.port, lockBody(process.pid, ed.token));
  await discovery.check();
  assert.deepEqual(discovery.current().editors.map((e) => [e.pid, e.dialect]), [[process.pid, 'claude']]);
});

/** A "Pi IDE Protocol v1" lockfile, as xl0/pi-lovely-ide's VS Code plugin writes it. */
function piIdeV1(port: number, pid: number, workspaces = ['/work/project']): object {
  return { protocol: 'pi-ide', version: 1, port, pid, workspaces, ide: 'VS Code', token: 'their-token' };
}

/** What identifies a file as untouched: its bytes, inode and modification time. */
async function fingerprint(path: string): Promise<string> {
  const info = await stat(path);
  return `${info.ino}:${info.mtimeMs}:${await readFile(path, 'utf8')}`;
}

test("another tool's lockfiles (Pi IDE Protocol v1) are listed as another protocol's, and never moved, rewritten or deleted: through checks, takeover, a give-back, the door and the stop", async (t) => {
  const dirs = await freshDirs();
  // A live one on a port that answers (their server), one of a dead pid, one not named <port>.lock.
  const theirs = await editor(t, 'their-token');
  const ed = await editor(t);
  const files = {
    live: await writeLock(dirs.pi, theirs.port, piIdeV1(theirs.port, live.pid)),
    dead: await writeLock(dirs.pi, 3333, piIdeV1(3333, dead)),
    named: join(dirs.pi, 'window-2.lock'),
    door: await writeLock(dirs.pi, 7100, piIdeV1(7100, dead)),
  };
  await writeFile(files.named, JSON.stringify(piIdeV1(5555, live.pid)));
  const editorFile = await writeLock(dirs.pi, ed.port, lockBody(live.pid, ed.token));
  const before = Object.fromEntries(await Promise.all(Object.entries(files).map(async ([k, p]) => [k, await fingerprint(p)])));
  const untouched = async (when: string) => {
    for (const [key, path] of Object.entries(files)) assert.equal(await fingerprint(path), before[key], `${when}: ${path}`);
  };

  const { discovery } = await discover(t, dirs);
  await discovery.start();
  const { editors, invalid, others } = discovery.current();
  assert.deepEqual(editors.map((e) => e.port), [ed.port], 'the editor beside them is adopted as ever');
  assert.deepEqual(invalid, [], 'none is listed as a broken lockfile');
  assert.deepEqual(
    others.map((o) => [o.path, o.protocol, o.description]),
    [
      [files.dead, 'pi-ide', `Pi IDE Protocol v1 (VS Code, pid ${dead})`],
      [join(dirs.pi, `${theirs.port}.lock`), 'pi-ide', `Pi IDE Protocol v1 (VS Code, pid ${live.pid})`],
      [files.door, 'pi-ide', `Pi IDE Protocol v1 (VS Code, pid ${dead})`],
      [files.named, 'pi-ide', `Pi IDE Protocol v1 (VS Code, pid ${live.pid})`],
    ].sort((a, b) => a[0]!.localeCompare(b[0]!)),
  );
  assert.equal(theirs.upgrades, 0, 'their server is never probed, so it never gets a token of anyone');
  await untouched('after start');

  // The door's port holds one of theirs: the door is not written over it, and that is said.
  await discovery.publishDoor({ port: 7100, tokens: { pi: 'door-token' }, folders: ['/work/project'] });
  assert.match(discovery.current().doorProblems.join('\n'), /7100\.lock is another tool's lockfile \(Pi IDE Protocol v1 \(VS Code, pid \d+\)\), which Patchbay leaves alone/);
  await untouched('after the door was published');

  // One of theirs now sits where the adopted editor's lockfile would go back (a port reused).
  await writeFile(editorFile, JSON.stringify(piIdeV1(ed.port, dead)));
  Object.assign(files, { onEditorPort: editorFile });
  before.onEditorPort = await fingerprint(editorFile);
  await discovery.check();
  assert.deepEqual(discovery.current().editors.map((e) => e.port), [ed.port], 'the editor stays adopted behind it');
  await discovery.setTakeover(false); // takeover off gives adopted files back: not onto theirs
  await untouched('after takeover was turned off');
  assert.ok((await lstat(join(dirs.pi, '.patchbay', `${ed.port}.lock`))).isFile(), 'the editor’s lockfile stays adopted rather than displace theirs');

  const report = await discovery.close();
  await untouched('after the stop');
  assert.match((report.warnings ?? []).join('\n'), new RegExp(`${ed.port}\\.lock is another tool's lockfile .*, which Patchbay leaves alone; it stays where it is`));
  assert.ok((await lstat(join(dirs.pi, '.patchbay', `${ed.port}.lock`))).isFile(), 'never deleted while its editor may live');
  const restored = await discover(t, dirs);
  await restored.discovery.restoreAll();
  await untouched('after a restore by hand');
});
