import assert from 'node:assert/strict';
import { once } from 'node:events';
import { realpath } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { platform } from 'node:os';
import { test } from 'node:test';
import { findPeerPid, PeerFinder, portHeldBy, procScan, processInfo, type ProcReader } from '../../src/discovery/peer-process.ts';
import { spawnLive } from './helpers.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const hex4 = (port: number): string => port.toString(16).toUpperCase().padStart(4, '0');

/** A `/proc/net/tcp` row from 127.0.0.1:`localPort` to 127.0.0.1:`remotePort`. */
function row(n: number, localPort: number, remotePort: number, inode: number): string {
  return `${String(n).padStart(4)}: 0100007F:${hex4(localPort)} 0100007F:${hex4(remotePort)} 01 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 20 4 30 10 -1`;
}

/** The same row in `/proc/net/tcp6`, IPv4-mapped. */
function row6(n: number, localPort: number, remotePort: number, inode: number): string {
  const addr = '0000000000000000FFFF00000100007F';
  return `${String(n).padStart(4)}: ${addr}:${hex4(localPort)} ${addr}:${hex4(remotePort)} 01 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0 20 4 30 10 -1`;
}

const HEADER = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';

interface FakeProc extends ProcReader {
  tableReads: string[];
  pidListings: number;
  fdReads: number[];
}

/** A /proc with the given tables (by read: `tables(n)` for the n-th read of each) and fds, counting what is read. */
function fakeProc(tables: (read: number) => Record<string, string[]>, fds: Record<number, string[]>, parents: Record<number, number> = {}): FakeProc {
  const proc: FakeProc = {
    tableReads: [],
    pidListings: 0,
    fdReads: [],
    async eachLine(path, onLine) {
      const read = proc.tableReads.filter((p) => p === path).length;
      proc.tableReads.push(path);
      const lines = tables(read)[path];
      if (!lines) return false;
      for (const line of [HEADER, ...lines]) onLine(line);
      return true;
    },
    async pids() {
      proc.pidListings++;
      return Object.keys(fds).map(Number);
    },
    async fdTargets(pid) {
      proc.fdReads.push(pid);
      return fds[pid] ?? [];
    },
    async parents() {
      return new Map(Object.keys(fds).map((pid) => [Number(pid), parents[Number(pid)] ?? 1]));
    },
  };
  return proc;
}

const DOOR = 7000;

test('lookups that arrive together share one read of the socket tables and one walk of the processes', async () => {
  const fds: Record<number, string[]> = { [process.pid]: ['socket:[900]'] };
  for (let pid = 1; pid <= 60; pid++) fds[pid] = ['/dev/null', 'pipe:[5]'];
  fds[60] = ['socket:[101]', '/dev/null'];
  fds[59] = ['socket:[102]', 'socket:[103]'];
  fds[1] = ['socket:[101]']; // an older process sharing the fd (a parent): the newest wins
  const proc = fakeProc(
    () => ({
      '/proc/net/tcp': [
        row(0, DOOR, 0, 1),
        row(1, DOOR, 50001, 900), // the door's side of the connection: not the agent
        row(2, 50001, DOOR, 101),
        row(3, 50002, DOOR, 102),
        row(4, 50004, 7001, 104), // same agent-side port shape, another door
      ],
      '/proc/net/tcp6': [row6(0, 50003, DOOR, 103)],
    }),
    fds,
  );
  const finder = new PeerFinder(procScan(proc));
  const pids = await Promise.all([finder.find(DOOR, 50001), finder.find(DOOR, 50002), finder.find(DOOR, 50003), finder.find(DOOR, 50002)]);
  assert.deepEqual(pids, [60, 59, 59, 59]);
  assert.deepEqual(proc.tableReads.sort(), ['/proc/net/tcp', '/proc/net/tcp6']);
  assert.equal(proc.pidListings, 1);
  assert.ok(!proc.fdReads.includes(process.pid), 'the walk stopped before reaching our own process');
  assert.ok(proc.fdReads.length < 60, `the walk stopped once every socket was found (read ${proc.fdReads.length} of 61)`);
});

test('a socket missing from the first read of the table is found on the second look', async () => {
  const proc = fakeProc((read) => ({ '/proc/net/tcp': read === 0 ? [] : [row(0, 50001, DOOR, 101)] }), { 42: ['socket:[101]'] });
  const finder = new PeerFinder(procScan(proc));
  assert.equal(await finder.find(DOOR, 50001), 42);
  assert.deepEqual(proc.tableReads, ['/proc/net/tcp', '/proc/net/tcp6', '/proc/net/tcp', '/proc/net/tcp6']);
});

test('a connection that never shows up is given up after the second look', async () => {
  const proc = fakeProc(() => ({ '/proc/net/tcp': [row(0, 50001, DOOR, 101)] }), { 42: ['socket:[101]'] });
  const finder = new PeerFinder(procScan(proc));
  assert.deepEqual(await Promise.all([finder.find(DOOR, 50001), finder.find(DOOR, 50009)]), [42, null]);
  assert.equal(proc.tableReads.filter((p) => p === '/proc/net/tcp').length, 2, 'one batch, then one retry for the missing port');
});

test("a socket no visible process holds has no pid, without a second look", async () => {
  const proc = fakeProc(() => ({ '/proc/net/tcp': [row(0, 50001, DOOR, 101)] }), { 42: ['/dev/null'] });
  const finder = new PeerFinder(procScan(proc));
  assert.equal(await finder.find(DOOR, 50001), null);
  assert.equal(proc.tableReads.length, 2);
});

test('a failing scan fails every lookup waiting on it, saying what broke', async () => {
  const finder = new PeerFinder(async () => {
    throw new Error('/proc: EIO');
  });
  const results = await Promise.allSettled([finder.find(DOOR, 50001), finder.find(DOOR, 50002)]);
  for (const result of results) {
    assert.equal(result.status, 'rejected');
    assert.match((result.reason as Error).message, /looking up 2 agent process\(es\) by TCP port: \/proc: EIO/);
  }
});

test('100 agents connecting at once are all identified well within the relay limit', { skip: platform() !== 'linux' && 'the live lookup is tested on Linux' }, async (t) => {
  const count = 100;
  const { path: dir, cleanup } = await tempDir('peer-batch');
  t.after(cleanup);
  const accepted: Socket[] = [];
  const server = createServer((socket) => accepted.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const port = (server.address() as AddressInfo).port;
  const script = `for (let i = 0; i < ${count}; i++) require('net').connect(${port}, '127.0.0.1'); setInterval(() => {}, 1000)`;
  const child = await spawnLive(['-e', script], dir);
  t.after(() => child.kill());
  await waitFor(() => accepted.length === count, { message: `${count} connections from the child` });

  const started = performance.now();
  const infos = await Promise.all(
    accepted.map(async (socket) => {
      const pid = await findPeerPid(port, socket.remotePort!);
      return pid === null ? null : processInfo(pid);
    }),
  );
  const elapsed = performance.now() - started;
  t.diagnostic(`${count} concurrent lookups (pid + process info) took ${elapsed.toFixed(1)} ms`);
  const folder = await realpath(dir);
  assert.deepEqual(
    infos.map((info) => [info?.pid, info?.cwd]),
    infos.map(() => [child.pid, folder]),
  );
  assert.ok(elapsed < 2000, `took ${elapsed.toFixed(0)} ms, over the relay's 2000 ms limit`);
});

test('a port is held by a lockfile’s pid when that pid, or a process descended from it, listens there', async () => {
  const listen = (port: number, inode: number): string =>
    `   0: 0100007F:${port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 ${inode} 1 0000000000000000 100 0 0 10 0`;
  // 10 is VS Code's main process; 11 its window's extension host (a child), 12 a grandchild; 20 unrelated.
  const fds = { 10: ['/dev/null'], 11: ['/dev/null'], 12: ['socket:[501]'], 20: ['socket:[502]'] };
  const proc = fakeProc(() => ({ '/proc/net/tcp': [listen(4711, 501), listen(4712, 502)], '/proc/net/tcp6': [] }), fds, { 11: 10, 12: 11, 20: 1 });
  assert.equal(await portHeldBy(4711, 12, proc), 'pid');
  assert.equal(await portHeldBy(4711, 10, proc), 'pid', 'a descendant of the pid holds it');
  assert.equal(await portHeldBy(4712, 10, proc), 'other', 'a process outside the family holds it');
  assert.equal(await portHeldBy(4713, 10, proc), 'none');
  assert.equal(await portHeldBy(4711, 20, proc), 'other');
});
