import assert from 'node:assert/strict';
import { once } from 'node:events';
import { realpath } from 'node:fs/promises';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { platform } from 'node:os';
import { after, before, test } from 'node:test';
import {
  ANCESTRY_DEPTH,
  ancestorsOf,
  commandFromCmdline,
  decodeProcAddress,
  findPeerPid,
  parseLsofName,
  parseLsofPeer,
  parseProcNetTcp,
  parsePsLine,
  parsePsParents,
  processInfo,
  startTicksFromStat,
} from '../../src/discovery/peer-process.ts';
import { deadPid, spawnLive } from './helpers.ts';
import { tempDir } from '../peers/wait.ts';

const linux = platform() === 'linux';

test('/proc/net/tcp addresses decode, IPv4-mapped IPv6 included', () => {
  assert.equal(decodeProcAddress('0100007F'), '127.0.0.1');
  assert.equal(decodeProcAddress('00000000000000000000000001000000'), '::1');
  assert.equal(decodeProcAddress('0000000000000000FFFF00000100007F'), '127.0.0.1');
  assert.equal(decodeProcAddress('00000000000000000000000000000000'), '::');
});

test('/proc/net/tcp{,6} rows parse into ports, states and inodes', () => {
  const tcp = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:1B58 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 11111 1 0000000000000000 100 0 0 10 0',
    '   1: 0100007F:CC39 0100007F:1B58 01 00000000:00000000 00:00000000 00000000  1000        0 22222 1 0000000000000000 20 4 30 10 -1',
    '   2: garbage line',
    '',
  ].join('\n');
  assert.deepEqual(parseProcNetTcp(tcp), [
    { localAddress: '127.0.0.1', localPort: 7000, remoteAddress: '0.0.0.0', remotePort: 0, state: '0A', inode: 11111 },
    { localAddress: '127.0.0.1', localPort: 52281, remoteAddress: '127.0.0.1', remotePort: 7000, state: '01', inode: 22222 },
  ]);
  const tcp6 =
    'header\n' +
    '   0: 0000000000000000FFFF00000100007F:CC39 0000000000000000FFFF00000100007F:1B58 01 00000000:00000000 00:00000000 00000000  1000        0 33333 1 0 20 4 30 10 -1\n';
  assert.deepEqual(parseProcNetTcp(tcp6), [
    { localAddress: '127.0.0.1', localPort: 52281, remoteAddress: '127.0.0.1', remotePort: 7000, state: '01', inode: 33333 },
  ]);
});

test('lsof output names the pid on the agent side of the connection', () => {
  const output = ['p100', 'f5', 'n127.0.0.1:7000->127.0.0.1:52345', 'p200', 'f12', 'n127.0.0.1:52345->127.0.0.1:7000', ''].join('\n');
  assert.equal(parseLsofPeer(output, 7000, 52345), 200);
  assert.equal(parseLsofPeer('p300\nf3\nn[::1]:52345->[::1]:7000\n', 7000, 52345), 300);
  assert.equal(parseLsofPeer('p300\nf3\nn127.0.0.1:52345->127.0.0.1:7001\n', 7000, 52345), null);
  assert.equal(parseLsofPeer('', 7000, 52345), null);
  assert.equal(parseLsofName('p42\nfcwd\nn/Users/me/project\n'), '/Users/me/project');
});

test('ps and /proc lines give start times and command lines', () => {
  const ps = parsePsLine('Mon Jan  6 09:05:03 2025 /usr/local/bin/node /usr/local/bin/pi --continue');
  assert.equal(ps.command, '/usr/local/bin/node /usr/local/bin/pi --continue');
  assert.equal(ps.startedAt, new Date(2025, 0, 6, 9, 5, 3).getTime());
  assert.deepEqual(parsePsLine('no date here'), { startedAt: null, command: 'no date here' });

  const stat = '1234 (odd) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 98765 1000 200';
  assert.equal(startTicksFromStat(stat), 98765);
  assert.equal(startTicksFromStat('garbage'), null);
  assert.equal(commandFromCmdline('node\0/usr/bin/pi\0--mode\0rpc\0'), 'node /usr/bin/pi --mode rpc');
  assert.equal(commandFromCmdline(''), null);
  assert.equal(commandFromCmdline(`pi${'\0'.repeat(170)}`), 'pi', 'a process title padded with NULs');
  assert.equal(commandFromCmdline('node\0\0x\0'), 'node  x', 'an empty argument inside is kept');
});

test('an agent’s ancestors: its parent upwards, without init, loops or more than the depth', async () => {
  const parents = new Map([[50, 40], [40, 30], [30, 1], [7, 8], [8, 7]]);
  const parentOf = async (pid: number) => parents.get(pid) ?? null;
  assert.deepEqual(await ancestorsOf(50, parentOf), [40, 30]);
  assert.deepEqual(await ancestorsOf(7, parentOf), [8], 'a loop stops');
  assert.deepEqual(await ancestorsOf(99, parentOf), []);
  const deep = await ancestorsOf(1000, async (pid) => pid + 1);
  assert.equal(deep.length, ANCESTRY_DEPTH);
  assert.deepEqual(parsePsParents('  1     0\n 501   1\n 777 501\nbad line\n'), new Map([[1, 0], [501, 1], [777, 501]]));
});

test('a process’s info names the processes it runs under', { skip: platform() !== 'linux' && platform() !== 'darwin' && 'no process table here' }, async () => {
  const child = await spawnLive();
  try {
    const info = await processInfo(child.pid);
    assert.equal(info?.ancestors?.[0], process.pid);
    assert.ok(info!.ancestors!.includes(process.ppid));
  } finally {
    await child.kill();
  }
});

test('a vanished or impossible pid has no process info', async () => {
  assert.equal(await processInfo(await deadPid()), null);
  assert.equal(await processInfo(0), null);
});

test.describe('on this machine', { skip: !linux && 'the live lookups are tested on Linux' }, () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  before(async () => ({ path: dir, cleanup } = await tempDir('peer')));
  after(() => cleanup());

  async function connectChild(host: string) {
    const accepted: Socket[] = [];
    const server = createServer((socket) => accepted.push(socket));
    server.listen(0, host);
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const script = `require('net').connect(${port}, ${JSON.stringify(host)}); setInterval(() => {}, 1000)`;
    const child = await spawnLive(['-e', script], dir);
    const close = async () => {
      await child.kill();
      for (const socket of accepted) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    };
    try {
      const deadline = Date.now() + 2000;
      while (accepted.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      assert.equal(accepted.length, 1, 'the child connected');
    } catch (err) {
      await close();
      throw err;
    }
    return { port, child, remotePort: accepted[0]!.remotePort!, close };
  }

  test('the agent process behind a door connection is found from its TCP port', async (t) => {
    const { port, child, remotePort, close } = await connectChild('127.0.0.1');
    t.after(close);
    const started = performance.now();
    assert.equal(await findPeerPid(port, remotePort), child.pid);
    t.diagnostic(`peer pid lookup took ${(performance.now() - started).toFixed(1)} ms`);
    assert.equal(await findPeerPid(port, remotePort + 1 === port ? remotePort + 2 : remotePort + 1), null);
  });

  test('the agent process is found over IPv6 loopback too', async (t) => {
    let conn;
    try {
      conn = await connectChild('::1');
    } catch (err) {
      t.skip(`no IPv6 loopback here: ${(err as Error).message}`);
      return;
    }
    t.after(conn.close);
    assert.equal(await findPeerPid(conn.port, conn.remotePort), conn.child.pid);
  });

  test("a process's folder, command line and start time are read", async (t) => {
    const before = Date.now();
    const child = await spawnLive(['-e', 'setInterval(() => {}, 1000)'], dir);
    t.after(() => child.kill());
    const info = await processInfo(child.pid);
    assert.ok(info);
    assert.equal(info.pid, child.pid);
    assert.equal(info.cwd, await realpath(dir));
    assert.equal(info.command, `${process.execPath} -e setInterval(() => {}, 1000)`);
    assert.ok(info.startedAt !== null && Math.abs(info.startedAt - before) < 2000, `startedAt ${info.startedAt} vs ${before}`);
  });
});
