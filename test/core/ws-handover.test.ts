// A live WebSocket handed from one core to the next over the same TCP connection: the first
// stops reading at a message boundary and gives back what it read but did not consume; the
// second wraps the socket as an open WebSocket, those bytes first. Here both ends of each
// handover live in this process (the multi-process path, descriptors passed by the keeper and
// kill -9, is test/e2e/core-restart.test.ts). This also fails if ws (pinned) changes the
// internals it relies on.
import assert from 'node:assert/strict';
import { createServer, type Socket } from 'node:net';
import { test } from 'node:test';
import { WebSocket, WebSocketServer } from 'ws';
import { adoptWebSocket, stopAtBoundary } from '../../src/core/ws-handover.ts';
import { waitFor } from '../peers/wait.ts';

const BIG = 'x'.repeat(300 * 1024);

/** A server WebSocket over a raw socket we keep, and a client to it. */
async function pair(): Promise<{ server: WebSocket; socket: Socket; client: WebSocket; close(): void }> {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 * 1024 });
  let accepted!: (v: { ws: WebSocket; socket: Socket }) => void;
  const got = new Promise<{ ws: WebSocket; socket: Socket }>((resolve) => (accepted = resolve));
  const http = (await import('node:http')).createServer();
  http.on('upgrade', (req, socket: Socket, head) => wss.handleUpgrade(req, socket, head, (ws) => accepted({ ws, socket })));
  const tcp = createServer((socket) => http.emit('connection', socket));
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const port = (tcp.address() as { port: number }).port;
  const client = new WebSocket(`ws://127.0.0.1:${port}`, { maxPayload: 64 * 1024 * 1024 });
  const { ws, socket } = await got;
  await new Promise((resolve) => client.once('open', resolve));
  return { server: ws, socket, client, close: () => (client.terminate(), socket.destroy(), tcp.close()) };
}

test('the ws internals a handover needs are where ws 8.23 keeps them', async (t) => {
  const { server, close } = await pair();
  t.after(close);
  const inner = server as unknown as { _receiver: Record<string, unknown>; _socket: unknown };
  for (const field of ['_state', '_fragmented', '_buffers', '_bufferedBytes']) assert.ok(field in inner._receiver, `receiver.${field}`);
  assert.ok(inner._socket, '_socket');
  assert.equal(typeof (server as unknown as { setSocket: unknown }).setSocket, 'function');
});

test('handed over mid-stream of 300 KiB messages, none is lost, cut or reordered', async (t) => {
  const { server, socket, client, close } = await pair();
  t.after(close);
  const echoed: string[] = [];
  client.on('message', (data) => echoed.push(String(data)));
  let current = server;
  const echo = (ws: WebSocket, name: string): void => void ws.on('message', (data) => ws.send(`${name}:${String(data).slice(0, 12)}:${String(data).length}`));
  echo(current, 'a');
  const sent = 40;
  for (let i = 0; i < sent; i++) client.send(`m${String(i).padStart(3, '0')} ${BIG}`);
  // Three handovers while the messages stream in.
  for (const name of ['b', 'c', 'd']) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { stopped } = stopAtBoundary(current);
    const head = await stopped;
    // As the old core's process ends: nothing of it listens any more.
    for (const event of ['close', 'end', 'error']) socket.removeAllListeners(event);
    current = adoptWebSocket(socket, head, { role: 'server', protocol: '', maxPayload: 64 * 1024 * 1024 });
    echo(current, name);
  }
  await waitFor(() => echoed.length === sent, { timeoutMs: 10_000, message: () => `all ${sent} echoed (${echoed.length})` });
  echoed.forEach((line, i) => assert.match(line, new RegExp(`^[abcd]:m${String(i).padStart(3, '0')} x{7}:${BIG.length + 5}$`)));
  assert.ok(new Set(echoed.map((l) => l[0])).size >= 2, 'more than one core answered');
});

test('a client link (Patchbay to an editor) is taken over too: it masks what it sends and reads the editor’s frames', async (t) => {
  const { server, client, close } = await pair();
  t.after(close);
  // Here the "editor" is the server end and Patchbay the client end.
  const inner = client as unknown as { _socket: Socket };
  const socket = inner._socket;
  const { stopped } = stopAtBoundary(client);
  const head = await stopped;
  for (const event of ['close', 'end', 'error']) socket.removeAllListeners(event);
  const adopted = adoptWebSocket(socket, head, { role: 'client', protocol: '', maxPayload: 1024 * 1024 });
  const heard: string[] = [];
  adopted.on('message', (d) => heard.push(String(d)));
  server.on('message', (d) => server.send(`editor got ${String(d)}`));
  adopted.send('hello again');
  await waitFor(() => heard[0] === 'editor got hello again', { message: 'the editor answered the adopted link' });
});
