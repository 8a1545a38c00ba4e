import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { pidAlive, portAccepting, probeEditor } from '../../src/discovery/liveness.ts';
import { deadPid, isZombie, spawnLive, spawnUnreaped, startEditor, startHttpServer, type FakeEditor, type LiveProcess } from './helpers.ts';
import { withTimeout } from '../peers/wait.ts';

let live: LiveProcess;
let editor: FakeEditor;
before(async () => {
  live = await spawnLive();
  editor = await startEditor('right-token');
});
after(async () => {
  await live.kill();
  await editor.close();
});

async function listen(server: Server): Promise<number> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on: bound once, then released. */
async function freePort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise((resolve) => server.close(resolve));
  return port;
}

test('a running process is alive; an exited one and nonsense pids are not', async () => {
  assert.equal(pidAlive(process.pid), true);
  assert.equal(pidAlive(live.pid), true);
  assert.equal(pidAlive(await deadPid()), false);
  assert.equal(pidAlive(0), false);
  assert.equal(pidAlive(-1), false);
  assert.equal(pidAlive(1.5), false);
});

test('a zombie (killed, not yet reaped by its parent) is not alive', { skip: process.platform !== 'linux' && 'zombies are read from /proc' }, async (t) => {
  const proc = await spawnUnreaped();
  t.after(proc.cleanup);
  assert.equal(pidAlive(proc.pid), true);
  await proc.kill();
  assert.ok(isZombie(proc.pid));
  assert.doesNotThrow(() => process.kill(proc.pid, 0), 'a zombie still answers signal 0');
  assert.equal(pidAlive(proc.pid), false);
});

test('a process of another user counts as alive', { skip: process.getuid?.() === 0 && 'root can signal anyone' }, () => {
  assert.equal(pidAlive(1), true);
});

test('a listening port accepts; a free one does not', async () => {
  assert.equal(await portAccepting(editor.port, 1000), true);
  assert.equal(await portAccepting(await freePort(), 1000), false);
});

test('the editor with its token answers the probe, in both dialects', async () => {
  assert.equal(await probeEditor({ port: editor.port, token: 'right-token', dialect: 'pi', timeoutMs: 1000 }), 'ok');
  assert.equal(await probeEditor({ port: editor.port, token: 'right-token', dialect: 'claude', timeoutMs: 1000 }), 'ok');
});

test('a wrong token answered with 400 (pi-ide.nvim) or 401 is an auth rejection', async (t) => {
  assert.equal(await probeEditor({ port: editor.port, token: 'wrong', dialect: 'pi', timeoutMs: 1000 }), 'auth-rejected');
  const strict = await startEditor('t', 401);
  t.after(() => strict.close());
  assert.equal(await probeEditor({ port: strict.port, token: 'nope', dialect: 'claude', timeoutMs: 1000 }), 'auth-rejected');
});

test('a plain HTTP server on the port is not a WebSocket editor', async (t) => {
  const http = await startHttpServer();
  t.after(() => http.close());
  assert.equal(await probeEditor({ port: http.port, token: 'x', dialect: 'pi', timeoutMs: 1000 }), 'not-websocket');
});

test('a non-HTTP TCP server that talks garbage is not a WebSocket editor', async (t) => {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.end('SSH-2.0-OpenSSH_9.0\r\n');
  });
  const port = await listen(server);
  t.after(async () => {
    for (const socket of sockets) socket.destroy(); // half-closed sockets would hold server.close
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  assert.equal(await probeEditor({ port, token: 'x', dialect: 'pi', timeoutMs: 1000 }), 'not-websocket');
});

test('a server that accepts and never answers times out', async (t) => {
  const held = new Set<Socket>();
  const server = createServer((socket) => held.add(socket));
  const port = await listen(server);
  t.after(async () => {
    for (const socket of held) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  // A probe whose own timeout never fired would fail here instead of hanging the run.
  const answer = await withTimeout(probeEditor({ port, token: 'x', dialect: 'pi', timeoutMs: 150 }), 20_000, 'the probe');
  assert.equal(answer, 'timeout');
  assert.equal(held.size, 1, 'the server held the connection: the probe gave up by itself');
});

test('nothing on the port is refused', async () => {
  assert.equal(await probeEditor({ port: await freePort(), token: 'x', dialect: 'pi', timeoutMs: 1000 }), 'refused');
});

test('an HTTP server that closes upgrades without answering is not a WebSocket editor', async (t) => {
  const server = createHttpServer();
  server.on('upgrade', (_req, socket) => socket.destroy());
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  assert.equal(await probeEditor({ port, token: 'x', dialect: 'pi', timeoutMs: 1000 }), 'not-websocket');
});
