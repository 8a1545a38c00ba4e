// A message made of several buffers goes as one WebSocket frame, from a client (masked with the
// zero key) and from a server (unmasked), at every length encoding.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { frameHeader, ONE_WRITE_BYTES, sendWholeMessage } from '../../src/transport/whole-message.ts';

const LENGTHS = [0, 1, 125, 126, 65_535, 65_536, 3 * 1024 * 1024 + 7];

/** Code-like UTF-8 of `n` bytes in three pieces, as a relayed frame is (before the id, the id, after it). */
function pieces(n: number): Buffer[] {
  const mid = n >= 16 ? Buffer.from('"größe ✓"') : Buffer.alloc(0);
  const rest = n - mid.length;
  const code = Buffer.from('const value = compute(1); // line\n'.repeat(Math.ceil(rest / 34) + 1)).subarray(0, rest);
  const a = Math.floor(rest / 2);
  return [code.subarray(0, a), mid, code.subarray(a)];
}

async function pair(): Promise<{ server: WebSocket; client: WebSocket; serverRaw: Buffer[]; clientRaw: Buffer[]; close(): Promise<void> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, maxPayload: 64 * 1024 * 1024 });
  await once(wss, 'listening');
  const serverRaw: Buffer[] = [];
  const accepted = new Promise<WebSocket>((resolve) =>
    wss.once('connection', (ws, req) => {
      req.socket.on('data', (chunk: Buffer) => serverRaw.push(chunk));
      resolve(ws);
    }),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { maxPayload: 64 * 1024 * 1024 });
  await once(client, 'open');
  const clientRaw: Buffer[] = [];
  (client as unknown as { _socket: import('node:net').Socket })._socket.on('data', (chunk: Buffer) => clientRaw.push(chunk));
  const server = await accepted;
  return {
    server,
    client,
    serverRaw,
    clientRaw,
    close: async () => {
      client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

test('a frame header says the length in its shortest form, with the zero mask when masked', () => {
  assert.deepEqual([...frameHeader(5, false)], [0x81, 5]);
  assert.deepEqual([...frameHeader(5, true)], [0x81, 0x85, 0, 0, 0, 0]);
  assert.deepEqual([...frameHeader(126, false)], [0x81, 126, 0, 126]);
  assert.deepEqual([...frameHeader(65_536, true)], [0x81, 0xff, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
});

test('pieces sent by a client arrive as one message in one frame', async () => {
  const p = await pair();
  try {
    for (const n of LENGTHS) {
      p.serverRaw.length = 0;
      const parts = pieces(n);
      const got = once(p.server, 'message');
      let written = false;
      assert.equal(sendWholeMessage(p.client, parts, () => (written = true)), true);
      const [data, binary] = (await got) as [Buffer, boolean];
      assert.equal(binary, false);
      assert.deepEqual(Buffer.from(data), Buffer.concat(parts), `${n} bytes`);
      const raw = Buffer.concat(p.serverRaw);
      assert.equal(raw.length, frameHeader(n, true).length + n, `${n} bytes: one frame, nothing else`);
      assert.equal(raw[0], 0x81, 'FIN and text');
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(written, 'the callback ran once written');
    }
  } finally {
    await p.close();
  }
});

test('pieces sent by a server arrive as one unmasked frame, in order with ws’s own frames', async () => {
  const p = await pair();
  try {
    const seen: string[] = [];
    p.client.on('message', (data) => seen.push(String(data).slice(0, 12)));
    p.server.send('first');
    const big = pieces(70_000);
    sendWholeMessage(p.server, big);
    p.server.send('last');
    await new Promise<void>((resolve) => {
      const check = (): void => void (seen.length === 3 ? resolve() : setTimeout(check, 5));
      check();
    });
    assert.deepEqual(seen, ['first', Buffer.concat(big).toString('utf8').slice(0, 12), 'last']);
    const raw = Buffer.concat(p.clientRaw);
    assert.equal(raw.length, 2 + 5 + frameHeader(70_000, false).length + 70_000 + 2 + 4);
  } finally {
    await p.close();
  }
});

test('a small message goes to the socket in one write, a big one in pieces uncopied', async () => {
  const p = await pair();
  try {
    const socket = (p.client as unknown as { _socket: import('node:net').Socket })._socket;
    const writes: Buffer[] = [];
    const write = socket.write.bind(socket);
    socket.write = ((chunk: Buffer, ...rest: never[]) => {
      writes.push(chunk);
      return write(chunk, ...rest);
    }) as typeof socket.write;
    for (const n of [300, ONE_WRITE_BYTES, ONE_WRITE_BYTES + 1]) {
      writes.length = 0;
      const parts = pieces(n);
      const got = once(p.server, 'message');
      assert.equal(sendWholeMessage(p.client, parts), true);
      const [data] = (await got) as [Buffer];
      assert.deepEqual(Buffer.from(data), Buffer.concat(parts), `${n} bytes arrive whole`);
      if (n <= ONE_WRITE_BYTES) {
        assert.equal(writes.length, 1, `${n} bytes: one write`);
        assert.deepEqual(writes[0], Buffer.concat([frameHeader(n, true), ...parts]));
      } else {
        assert.equal(writes.length, 1 + parts.length, `${n} bytes: the header, then each piece`);
        parts.forEach((part, i) => assert.equal(writes[i + 1], part, 'a piece is written as it is, not copied'));
      }
    }
  } finally {
    await p.close();
  }
});
