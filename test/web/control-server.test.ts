import assert from 'node:assert/strict';
import { mkdir, readFile, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { WebSocket } from 'ws';
import { createRemoteHub } from '../../src/api/remote.ts';
import type { HubEvent } from '../../src/api/types.ts';
import { readControlFile } from '../../src/web/control-file.ts';
import { startControlServer, type ControlServerOptions } from '../../src/web/control-server.ts';
import { wsMessageSocket } from '../../src/web/ws-socket.ts';
import { createFakeHub, sampleSnapshot } from './fake-hub.ts';
import { httpRequest, openSocket } from './helpers.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const SECRET = 'top secret outside the renderer';

async function setup(t: TestContext, extra: Partial<ControlServerOptions> = {}) {
  const dir = await tempDir('control');
  const home = join(dir.path, 'home');
  const staticDir = join(dir.path, 'renderer');
  await mkdir(join(staticDir, 'assets'), { recursive: true });
  await writeFile(join(staticDir, 'index.html'), '<!doctype html><title>Patchbay</title>');
  await writeFile(join(staticDir, 'assets', 'app.js'), 'console.log("hi")');
  await writeFile(join(staticDir, 'assets', 'app.css'), 'body{}');
  await writeFile(join(dir.path, 'secret.txt'), SECRET);
  const hub = createFakeHub();
  const logs: string[] = [];
  const server = await startControlServer({
    hub,
    host: '127.0.0.1',
    port: 0,
    home,
    staticDir,
    version: '0.1.0-test',
    log: (m) => logs.push(m),
    ...extra,
  });
  const control = await readControlFile(home);
  assert.ok(control, 'control.json is written');
  const sockets: WebSocket[] = [];
  t.after(async () => {
    for (const ws of sockets) ws.terminate();
    await server.close();
    await dir.cleanup();
  });
  const api = `ws://127.0.0.1:${server.port}/api`;
  const origin = `http://127.0.0.1:${server.port}`;
  const connect = async (headers: Record<string, string>) => {
    const result = await openSocket(api, headers);
    if (result.ok) sockets.push(result.ws);
    return result;
  };
  /** Exchanges a fresh one-time token for the browser's session cookie. */
  const browserCookie = async () => {
    const answer = await httpRequest(server.port, `/?t=${server.mintOpenToken()}`);
    assert.equal(answer.status, 303);
    const setCookie = answer.headers['set-cookie']?.[0] ?? '';
    return setCookie.split(';')[0]!;
  };
  return { dir, home, staticDir, hub, server, control, logs, api, origin, connect, browserCookie };
}

test('control.json holds the port, pid and a 32-byte token, is 0600, and goes away on close', async (t) => {
  const { home, server, control } = await setup(t);
  assert.equal(control!.port, server.port);
  assert.equal(control!.pid, process.pid);
  assert.match(control!.token, /^[0-9a-f]{64}$/);
  assert.equal((await stat(join(home, 'control.json'))).mode & 0o777, 0o600);
  await server.close();
  await server.close();
  assert.equal(await readControlFile(home), null);
});

test('the control socket refuses a missing or wrong token with 401 before upgrading', async (t) => {
  const { connect, control } = await setup(t);
  assert.deepEqual(await connect({}), { ok: false, status: 401 });
  assert.deepEqual(await connect({ authorization: `Bearer ${'0'.repeat(64)}` }), { ok: false, status: 401 });
  assert.deepEqual(await connect({ authorization: `Basic ${control!.token}` }), { ok: false, status: 401 });
  const good = await connect({ authorization: `Bearer ${control!.token}` });
  assert.equal(good.ok, true);
});

test('with the token, HubApi commands and their errors travel over the socket', async (t) => {
  const { connect, control } = await setup(t);
  const result = await connect({ authorization: `Bearer ${control!.token}` });
  assert.ok(result.ok);
  const hub = createRemoteHub(wsMessageSocket(result.ws));
  assert.deepEqual(await hub.call('snapshot', undefined), sampleSnapshot());
  await assert.rejects(hub.call('diffs.get', { id: 'nope' }), { name: 'HubError', code: 'not-found', message: 'no diff with id "nope"' });
  assert.equal(await hub.call('setPaused', { paused: true }), undefined);
  hub.close();
});

test('a command that fails inside the hub is reported to the client and logged', async (t) => {
  const { connect, control, hub: fake, logs } = await setup(t);
  fake.handlers.restore = () => {
    throw new Error('EACCES: permission denied');
  };
  const result = await connect({ authorization: `Bearer ${control!.token}` });
  assert.ok(result.ok);
  const hub = createRemoteHub(wsMessageSocket(result.ws));
  await assert.rejects(hub.call('restore', undefined), /Patchbay failed on restore: EACCES/);
  assert.ok(logs.some((l) => l.includes('control command restore failed')));
  hub.close();
});

test('each client gets hub events until it disconnects', async (t) => {
  const { connect, control, hub: fake } = await setup(t);
  const result = await connect({ authorization: `Bearer ${control!.token}` });
  assert.ok(result.ok);
  const hub = createRemoteHub(wsMessageSocket(result.ws));
  const events: HubEvent[] = [];
  hub.subscribe((e) => events.push(e));
  await waitFor(() => fake.listenerCount() === 1, { message: 'the server to subscribe' });
  fake.emit({ type: 'diffAdded', diff: sampleSnapshot().diffs[0]! });
  await waitFor(() => events.length === 1, { message: 'the event' });
  assert.equal(events[0]!.type, 'diffAdded');
  hub.close();
  await waitFor(() => fake.listenerCount() === 0, { message: 'the server to unsubscribe' });
});

test('a browser page from another origin is refused with 403, cookie or not', async (t) => {
  const { connect, browserCookie, control } = await setup(t);
  const cookie = await browserCookie();
  assert.deepEqual(await connect({ cookie, origin: 'http://evil.example' }), { ok: false, status: 403 });
  assert.deepEqual(await connect({ cookie, origin: 'http://localhost:1' }), { ok: false, status: 403 });
  assert.deepEqual(
    await connect({ authorization: `Bearer ${control!.token}`, origin: 'http://evil.example' }),
    { ok: false, status: 403 },
  );
});

test('a one-time link signs the browser in once, with an HttpOnly SameSite=Strict cookie', async (t) => {
  const { server, connect, origin } = await setup(t);
  const token = server.mintOpenToken();
  const first = await httpRequest(server.port, `/?t=${token}`);
  assert.equal(first.status, 303);
  assert.equal(first.headers.location, '/');
  const setCookie = first.headers['set-cookie']?.[0] ?? '';
  assert.match(setCookie, /HttpOnly/);
  assert.match(setCookie, /SameSite=Strict/);
  const cookie = setCookie.split(';')[0]!;

  const again = await httpRequest(server.port, `/?t=${token}`);
  assert.equal(again.status, 403, 'the link works only once');
  assert.match(again.body, /expired/);

  const page = await httpRequest(server.port, '/', { headers: { cookie } });
  assert.equal(page.status, 200);
  assert.match(page.body, /<title>Patchbay<\/title>/);

  const ws = await connect({ cookie, origin });
  assert.equal(ws.ok, true, 'the cookie plus our own Origin opens the socket');
  assert.deepEqual(await connect({ cookie }), { ok: false, status: 401 }, 'a cookie without an Origin is not a browser');
  assert.deepEqual(await connect({ origin }), { ok: false, status: 401 }, 'our Origin without the cookie');
  assert.deepEqual(await connect({ cookie: 'patchbay_session_1=forged', origin }), { ok: false, status: 401 });
});

test('a one-time link stops working after two minutes', async (t) => {
  let now = 1_000_000;
  const { server } = await setup(t, { now: () => now });
  const token = server.mintOpenToken();
  now += 2 * 60 * 1000 + 1;
  assert.equal((await httpRequest(server.port, `/?t=${token}`)).status, 403);
  assert.equal((await httpRequest(server.port, `/?t=${server.mintOpenToken()}`)).status, 303);
});

test('the CLI gets one-time links only with its token, and never from a browser', async (t) => {
  const { server, control, origin } = await setup(t);
  const auth = { authorization: `Bearer ${control!.token}` };
  assert.equal((await httpRequest(server.port, '/open-token', { method: 'POST' })).status, 401);
  assert.equal((await httpRequest(server.port, '/open-token', { method: 'POST', headers: { ...auth, origin } })).status, 403);
  assert.equal((await httpRequest(server.port, '/open-token', { headers: auth })).status, 405);
  const answer = await httpRequest(server.port, '/open-token', { method: 'POST', headers: auth });
  assert.equal(answer.status, 200);
  const { url } = JSON.parse(answer.body) as { url: string };
  assert.match(url, new RegExp(`^${origin}/\\?t=[0-9a-f]{64}$`));
  assert.equal((await httpRequest(server.port, new URL(url).pathname + new URL(url).search)).status, 303);
});

test('the renderer is served with its content types and a strict CSP, to signed-in browsers only', async (t) => {
  const { server, browserCookie } = await setup(t);
  const signedOut = await httpRequest(server.port, '/');
  assert.equal(signedOut.status, 401);
  assert.match(signedOut.body, /patchbay open/);

  const cookie = await browserCookie();
  const cases: [string, string][] = [
    ['/', 'text/html; charset=utf-8'],
    ['/index.html', 'text/html; charset=utf-8'],
    ['/assets/app.js', 'text/javascript; charset=utf-8'],
    ['/assets/app.css', 'text/css; charset=utf-8'],
  ];
  for (const [path, type] of cases) {
    const answer = await httpRequest(server.port, path, { headers: { cookie } });
    assert.equal(answer.status, 200, path);
    assert.equal(answer.headers['content-type'], type, path);
    const csp = String(answer.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
  }
  assert.equal((await httpRequest(server.port, '/missing.js', { headers: { cookie } })).status, 404);
  assert.equal((await httpRequest(server.port, '/', { method: 'POST', headers: { cookie } })).status, 405);
  assert.equal((await httpRequest(server.port, '/', { method: 'HEAD', headers: { cookie } })).status, 405);
});

test('paths that climb out of the renderer folder are refused', async (t) => {
  const { server, browserCookie, staticDir, dir } = await setup(t);
  await symlink(join(dir.path, 'secret.txt'), join(staticDir, 'link.txt'));
  const cookie = await browserCookie();
  for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/link.txt', '/%00']) {
    const answer = await httpRequest(server.port, path, { headers: { cookie } });
    assert.ok(answer.status === 403 || answer.status === 404, `${path} → ${answer.status}`);
    assert.ok(!answer.body.includes(SECRET), `${path} leaks the file`);
  }
});

test('a request naming another Host is refused (DNS rebinding)', async (t) => {
  const { server, browserCookie, api } = await setup(t);
  const cookie = await browserCookie();
  const page = await httpRequest(server.port, '/', { headers: { cookie, host: `evil.example:${server.port}` } });
  assert.equal(page.status, 403);
  const ws = await openSocket(api, { cookie, host: `evil.example:${server.port}`, origin: `http://evil.example:${server.port}` });
  assert.deepEqual(ws, { ok: false, status: 403 });
});

test('without a built renderer the page says how to build it', async (t) => {
  const { server, browserCookie } = await setup(t, { staticDir: '/nonexistent/patchbay-renderer' });
  const answer = await httpRequest(server.port, '/', { headers: { cookie: await browserCookie() } });
  assert.equal(answer.status, 200);
  assert.match(answer.body, /npm run build/);
});

test('frames that are not requests close the connection with the reason', async (t) => {
  const { connect, control } = await setup(t, { maxFrameBytes: 1024 });
  const auth = { authorization: `Bearer ${control!.token}` };
  const closed = (ws: WebSocket) => new Promise<[number, string]>((r) => ws.once('close', (code, reason) => r([code, reason.toString()])));

  const garbled = await connect(auth);
  assert.ok(garbled.ok);
  const a = closed(garbled.ws);
  garbled.ws.send('not json');
  const [code, reason] = await a;
  assert.equal(code, 1008);
  assert.match(reason, /^request is not JSON/);

  const huge = await connect(auth);
  assert.ok(huge.ok);
  const b = closed(huge.ws);
  huge.ws.send(JSON.stringify({ id: 1, method: 'snapshot', params: { pad: 'x'.repeat(2048) } }));
  assert.equal((await b)[0], 1009, 'over the frame cap');

  const unknown = await connect(auth);
  assert.ok(unknown.ok);
  const reply = new Promise<string>((r) => unknown.ws.once('message', (d) => r(d.toString())));
  unknown.ws.send('{"id":9,"method":"format-disk"}');
  assert.deepEqual(JSON.parse(await reply), { id: 9, error: { message: 'unknown method "format-disk"', code: 'invalid' } });
});

test('closing the server closes its clients and is safe twice', async (t) => {
  const { connect, control, server, hub: fake } = await setup(t);
  const result = await connect({ authorization: `Bearer ${control!.token}` });
  assert.ok(result.ok);
  const hub = createRemoteHub(wsMessageSocket(result.ws));
  await waitFor(() => fake.listenerCount() === 1, { message: 'the subscription' });
  const waiting = hub.call('snapshot', undefined);
  await waiting;
  const closed = new Promise<number>((r) => result.ws.once('close', (code) => r(code)));
  await Promise.all([server.close(), server.close()]);
  assert.equal(await closed, 1001);
  await assert.rejects(hub.call('snapshot', undefined), /Patchbay is stopping/);
  assert.equal(fake.listenerCount(), 0);
});

test('control.json is replaced atomically and keeps no temp files around', async (t) => {
  const { home } = await setup(t);
  assert.deepEqual(await readdir(home), ['control.json']);
  const text = await readFile(join(home, 'control.json'), 'utf8');
  assert.doesNotThrow(() => JSON.parse(text));
});
