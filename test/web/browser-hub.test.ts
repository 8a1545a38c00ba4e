// The page's hub (src/web/browser-hub.ts) outside a browser: a real control server, node's
// ws as the page's WebSocket, a Map as its sessionStorage.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { WebSocket } from 'ws';
import { CREDENTIAL_KEY, connectBrowserHub, type BrowserHub, type ConnectionState } from '../../src/web/browser-hub.ts';
import type { BrowserWebSocket } from '../../src/web/browser-socket.ts';
import { startControlServer, type ControlServer, type ControlServerOptions } from '../../src/web/control-server.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { createFakeHub, sampleSnapshot } from './fake-hub.ts';
import { httpRequest } from './helpers.ts';

async function page(t: TestContext, server: { url: string }, link = '', storage = new Map<string, string>()) {
  const states: ConnectionState[] = [];
  let cleared = 0;
  const hub: BrowserHub = connectBrowserHub({
    origin: server.url,
    hash: link === '' ? '' : new URL(link).hash,
    clearHash: () => void (cleared += 1),
    storage: {
      getItem: (k) => storage.get(k) ?? null,
      setItem: (k, v) => void storage.set(k, v),
      removeItem: (k) => void storage.delete(k),
    },
    // The page's fetch, with the Origin a browser adds by itself.
    post: async (url, body) => {
      const answer = await httpRequest(Number(new URL(url).port), new URL(url).pathname, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url },
        body,
      });
      return { status: answer.status, json: async () => JSON.parse(answer.body) as unknown };
    },
    openSocket: (url, protocols) => new WebSocket(url, protocols, { origin: server.url }) as unknown as BrowserWebSocket,
  });
  hub.onState((s) => states.push(s));
  t.after(() => hub.close());
  return { hub, states, storage, cleared: () => cleared };
}

async function server(t: TestContext, home: string, extra: Partial<ControlServerOptions> = {}): Promise<ControlServer> {
  const started = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, version: 'test', log: () => {}, ...extra });
  t.after(() => started.close());
  return started;
}

test('a page without a sign-in, or with a used link, is signed out and says why', async (t) => {
  const dir = await tempDir('browser-hub');
  t.after(() => dir.cleanup());
  const control = await server(t, join(dir.path, 'home'));
  const none = await page(t, control);
  await waitFor(() => none.hub.state.kind === 'signed-out', { message: 'signed out' });
  assert.deepEqual(none.hub.state, { kind: 'signed-out', why: 'this page has no sign-in' });
  await assert.rejects(none.hub.call('snapshot', undefined), /signed out: this page has no sign-in/);

  const link = control.mintSignInUrl();
  const first = await page(t, control, link);
  await waitFor(() => first.hub.state.kind === 'connected', { message: 'the first page connected' });
  assert.equal(first.cleared(), 1, 'the secret was taken out of the address bar');
  assert.deepEqual(await first.hub.call('snapshot', undefined), sampleSnapshot());
  const replay = await page(t, control, link);
  await waitFor(() => replay.hub.state.kind === 'signed-out', { message: 'the replay signed out' });
  assert.deepEqual(replay.hub.state, { kind: 'signed-out', why: 'this sign-in link has expired or was used already' });
});

test('while the server is away the page keeps trying, saying why it lost it; back, it connects with the same sign-in', async (t) => {
  const dir = await tempDir('browser-hub-away');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const first = await server(t, home);
  const tab = await page(t, first, first.mintSignInUrl());
  await waitFor(() => tab.hub.state.kind === 'connected', { message: 'connected' });
  const credential = tab.storage.get(CREDENTIAL_KEY);
  assert.ok(credential);

  await first.close();
  await waitFor(() => tab.states.filter((s) => s.kind === 'reconnecting').length >= 3, { timeoutMs: 5000, message: 'three attempts' });
  const attempts = tab.states.filter((s): s is Extract<ConnectionState, { kind: 'reconnecting' }> => s.kind === 'reconnecting');
  assert.deepEqual(attempts.map((s) => s.attempt).slice(0, 3), [1, 2, 3]);
  assert.ok(attempts.every((s) => s.why === 'Patchbay is stopping'), 'the reason it was lost stays');
  assert.match(attempts[1]!.lastError ?? '', /^Patchbay is not answering/);
  assert.ok(attempts[2]!.retryInMs > attempts[1]!.retryInMs, 'backing off');

  const second = await server(t, home);
  tab.hub.retryNow();
  await waitFor(() => tab.hub.state.kind === 'connected', { timeoutMs: 7000, message: 'reconnected' });
  assert.equal(second.port, first.port);
  assert.deepEqual(await tab.hub.call('snapshot', undefined), sampleSnapshot());
  assert.notEqual(tab.storage.get(CREDENTIAL_KEY), credential, 'renewed on the way in');
});

test('an open page renews its sign-in, so it outlives the idle time; revoked, it is signed out', async (t) => {
  const dir = await tempDir('browser-hub-renew');
  t.after(() => dir.cleanup());
  // Renewals every 500 ms (a quarter of the idle time).
  const control = await server(t, join(dir.path, 'home'), { sessionPolicy: { idleMs: 2000, maxMs: 60_000 } });
  const tab = await page(t, control, control.mintSignInUrl());
  await waitFor(() => tab.hub.state.kind === 'connected', { message: 'connected' });
  const seen = new Set<string>();
  await waitFor(() => seen.add(tab.storage.get(CREDENTIAL_KEY)!).size >= 3, { timeoutMs: 5000, message: 'two renewals' });

  await control.revokeSessions();
  await waitFor(() => tab.hub.state.kind === 'signed-out', { message: 'signed out' });
  assert.deepEqual(tab.hub.state, { kind: 'signed-out', why: 'every browser was signed out' });
  assert.equal(tab.storage.has(CREDENTIAL_KEY), false, 'the void credential is dropped');
});
