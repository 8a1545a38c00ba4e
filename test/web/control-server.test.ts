import assert from 'node:assert/strict';
import { chmod, mkdir, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { connect as tcpConnect, type Socket } from 'node:net';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { WebSocket } from 'ws';
import { createRemoteHub } from '../../src/api/remote.ts';
import type { HubEvent } from '../../src/api/types.ts';
import { SIGNED_OUT_CLOSE_CODE, isSessionAnswer, signInSecretFrom, type SessionAnswer } from '../../src/web/browser-protocol.ts';
import { splitCredential } from '../../src/web/session-proof.ts';
import { browserStatePath } from '../../src/web/browser-state.ts';
import { readControlFile } from '../../src/web/control-file.ts';
import { startControlServer, type ControlServerOptions } from '../../src/web/control-server.ts';
import { wsMessageSocket } from '../../src/web/ws-socket.ts';
import { createFakeHub, sampleSnapshot } from './fake-hub.ts';
import { ProfileSignIns, browserProtocols, httpRequest, nodePage, openSocket, renewRequest, sessionRequest } from './helpers.ts';
import { tempDir, waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';

const SECRET = 'top secret outside the renderer';

/** A port nothing listens on (for the moment). */
async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => probe.once('listening', r));
  const { port } = probe.address() as { port: number };
  await new Promise((r) => probe.close(r));
  return port;
}

/** A tab at `origin` whose profile holds `credential` (signed in before). */
async function browserPage(origin: string, credential: string) {
  const profile = new ProfileSignIns();
  await profile.keep(credential);
  return nodePage(origin, { profile });
}

/** A sign-in's (or renewal's) answer, checked. */
function answered(answer: { status: number; body: string }): SessionAnswer {
  assert.equal(answer.status, 200, answer.body);
  const parsed: unknown = JSON.parse(answer.body);
  assert.ok(isSessionAnswer(parsed), answer.body);
  return parsed;
}

/** The renewed credential and ticket, or the status that refused the renewal. */
async function renewed(port: number, origin: string, credential: string): Promise<SessionAnswer | number> {
  const answer = await renewRequest(port, origin, credential);
  return answer.status === 200 ? answered(answer) : answer.status;
}

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
  const connect = async (headers: Record<string, string>, protocols: string[] = []) => {
    const result = await openSocket(api, headers, protocols);
    if (result.ok) sockets.push(result.ws);
    return result;
  };
  /** Follows a fresh sign-in link as the page does: the secret from its fragment, traded for a credential and a socket ticket. */
  const signIn = async () => {
    const secret = signInSecretFrom(new URL(server.mintSignInUrl()).hash);
    assert.ok(secret, 'the link carries its secret in the fragment');
    return answered(await sessionRequest(server.port, origin, { signin: secret }));
  };
  /** The page's socket: our Origin and a ticket as a subprotocol. */
  const pageSocket = (ticket: string, from = origin) => connect({ origin: from }, browserProtocols(ticket));
  return { dir, home, staticDir, hub, server, control, logs, api, origin, connect, signIn, pageSocket };
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

test('a page from another origin is refused with 403, ticket or not', async (t) => {
  const { pageSocket, signIn, connect, control } = await setup(t);
  for (const from of ['http://evil.example', 'http://127.0.0.1:1', 'http://localhost:1']) {
    const { ticket } = await signIn();
    assert.deepEqual(await pageSocket(ticket, from), { ok: false, status: 403 }, from);
  }
  assert.deepEqual(
    await connect({ authorization: `Bearer ${control!.token}`, origin: 'http://evil.example' }),
    { ok: false, status: 403 },
  );
});

test('a sign-in link works once: its secret, from the fragment, is traded for a credential and a one-time ticket that opens the page’s socket', async (t) => {
  const { server, origin, signIn, pageSocket, connect } = await setup(t);
  const link = new URL(server.mintSignInUrl());
  assert.equal(`${link.origin}${link.pathname}${link.search}`, `${origin}/`, 'nothing secret in the part of the URL a server sees');
  const secret = signInSecretFrom(link.hash)!;
  const first = await sessionRequest(server.port, origin, { signin: secret });
  assert.equal(first.headers['set-cookie'], undefined, 'no cookie: other ports would receive it');
  const { credential, ticket } = answered(first);
  const again = await sessionRequest(server.port, origin, { signin: secret });
  assert.equal(again.status, 401, 'the link works only once');
  assert.match(again.body, /expired or was used/);

  const page = await pageSocket(ticket);
  assert.ok(page.ok, 'our Origin plus the ticket opens the socket');
  assert.equal(page.ws.protocol, 'patchbay', 'the ticket is never echoed');
  assert.deepEqual(await pageSocket(ticket), { ok: false, status: 401 }, 'a ticket works once');
  assert.ok(await pageSocket((await signIn()).ticket), 'each link makes its own sign-in');

  assert.deepEqual(await connect({ origin }), { ok: false, status: 401 }, 'our Origin without a ticket');
  assert.deepEqual(await connect({}, browserProtocols((await signIn()).ticket)), { ok: false, status: 401 }, 'a ticket without a page is no CLI');
  assert.deepEqual(await pageSocket(credential), { ok: false, status: 401 }, 'the credential itself opens nothing');
  const forged = ticket.replace(/.$/, (c) => (c === 'a' ? 'b' : 'a'));
  assert.deepEqual(await pageSocket(forged), { ok: false, status: 401 }, 'a ticket changed by one character');
});

test('a renewal proves the credential without sending it, and a proof, a challenge or a changed claim works only once', async (t) => {
  const { server, origin, signIn } = await setup(t);
  const { credential } = await signIn();
  const parts = splitCredential(credential)!;
  const challenge = async () => (JSON.parse((await sessionRequest(server.port, origin, { challenge: true })).body) as { nonce: string }).nonce;

  const nonce = await challenge();
  const { proveSecret } = await import('../../src/web/session-proof.ts');
  const proof = await proveSecret(parts.secret, nonce);
  const request = { renew: parts.claim, nonce, proof };
  assert.ok(!JSON.stringify(request).includes(parts.secret), 'the secret part never travels');
  assert.equal((await sessionRequest(server.port, origin, request)).status, 200);
  assert.equal((await sessionRequest(server.port, origin, request)).status, 409, 'a challenge is answered once');
  assert.equal((await sessionRequest(server.port, origin, { renew: parts.claim, nonce: 'f'.repeat(64), proof })).status, 409, 'only challenges this server made');

  const fresh = await challenge();
  assert.equal((await sessionRequest(server.port, origin, { renew: parts.claim, nonce: fresh, proof })).status, 401, 'a proof for another challenge');
  const otherClaim = parts.claim.replace(/\.[0-9a-z]+$/, (renewedAt) => `.${(parseInt(renewedAt.slice(1), 36) + 1).toString(36)}`);
  const fresher = await challenge();
  const moved = await sessionRequest(server.port, origin, { renew: otherClaim, nonce: fresher, proof: await proveSecret(parts.secret, fresher) });
  assert.equal(moved.status, 401, 'a claim with its times changed');
  assert.equal(typeof (await renewed(server.port, origin, credential)), 'object', 'the credential itself still renews');
});

test('only our own page may sign in or renew: another Origin, or none, is refused', async (t) => {
  const { server, origin, signIn } = await setup(t);
  const secret = () => signInSecretFrom(new URL(server.mintSignInUrl()).hash)!;
  assert.equal((await sessionRequest(server.port, 'http://127.0.0.1:1', { signin: secret() })).status, 403);
  assert.equal((await sessionRequest(server.port, undefined, { signin: secret() })).status, 403);
  const { credential } = await signIn();
  assert.equal((await renewRequest(server.port, 'http://evil.example', credential)).status, 403);
  const plain = await httpRequest(server.port, '/session', { method: 'POST', headers: { origin }, body: '{"challenge":true}' });
  assert.equal(plain.status, 415, 'only JSON, which a cross-site form cannot send');
  assert.equal((await sessionRequest(server.port, origin, { something: 'else' })).status, 400);
  assert.equal((await httpRequest(server.port, '/session')).status, 405);
});

test('a sign-in link stops working after two minutes', async (t) => {
  let now = 1_000_000;
  const { server, origin } = await setup(t, { now: () => now });
  const secret = signInSecretFrom(new URL(server.mintSignInUrl()).hash)!;
  now += 2 * 60 * 1000 + 1;
  assert.equal((await sessionRequest(server.port, origin, { signin: secret })).status, 401);
  const fresh = signInSecretFrom(new URL(server.mintSignInUrl()).hash)!;
  assert.equal((await sessionRequest(server.port, origin, { signin: fresh })).status, 200);
});

test('a sign-in left idle ends; renewed, it lasts until its absolute limit', async (t) => {
  let now = 1_000_000;
  const { server, origin, signIn, pageSocket } = await setup(t, { now: () => now, sessionPolicy: { idleMs: 1000, maxMs: 3000 } });
  const renew = (credential: string) => renewed(server.port, origin, credential);

  const idle = await signIn();
  now += 1000;
  assert.equal(await renew(idle.credential), 401, 'idle for the whole idle time, it cannot be renewed any more');

  let kept = await signIn();
  for (let i = 0; i < 3; i++) {
    now += 900;
    const next = await renew(kept.credential);
    assert.equal(typeof next, 'object', `renewal ${i + 1} within the idle time`);
    kept = next as SessionAnswer;
  }
  assert.ok((await pageSocket(kept.ticket)).ok, 'renewed, it outlives the idle time');
  now += 300; // 3000 ms since the link was used
  assert.equal(await renew(kept.credential), 401, 'no renewal goes past the absolute limit');
});

test('an open page is signed out (close code 4401) once its sign-in reaches its absolute limit', async (t) => {
  let now = 1_000_000;
  const { signIn, pageSocket, hub: fake } = await setup(t, { now: () => now, sessionPolicy: { idleMs: 1000, maxMs: 2000 } });
  const page = await pageSocket((await signIn()).ticket);
  assert.ok(page.ok);
  const remote = createRemoteHub(wsMessageSocket(page.ws));
  assert.deepEqual(await remote.call('snapshot', undefined), sampleSnapshot());
  let calls = 0;
  fake.handlers.setPaused = () => {
    calls += 1;
  };
  now += 2000;
  const closed = new Promise<[number, string]>((r) => page.ws.once('close', (code, reason) => r([code, reason.toString()])));
  await assert.rejects(remote.call('setPaused', { paused: true }), /sign-in expired/);
  assert.deepEqual(await closed, [SIGNED_OUT_CLOSE_CODE, 'sign-in expired']);
  assert.equal(calls, 0, 'the command after the end was not run');
});

test('revoking every sign-in closes open pages with 4401 and voids their credentials; the CLI is unaffected', async (t) => {
  const { server, control, origin, signIn, pageSocket, connect, logs } = await setup(t);
  const { credential, ticket } = await signIn();
  const page = await pageSocket(ticket);
  assert.ok(page.ok);
  const cli = await connect({ authorization: `Bearer ${control!.token}` });
  assert.ok(cli.ok);
  const pageClosed = new Promise<number>((r) => page.ws.once('close', (code) => r(code)));

  const auth = { authorization: `Bearer ${control!.token}` };
  assert.equal((await httpRequest(server.port, '/revoke-sessions', { method: 'POST' })).status, 401);
  assert.equal((await httpRequest(server.port, '/revoke-sessions', { method: 'POST', headers: { ...auth, origin } })).status, 403);
  const revoked = await httpRequest(server.port, '/revoke-sessions', { method: 'POST', headers: auth });
  assert.equal(revoked.status, 200);
  assert.deepEqual(JSON.parse(revoked.body), { closed: 1, unsaved: null });
  assert.equal(await pageClosed, SIGNED_OUT_CLOSE_CODE);
  assert.equal(await renewed(server.port, origin, credential), 401);
  assert.equal(cli.ws.readyState, cli.ws.OPEN);
  assert.ok(await pageSocket((await signIn()).ticket), 'a new link signs in again');
  assert.ok(logs.some((l) => /every browser sign-in revoked \(1 open page closed\)/.test(l)));
});

test('a sign-in outlives the server: the next one in the same home takes the same port and accepts it', async (t) => {
  const { server, home, staticDir, signIn, origin } = await setup(t);
  const { credential } = await signIn();
  const port = server.port;
  await server.close();
  const next = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, staticDir, version: 'again', log: () => {} });
  t.after(() => next.close());
  assert.equal(next.port, port, 'the remembered port, so the tab keeps its origin');
  const again = await renewed(next.port, origin, credential);
  assert.equal(typeof again, 'object');
  const page = await openSocket(`ws://127.0.0.1:${next.port}/api`, { origin }, browserProtocols((again as SessionAnswer).ticket));
  assert.ok(page.ok);
  page.ws.terminate();
});

test('a sign-in works only at the address it was made for: the same key on another port refuses it', async (t) => {
  const { home, staticDir, signIn, origin } = await setup(t);
  const { credential } = await signIn();
  const elsewhere = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: await freePort(), home, staticDir, version: 'again', log: () => {} });
  t.after(() => elsewhere.close());
  assert.equal(await renewed(elsewhere.port, elsewhere.url, credential), 401);
  assert.equal(typeof (await renewed(Number(new URL(origin).port), origin, credential)), 'object', 'still good where it was made');
});

test('when the remembered port is taken, the server takes another, says why, and ends every sign-in, there and should it get the old port back', async (t) => {
  const { server, home, staticDir, signIn, origin } = await setup(t);
  const { credential } = await signIn();
  const port = server.port;
  await server.close();
  const squatter = createServer().listen(port, '127.0.0.1');
  await new Promise((r) => squatter.once('listening', r));
  const logs: string[] = [];
  const next = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, staticDir, version: 'again', log: (l) => logs.push(l) });
  t.after(() => next.close());
  assert.notEqual(next.port, port);
  assert.equal((JSON.parse(await readFile(browserStatePath(home), 'utf8')) as { controlPort: number }).controlPort, next.port);
  assert.ok(
    logs.some((l) => l.includes(`port ${port}, where browsers signed in last time, is taken by another program; serving on ${next.port} instead`) && l.includes('patchbay open')),
    logs.join('\n'),
  );
  assert.equal(await renewed(next.port, next.url, credential), 401, 'not at the new address');
  await next.close();
  await new Promise((r) => squatter.close(r));
  const back = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port, home, staticDir, version: 'back', log: () => {} });
  t.after(() => back.close());
  assert.equal(await renewed(port, origin, credential), 401, 'nor at the old one, should Patchbay get it back');
});

test('a port given explicitly that another program holds stops the start, saying so', async (t) => {
  const { server, home, staticDir } = await setup(t);
  await assert.rejects(
    startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: server.port, home, staticDir, version: 'again', log: () => {} }),
    new RegExp(`cannot listen on 127\\.0\\.0\\.1:${server.port}: another program holds that port`),
  );
});

test('a tab whose Patchbay went away hands whoever takes its port nothing that signs in anywhere', async (t) => {
  const { server, home, staticDir, signIn, origin } = await setup(t);
  const { credential } = await signIn();
  const port = server.port;
  await server.close();

  // The squatter answers like Patchbay would (a challenge of its own) and keeps everything it is sent.
  const received: { body: string; protocols: string | undefined }[] = [];
  const squatter = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ body, protocols: req.headers['sec-websocket-protocol'] });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ nonce: 'e'.repeat(64) }));
    });
  }).listen(port, '127.0.0.1');
  await new Promise((r) => squatter.once('listening', r));
  const tab = await browserPage(origin, credential);
  t.after(() => tab.close());
  await waitFor(() => received.some((r) => r.body.includes('"renew"')), { message: 'the tab to try renewing at the squatter' });
  tab.close();
  await new Promise((r) => squatter.close(r));
  assert.ok(!received.some((r) => r.body.includes(splitCredential(credential)!.secret)), 'the credential’s secret never reached the squatter');

  // Patchbay back on its port, with the same key: nothing the squatter got opens anything.
  const back = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, staticDir, version: 'back', log: () => {} });
  t.after(() => back.close());
  assert.equal(back.port, port);
  for (const { body } of received) {
    if (body === '') continue;
    const replay = await httpRequest(port, '/session', { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body });
    if (replay.status === 200) assert.ok(!('credential' in (JSON.parse(replay.body) as object)), `replayed ${body} signed in`);
  }
  assert.equal(typeof (await renewed(port, origin, credential)), 'object', 'while the tab’s own sign-in still works');
});

test('browser.json is 0600; one others could read is replaced, signing browsers out, and says why', async (t) => {
  const { server, home, staticDir, signIn } = await setup(t);
  assert.equal((await stat(browserStatePath(home))).mode & 0o777, 0o600);
  const { credential } = await signIn();
  await server.close();
  await chmod(browserStatePath(home), 0o644);
  const logs: string[] = [];
  const next = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, staticDir, version: 'again', log: (l) => logs.push(l) });
  t.after(() => next.close());
  assert.ok(logs.some((l) => l.includes('browser.json: not used because its mode is 644')), logs.join('\n'));
  assert.equal(await renewed(next.port, next.url, credential), 401);
  assert.equal((await stat(browserStatePath(home))).mode & 0o777, 0o600);
});

test('the CLI gets sign-in links only with its token, and never from a browser', async (t) => {
  const { server, control, origin } = await setup(t);
  const auth = { authorization: `Bearer ${control!.token}` };
  assert.equal((await httpRequest(server.port, '/open-token', { method: 'POST' })).status, 401);
  assert.equal((await httpRequest(server.port, '/open-token', { method: 'POST', headers: { ...auth, origin } })).status, 403);
  assert.equal((await httpRequest(server.port, '/open-token', { headers: auth })).status, 405);
  const answer = await httpRequest(server.port, '/open-token', { method: 'POST', headers: auth });
  assert.equal(answer.status, 200);
  const { url } = JSON.parse(answer.body) as { url: string };
  assert.match(url, new RegExp(`^${origin}/#signin=[0-9a-f]{64}$`));
  const secret = signInSecretFrom(new URL(url).hash)!;
  assert.equal((await sessionRequest(server.port, origin, { signin: secret })).status, 200);
});

test('the renderer is served to anyone with its content types and a strict CSP, and never sets a cookie', async (t) => {
  const { server } = await setup(t);
  const cases: [string, string][] = [
    ['/', 'text/html; charset=utf-8'],
    ['/index.html', 'text/html; charset=utf-8'],
    ['/assets/app.js', 'text/javascript; charset=utf-8'],
    ['/assets/app.css', 'text/css; charset=utf-8'],
  ];
  for (const [path, type] of cases) {
    const answer = await httpRequest(server.port, path);
    assert.equal(answer.status, 200, path);
    assert.equal(answer.headers['content-type'], type, path);
    assert.equal(answer.headers['set-cookie'], undefined, path);
    const csp = String(answer.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(answer.headers['x-content-type-options'], 'nosniff');
    assert.equal(answer.headers['referrer-policy'], 'no-referrer');
  }
  assert.equal((await httpRequest(server.port, '/missing.js')).status, 404);
  assert.equal((await httpRequest(server.port, '/', { method: 'POST' })).status, 405);
  assert.equal((await httpRequest(server.port, '/', { method: 'HEAD' })).status, 405);
});

test('paths that climb out of the renderer folder are refused', async (t) => {
  const { server, staticDir, dir } = await setup(t);
  await symlink(join(dir.path, 'secret.txt'), join(staticDir, 'link.txt'));
  for (const path of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/assets/..%2f..%2fsecret.txt', '/..%5csecret.txt', '/link.txt', '/%00']) {
    const answer = await httpRequest(server.port, path);
    assert.ok(answer.status === 403 || answer.status === 404, `${path} → ${answer.status}`);
    assert.ok(!answer.body.includes(SECRET), `${path} leaks the file`);
  }
});

test('a request naming another Host is refused (DNS rebinding)', async (t) => {
  const { server, signIn, api } = await setup(t);
  const { ticket } = await signIn();
  const rebound = { host: `evil.example:${server.port}`, origin: `http://evil.example:${server.port}` };
  assert.equal((await httpRequest(server.port, '/', { headers: { host: rebound.host } })).status, 403);
  const session = await httpRequest(server.port, '/session', {
    method: 'POST',
    headers: { ...rebound, 'content-type': 'application/json' },
    body: JSON.stringify({ challenge: true }),
  });
  assert.equal(session.status, 403);
  assert.deepEqual(await openSocket(api, rebound, browserProtocols(ticket)), { ok: false, status: 403 });
});

test('without a built renderer the page says how to build it', async (t) => {
  const { server } = await setup(t, { staticDir: '/nonexistent/patchbay-renderer' });
  const answer = await httpRequest(server.port, '/');
  assert.equal(answer.status, 200);
  assert.match(answer.body, /npm run build/);
});

test('a flood of silent connections is held under the cap and refused quietly; the CLI still gets in', async (t) => {
  const { server, connect, control, logs } = await setup(t, { maxPending: 4 });
  const flood: Socket[] = [];
  t.after(() => flood.forEach((s) => s.destroy()));
  const closedByServer = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
  for (let i = 0; i < 40; i++) {
    const socket = tcpConnect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    await new Promise((r) => socket.once('connect', r));
    flood.push(socket);
  }
  await withTimeout(Promise.all(flood.slice(0, 36).map(closedByServer)), WAIT_MS, 'the oldest 36 to be shed');
  const cli = await connect({ authorization: `Bearer ${control!.token}` });
  assert.ok(cli.ok, 'the CLI connects through the flood');
  for (let i = 0; i < 30; i++) assert.equal((await connect({})).ok, false);
  await server.close();
  const refusals = logs.filter((l) => l.startsWith('control server: refused'));
  assert.ok(refusals.length <= 5, refusals.join('\n'));
  assert.match(refusals.at(-1) ?? '', /^control server: refused \d+ more connections in the last [\d.]+ s: \d+ too many connections waiting, \d+ missing or wrong token$/);
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

test('control.json and browser.json are replaced atomically and keep no temp files around', async (t) => {
  const { home } = await setup(t);
  assert.deepEqual((await readdir(home)).sort(), ['browser.json', 'control.json']);
  const text = await readFile(join(home, 'control.json'), 'utf8');
  assert.doesNotThrow(() => JSON.parse(text));
});

test('a tab that vanishes without closing (connection reset) costs no log line', async (t) => {
  const { signIn, pageSocket, hub: fake, logs, server } = await setup(t);
  for (let i = 0; i < 5; i++) {
    const page = await pageSocket((await signIn()).ticket);
    assert.ok(page.ok);
    await waitFor(() => fake.listenerCount() === 1, { message: 'the subscription' });
    // What a browser killed mid-session does to its socket: an RST, not a close frame.
    (page.ws as unknown as { _socket: Socket })._socket.resetAndDestroy();
    await waitFor(() => fake.listenerCount() === 0, { message: 'the server noticed the reset' });
  }
  await server.close();
  assert.deepEqual(logs.filter((l) => !l.startsWith('a browser signed in')), []);
});

/** Makes browser.json impossible to replace, even for root: a folder with something in it. */
async function blockBrowserState(home: string): Promise<void> {
  await rm(browserStatePath(home), { force: true });
  await mkdir(browserStatePath(home));
  await writeFile(join(browserStatePath(home), 'in-the-way'), '');
}

test('revoking signs every browser out even when the new key cannot be saved, and says that it was not saved', async (t) => {
  const { server, home, origin, signIn, pageSocket } = await setup(t);
  const { credential, ticket } = await signIn();
  const page = await pageSocket(ticket);
  assert.ok(page.ok);
  const pageClosed = new Promise<number>((r) => page.ws.once('close', (code) => r(code)));
  await blockBrowserState(home);

  const report = await server.revokeSessions();
  assert.equal(report.closed, 1);
  assert.match(report.unsaved ?? '', /browser\.json/, 'the failure to persist is reported');
  assert.equal(await pageClosed, SIGNED_OUT_CLOSE_CODE);
  assert.equal(await renewed(server.port, origin, credential), 401, 'the old sign-in no longer works');
});
