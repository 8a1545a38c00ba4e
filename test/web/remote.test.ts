import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRemoteHub, type MessageSocket } from '../../src/api/remote.ts';
import { HubError, type HubEvent } from '../../src/api/types.ts';
import { browserMessageSocket, type BrowserWebSocket } from '../../src/web/browser-socket.ts';
import { sampleSnapshot } from './fake-hub.ts';

/** The client's end of a socket whose server side the test plays by hand. */
function fakeSocket() {
  const sent: { id: number; method: string; params: unknown }[] = [];
  let deliver: (text: string) => void = () => assert.fail('no message listener');
  let closeListener: (err?: Error) => void = () => assert.fail('no close listener');
  let closedByClient = 0;
  const socket: MessageSocket = {
    send: (text) => sent.push(JSON.parse(text)),
    onMessage: (cb) => (deliver = cb),
    onClose: (cb) => (closeListener = cb),
    close: () => {
      closedByClient++;
    },
  };
  return {
    socket,
    sent,
    reply: (frame: unknown) => deliver(JSON.stringify(frame)),
    raw: (text: string) => deliver(text),
    drop: (err?: Error) => closeListener(err),
    closedByClient: () => closedByClient,
  };
}

test('replies reach the call that asked, in whatever order they come', async () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const first = hub.call('diffs.get', { id: 'a' });
  const second = hub.call('settings.get', undefined);
  assert.deepEqual(
    peer.sent.map((f) => f.method),
    ['diffs.get', 'settings.get'],
  );
  assert.notEqual(peer.sent[0]!.id, peer.sent[1]!.id);
  peer.reply({ id: peer.sent[1]!.id, result: 'settings' });
  peer.reply({ id: peer.sent[0]!.id, result: 'diff a' });
  assert.equal(await first, 'diff a');
  assert.equal(await second, 'settings');
});

test('a server error comes back as a HubError with the same code', async () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const call = hub.call('bind', { sessionId: 'zz', editorId: null });
  peer.reply({ id: peer.sent[0]!.id, error: { message: 'no session with id "zz"', code: 'not-found' } });
  await assert.rejects(call, (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.equal(err.code, 'not-found');
    assert.equal(err.message, 'no session with id "zz"');
    return true;
  });
  const internal = hub.call('restore', undefined);
  peer.reply({ id: peer.sent[1]!.id, error: { message: 'EACCES', code: 'internal' } });
  await assert.rejects(internal, /Patchbay failed on restore: EACCES/);
});

test('when the socket closes, waiting calls fail saying so, and later calls fail at once', async () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const waiting = hub.call('snapshot', undefined);
  peer.drop(new Error('Patchbay is stopping'));
  await assert.rejects(waiting, (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.equal(err.code, 'unavailable');
    assert.equal(err.message, 'snapshot: the connection to Patchbay closed (Patchbay is stopping) before it answered');
    return true;
  });
  await assert.rejects(hub.call('snapshot', undefined), /snapshot: the connection to Patchbay closed/);
  assert.equal(peer.sent.length, 1, 'nothing is sent on a closed socket');
});

test('closing the client rejects what is waiting and closes the socket once', async () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const waiting = hub.call('snapshot', undefined);
  hub.close();
  hub.close();
  await assert.rejects(waiting, /closed by this client before it answered/);
  assert.equal(peer.closedByClient(), 1);
});

test('close listeners hear why once, including ones added after the close', async () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const heard: string[] = [];
  hub.onClose((why) => heard.push(`early: ${why}`));
  peer.drop(new Error('Patchbay is stopping'));
  peer.drop(new Error('again'));
  hub.close();
  hub.onClose((why) => heard.push(`late: ${why}`));
  assert.deepEqual(heard, ['early: the connection to Patchbay closed (Patchbay is stopping)']);
  await Promise.resolve();
  assert.deepEqual(heard.slice(1), ['late: the connection to Patchbay closed (Patchbay is stopping)']);
});

test('events reach every subscriber until it unsubscribes', () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const a: HubEvent[] = [];
  const b: HubEvent[] = [];
  const stopA = hub.subscribe((e) => a.push(e));
  hub.subscribe((e) => b.push(e));
  const event: HubEvent = { type: 'snapshot', snapshot: sampleSnapshot() };
  peer.reply({ event });
  stopA();
  peer.reply({ event });
  assert.equal(a.length, 1);
  assert.equal(b.length, 2);
  assert.deepEqual(b[0], event);
});

test('a garbled frame from the server drops the connection with the reason', async () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const waiting = hub.call('snapshot', undefined);
  peer.raw('{"id": "x"');
  await assert.rejects(waiting, /dropped: hub sent a frame that is not JSON/);
  assert.equal(peer.closedByClient(), 1);
});

test('a reply to a request nobody made drops the connection', async () => {
  const peer = fakeSocket();
  const hub = createRemoteHub(peer.socket);
  const waiting = hub.call('snapshot', undefined);
  peer.reply({ id: 999, result: null });
  await assert.rejects(waiting, /answered request 999, which is not waiting/);
});

/** Behaves like the DOM WebSocket as far as browserMessageSocket uses it. */
class FakeBrowserWebSocket implements BrowserWebSocket {
  readyState = 0;
  binaryType = 'blob';
  sent: string[] = [];
  closed: [number | undefined, string | undefined][] = [];
  private listeners = new Map<string, ((event: never) => void)[]>();
  addEventListener(type: string, listener: (event: never) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }
  send(data: string): void {
    if (this.readyState !== 1) throw new Error('InvalidStateError');
    this.sent.push(data);
  }
  close(code?: number, reason?: string): void {
    this.closed.push([code, reason]);
  }
  fire(type: string, event: unknown = {}): void {
    if (type === 'open') this.readyState = 1;
    for (const listener of this.listeners.get(type) ?? []) listener(event as never);
  }
}

test('in the browser, calls made before the socket opens are sent once it does', async () => {
  const ws = new FakeBrowserWebSocket();
  const hub = createRemoteHub(browserMessageSocket(ws));
  const call = hub.call('snapshot', undefined);
  assert.deepEqual(ws.sent, []);
  ws.fire('open');
  assert.equal(ws.sent.length, 1);
  const { id } = JSON.parse(ws.sent[0]!) as { id: number };
  ws.fire('message', { data: JSON.stringify({ id, result: 42 }) });
  assert.equal(await call, 42);
});

test('in the browser, an answer in a binary frame of UTF-8 JSON is read as its text; a frame that is not UTF-8 closes the socket', async () => {
  const ws = new FakeBrowserWebSocket();
  const hub = createRemoteHub(browserMessageSocket(ws));
  assert.equal(ws.binaryType, 'arraybuffer');
  ws.fire('open');
  const call = hub.call('snapshot', undefined);
  const { id } = JSON.parse(ws.sent[0]!) as { id: number };
  const bytes = new TextEncoder().encode(JSON.stringify({ id, result: 'naïve → ✓' }));
  ws.fire('message', { data: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) });
  assert.equal(await call, 'naïve → ✓');
  ws.fire('message', { data: new Uint8Array([0x7b, 0xff, 0x7d]).buffer });
  assert.deepEqual(ws.closed, [[1007, 'frames must be UTF-8 JSON']]);
});

test('in the browser, a refused handshake fails the calls waiting for it, saying so', async () => {
  const ws = new FakeBrowserWebSocket();
  const hub = createRemoteHub(browserMessageSocket(ws));
  const call = hub.call('snapshot', undefined);
  ws.fire('close', { code: 1006, reason: '' });
  await assert.rejects(call, /Patchbay did not accept the connection/);
});
