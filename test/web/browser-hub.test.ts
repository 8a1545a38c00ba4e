// The page's hub (src/web/browser-hub.ts) outside a browser: a real control server, node's
// ws as the page's WebSocket, an object as its browser profile's kept sign-in.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { ConnectionState } from '../../src/web/browser-hub.ts';
import { startControlServer, type ControlServer, type ControlServerOptions } from '../../src/web/control-server.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { createFakeHub, sampleSnapshot } from './fake-hub.ts';
import { ProfileSignIns, nodePage } from './helpers.ts';

function page(t: TestContext, server: { url: string }, link?: string, profile?: ProfileSignIns) {
  const tab = nodePage(server.url, { ...(link === undefined ? {} : { link }), ...(profile === undefined ? {} : { profile }) });
  t.after(() => tab.close());
  return tab;
}

async function server(t: TestContext, home: string, extra: Partial<ControlServerOptions> = {}): Promise<ControlServer> {
  const started = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, version: 'test', log: () => {}, ...extra });
  t.after(() => started.close());
  return started;
}

/** A control server in a temp home and a first tab signed in with a link, its browser profile's sign-in kept in `profile`. */
async function signedInTab(t: TestContext, name: string) {
  const dir = await tempDir(name);
  t.after(() => dir.cleanup());
  const control = await server(t, join(dir.path, 'home'));
  const profile = new ProfileSignIns();
  const first = page(t, control, control.mintSignInUrl(), profile);
  await waitFor(() => first.hub.state.kind === 'connected', { message: 'the first tab connected' });
  return { control, profile, first };
}

test('a page without a sign-in, or with a used link, is signed out and says why', async (t) => {
  const dir = await tempDir('browser-hub');
  t.after(() => dir.cleanup());
  const control = await server(t, join(dir.path, 'home'));
  const none = page(t, control);
  await waitFor(() => none.hub.state.kind === 'signed-out', { message: 'signed out' });
  assert.deepEqual(none.hub.state, { kind: 'signed-out', why: 'this page has no sign-in' });
  await assert.rejects(none.hub.call('snapshot', undefined), /signed out: this page has no sign-in/);

  const link = control.mintSignInUrl();
  const first = page(t, control, link);
  await waitFor(() => first.hub.state.kind === 'connected', { message: 'the first page connected' });
  assert.equal(first.cleared(), 1, 'the secret was taken out of the address bar');
  assert.deepEqual(await first.hub.call('snapshot', undefined), sampleSnapshot());
  const replay = page(t, control, link);
  await waitFor(() => replay.hub.state.kind === 'signed-out', { message: 'the replay signed out' });
  assert.deepEqual(replay.hub.state, { kind: 'signed-out', why: 'this sign-in link has expired or was used already' });
});

test('one sign-in serves every tab of the browser: a second tab connects without a link; after revoking, a new link in one tab brings the others back', async (t) => {
  const { control, profile, first } = await signedInTab(t, 'browser-hub-tabs');
  const second = page(t, control, undefined, profile);
  await waitFor(() => second.hub.state.kind === 'connected', { message: 'the second tab connected with the same sign-in' });
  assert.deepEqual(await second.hub.call('snapshot', undefined), sampleSnapshot());
  const elsewhere = page(t, control);
  await waitFor(() => elsewhere.hub.state.kind === 'signed-out', { message: 'another browser profile is not signed in' });

  await control.revokeSessions();
  await waitFor(() => first.hub.state.kind === 'signed-out' && second.hub.state.kind === 'signed-out', { message: 'both signed out' });
  assert.equal(profile.current, null, 'the void sign-in is forgotten');

  const third = page(t, control, control.mintSignInUrl(), profile);
  await waitFor(() => third.hub.state.kind === 'connected', { message: 'the new link’s tab connected' });
  await waitFor(() => first.hub.state.kind === 'connected' && second.hub.state.kind === 'connected', {
    message: 'the signed-out tabs took the new sign-in by themselves',
  });
  assert.equal(elsewhere.hub.state.kind, 'signed-out', 'but not another profile');
});

test('a tab asks for its challenge while it reads the kept sign-in, not after it (a new tab’s first IndexedDB read takes ~100 ms)', async (t) => {
  const { control, profile } = await signedInTab(t, 'browser-hub-overlap');
  let release = (): void => {};
  profile.held = new Promise((resolve) => (release = resolve));
  const second = page(t, control, undefined, profile);
  const challenges = () => second.posts.filter((body) => (body as { challenge?: unknown }).challenge === true).length;
  await waitFor(() => challenges() === 1, { message: 'the challenge asked for while the sign-in is read' });
  assert.equal(second.hub.state.kind, 'connecting');
  release();
  await waitFor(() => second.hub.state.kind === 'connected', { message: 'the second tab connected' });
  assert.equal(challenges(), 1, 'that challenge served the renewal');
  assert.deepEqual(await second.hub.call('snapshot', undefined), sampleSnapshot());
});

test('while the server is away the page keeps trying, saying why it lost it; back, it connects with the same sign-in', async (t) => {
  const dir = await tempDir('browser-hub-away');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const first = await server(t, home);
  const tab = page(t, first, first.mintSignInUrl());
  await waitFor(() => tab.hub.state.kind === 'connected', { message: 'connected' });
  const claim = tab.profile.current?.claim;
  assert.ok(claim);

  await first.close();
  await waitFor(() => tab.states.filter((s) => s.kind === 'reconnecting').length >= 3, { message: 'three attempts' });
  const attempts = tab.states.filter((s): s is Extract<ConnectionState, { kind: 'reconnecting' }> => s.kind === 'reconnecting');
  assert.deepEqual(attempts.map((s) => s.attempt).slice(0, 3), [1, 2, 3]);
  assert.ok(attempts.every((s) => s.why === 'Patchbay is stopping'), 'the reason it was lost stays');
  assert.match(attempts[1]!.lastError ?? '', /^Patchbay is not answering/);
  assert.ok(attempts[2]!.retryInMs > attempts[1]!.retryInMs, 'backing off');

  const second = await server(t, home);
  tab.hub.retryNow();
  await waitFor(() => tab.hub.state.kind === 'connected', { message: 'reconnected' });
  assert.equal(second.port, first.port);
  assert.deepEqual(await tab.hub.call('snapshot', undefined), sampleSnapshot());
  assert.notEqual(tab.profile.current?.claim, claim, 'renewed on the way in');
});

test('an open page renews its sign-in, so it outlives the idle time; revoked, it is signed out', async (t) => {
  const dir = await tempDir('browser-hub-renew');
  t.after(() => dir.cleanup());
  // Renewals every 500 ms (a quarter of the idle time).
  const control = await server(t, join(dir.path, 'home'), { sessionPolicy: { idleMs: 2000, maxMs: 60_000 } });
  const tab = page(t, control, control.mintSignInUrl());
  await waitFor(() => tab.hub.state.kind === 'connected', { message: 'connected' });
  const seen = new Set<string>();
  await waitFor(() => seen.add(tab.profile.current!.claim).size >= 3, { message: 'two renewals' });

  await control.revokeSessions();
  await waitFor(() => tab.hub.state.kind === 'signed-out', { message: 'signed out' });
  assert.deepEqual(tab.hub.state, { kind: 'signed-out', why: 'every browser was signed out' });
  assert.equal(tab.profile.current, null, 'the void sign-in is forgotten');
});
