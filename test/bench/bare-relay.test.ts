import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import WebSocket, { WebSocketServer } from 'ws';
import { onceMessage } from '../peers/wait.ts';
import { BareRelay, targetFromPath } from './bare-relay.ts';

/** An editor stand-in that echoes every frame as it came (text stays text, binary stays binary). */
async function echoEditor(token: string): Promise<{ port: number; headers: Record<string, unknown>[]; close(): Promise<void> }> {
  const headers: Record<string, unknown>[] = [];
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (ws, req) => {
    headers.push(req.headers);
    if (req.headers['x-pi-ide-authorization'] !== token) return ws.close(1008);
    ws.on('message', (data, isBinary) => ws.send(data, { binary: isBinary }));
  });
  return {
    port: (wss.address() as { port: number }).port,
    headers,
    close: () =>
      new Promise((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close(() => resolve());
      }),
  };
}

async function open(url: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return ws;
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

test('the bare relay forwards frames verbatim both ways, sent before the editor is even reached', async () => {
  const editor = await echoEditor('secret');
  cleanups.push(() => editor.close());
  const relay = await BareRelay.start({ editor: { port: editor.port, token: 'secret' } });
  cleanups.push(() => relay.close());
  const agent = await open(`ws://127.0.0.1:${relay.port}/`);
  cleanups.push(async () => agent.terminate());
  // Not JSON on purpose: the relay must not parse or re-encode anything.
  const received: { text: string; binary: boolean }[] = [];
  agent.on('message', (data, isBinary) => received.push({ text: data.toString(), binary: isBinary }));
  agent.send('{"id":1,  "spacing":"kept"}');
  agent.send(Buffer.from('raw bytes'), { binary: true });
  agent.send('not json at all');
  for (let i = 0; i < 100 && received.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
  assert.deepEqual(received, [
    { text: '{"id":1,  "spacing":"kept"}', binary: false },
    { text: 'raw bytes', binary: true },
    { text: 'not json at all', binary: false },
  ]);
  assert.equal(editor.headers[0]?.['x-pi-ide-authorization'], 'secret');
});

test('the editor can be chosen per connection in the URL path', async () => {
  const editor = await echoEditor('tok/en');
  cleanups.push(() => editor.close());
  const relay = await BareRelay.start();
  cleanups.push(() => relay.close());
  const agent = await open(`ws://127.0.0.1:${relay.port}/${editor.port}/${encodeURIComponent('tok/en')}`);
  cleanups.push(async () => agent.terminate());
  const echoed = onceMessage<{ hello: string }>(agent);
  agent.send('{"hello":"editor"}');
  assert.deepEqual(await echoed, { hello: 'editor' });
  assert.deepEqual(targetFromPath('/4711/abc'), { port: 4711, token: 'abc' });
  assert.equal(targetFromPath('/'), null);
});

test('when the editor goes away the agent is disconnected, and close() ends every pipe', async () => {
  const editor = await echoEditor('t');
  const relay = await BareRelay.start({ editor: { port: editor.port, token: 't' } });
  cleanups.push(() => relay.close());
  const agent = await open(`ws://127.0.0.1:${relay.port}/`);
  await new Promise<void>((resolve) => {
    agent.once('message', () => resolve());
    agent.send('ping');
  });
  const closed = new Promise<void>((resolve) => agent.once('close', () => resolve()));
  await editor.close();
  await closed;

  const relay2 = await BareRelay.start();
  const agent2 = await open(`ws://127.0.0.1:${relay2.port}/`);
  const closed2 = new Promise<number>((resolve) => agent2.once('close', (code) => resolve(code)));
  assert.equal(await closed2, 1008, 'a connection with no editor to reach is refused');
  await relay2.close();
  await relay2.close();
});
