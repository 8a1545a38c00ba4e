// Patchbay's client connection to an editor: the dialect's handshake, and frames sent with the
// zero masking key (no copy of each frame; the editor unmasks them as any other).
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { WebSocketServer, type WebSocket } from 'ws';
import { connectEditor } from '../../src/transport/editor-socket.ts';

interface Seen {
  headers: Record<string, string | string[] | undefined>;
  protocol: string;
  raw: Buffer[];
  message: Promise<string>;
}

/** An editor's server on 127.0.0.1, closed (its clients cut) when the test ends; `next` is its first connection. */
async function editorServer(t: TestContext): Promise<{ port: number; next: Promise<Seen> }> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (protocols) => (protocols.has('mcp') ? 'mcp' : false) });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const next = new Promise<Seen>((resolve) =>
    wss.once('connection', (ws: WebSocket, req) => {
      const raw: Buffer[] = [];
      req.socket.on('data', (chunk: Buffer) => raw.push(chunk));
      const message = new Promise<string>((done) => ws.once('message', (data) => done(String(data))));
      resolve({ headers: req.headers, protocol: ws.protocol, raw, message });
    }),
  );
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  );
  return { port: (wss.address() as AddressInfo).port, next };
}

test('a frame to an editor is masked with the zero key and arrives whole', async (t) => {
  const server = await editorServer(t);
  const { ws } = await connectEditor({ port: server.port, authToken: 'secret-token', dialect: 'claude' }, 1 << 20);
  const seen = await server.next;
  assert.equal(seen.headers['x-claude-code-ide-authorization'], 'secret-token');
  assert.equal(seen.protocol, 'mcp');
  // Long enough for the 16-bit length form; code-like, with non-ASCII in it.
  const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { note: 'const ünïcödé = 1;\n'.repeat(40) } });
  ws.send(text);
  assert.equal(await seen.message, text);
  const frame = Buffer.concat(seen.raw);
  assert.equal(frame[1]! & 0x80, 0x80, 'the mask bit is set, as RFC 6455 requires of a client');
  assert.equal(frame[1]! & 0x7f, 126);
  assert.deepEqual([...frame.subarray(4, 8)], [0, 0, 0, 0], 'the masking key is zero');
  assert.equal(frame.subarray(8).toString('utf8'), text, 'the payload goes as it is');
  ws.close();
});

test('a pi-dialect editor gets its own auth header and no subprotocol', async (t) => {
  const server = await editorServer(t);
  const { ws } = await connectEditor({ port: server.port, authToken: 'pi-token', dialect: 'pi' }, 1 << 20);
  const seen = await server.next;
  assert.equal(seen.headers['x-pi-ide-authorization'], 'pi-token');
  assert.equal(seen.headers['x-claude-code-ide-authorization'], undefined);
  assert.equal(seen.protocol, '');
  ws.close();
});
