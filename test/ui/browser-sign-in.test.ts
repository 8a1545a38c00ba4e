// The browser's sign-in in Debian's Chromium: one sign-in per browser profile, shared by its
// tabs at Patchbay's address (no other loopback port receives anything), and a signed-in tab
// rides out a restart of the server.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { chromium, type Page } from 'playwright-core';
import { buildIfStale } from '../../src/cli/start.ts';
import { startControlServer } from '../../src/web/control-server.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { NOW, createFakeHub, idleHostedDetail, type FakeHub } from '../web/fake-hub.ts';
import { openSocket } from '../web/helpers.ts';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, SHOTS, openFakeUi, skipWithoutChromium } from './chromium.ts';

const skip = skipWithoutChromium;

/** A hosted pi whose write waits for review: its transcript links to the edit. */
function hostedWriteWaiting(hub: FakeHub): void {
  const detail = idleHostedDetail({ id: 'h1', cwd: '/work/proj', pid: 9100, model: 'fake/smart', startedAt: NOW - 60_000 });
  Object.assign(detail, {
    status: 'streaming',
    sessionId: 's1',
    transcript: [
      { kind: 'tool', toolCallId: 'c-write', name: 'write', at: NOW - 40_000, done: false, isError: false, args: { path: 'NOTES.md', content: '# Notes\n' }, output: '' },
    ],
  });
  hub.hosted.set('h1', detail);
  hub.state.diffs.push({
    id: 'dw1', sessionId: 's1', editorId: null, tool: 'write', path: '/work/proj/NOTES.md', tabName: 'pi-write:c-write', status: 'pending',
    createdAt: NOW - 39_000, isNew: true, tooLarge: false, inEditor: false,
  });
  const { transcript: _t, dialogs: _d, statusLines: _s, stats: _st, ...view } = detail;
  hub.state.hosted = [{ ...view, pendingDialogs: 0 }];
}

test('after signing in, a page on another loopback port receives no credential, and a replay without the page’s own is refused', { skip }, async (t) => {
  const { ui } = await openFakeUi(t, 'ui-sign-in');
  await ui.page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  assert.doesNotMatch(ui.page.url(), /signin/, 'the sign-in secret is gone from the address bar');
  // What any script at Patchbay's address could read of the sign-in: its claim, and a key that does not give up its secret.
  const kept = (await ui.page.evaluate(`new Promise((resolve, reject) => {
    const open = indexedDB.open('patchbay');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const get = open.result.transaction('sign-in').objectStore('sign-in').get('current');
      get.onsuccess = async () => {
        const { claim, key } = get.result;
        const exported = await crypto.subtle.exportKey('raw', key).then(() => 'exported', (err) => err.name);
        resolve({ claim, extractable: key.extractable, exported, storage: JSON.stringify({ ...localStorage }) });
      };
    };
  })`)) as { claim: string; extractable: boolean; exported: string; storage: string };
  assert.match(kept.claim, /^v2\.[0-9a-f]{32}\./, 'the page keeps its sign-in');
  assert.equal(kept.extractable, false);
  assert.equal(kept.exported, 'InvalidAccessError', 'its secret cannot be read back');
  assert.doesNotMatch(kept.storage, /v2\.[0-9a-f]{32}\.[0-9a-z]+\.[0-9a-z]+\./, 'localStorage holds no credential');
  const credential = kept.claim;

  // Another program's page on another port, visited in the same browser, trying its luck.
  const control = ui.server.url;
  const seen: { url: string; headers: IncomingHttpHeaders; body: string }[] = [];
  const other = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>other</title><script>
        const report = (what) => fetch('/report', { method: 'POST', body: JSON.stringify(what) });
        const ws = new WebSocket(${JSON.stringify(control.replace('http', 'ws') + '/api')});
        ws.onopen = () => report({ socket: 'open' });
        ws.onclose = (e) => report({ socket: 'closed', code: e.code, cookies: document.cookie });
      </script>`);
    });
  }).listen(0, '127.0.0.1');
  await new Promise((resolve) => other.once('listening', resolve));
  t.after(() => other.close());
  const otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}/`;
  const tab = await ui.page.context().newPage();
  await tab.goto(otherUrl);
  const report = await waitFor(() => seen.find((s) => s.url === '/report'), { message: 'the other page’s report' });
  assert.deepEqual(JSON.parse(report.body), { socket: 'closed', code: 1006, cookies: '' }, 'its socket to Patchbay was refused');
  for (const request of seen) {
    assert.equal(request.headers.cookie, undefined, `${request.url} got a cookie`);
    assert.ok(!JSON.stringify(request.headers).includes(credential), `${request.url} got the credential`);
  }

  // Everything that port received, replayed with a forged Origin, opens nothing.
  const forged: Record<string, string> = { ...(seen[0]!.headers as Record<string, string>), origin: control, host: new URL(control).host };
  delete forged.connection;
  delete forged.upgrade;
  assert.deepEqual(await openSocket(`${control.replace('http', 'ws')}/api`, forged), { ok: false, status: 401 });

  // The page's own tab still works; a browser profile never signed in has no sign-in and says how to get one.
  assert.equal(await ui.page.getByRole('heading', { name: /Review inbox/ }).count(), 1);
  const stranger = await (await ui.browser.newContext({ viewport: { width: 1100, height: 720 } })).newPage();
  await stranger.goto(control);
  await stranger.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
  assert.match(await stranger.locator('.sign-in').innerText(), /This page has no sign-in\.\n+Run patchbay open in a terminal/);
  await stranger.screenshot({ path: join(SHOTS, 'sign-in.png') });
  assert.deepEqual(ui.consoleErrors.filter((e) => !e.includes('WebSocket')), []);
});

test('a program that takes Patchbay’s port while it is away, and serves its own page there, reads no secret from the browser', { skip }, async (t) => {
  const { ui, page } = await openFakeUi(t, 'ui-squatter');
  await page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  const port = ui.server.port;
  await ui.server.close();

  // Its page reads everything this origin keeps and sends it home.
  const reports: string[] = [];
  const squatter = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url === '/report') reports.push(body);
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Patchbay</title><script>
        const open = indexedDB.open('patchbay');
        open.onsuccess = () => {
          const get = open.result.transaction('sign-in').objectStore('sign-in').get('current');
          get.onsuccess = async () => {
            const key = get.result && get.result.key;
            const raw = key ? await crypto.subtle.exportKey('raw', key).then((b) => btoa(String.fromCharCode(...new Uint8Array(b))), (e) => e.name) : null;
            const jwk = key ? await crypto.subtle.exportKey('jwk', key).then((k) => JSON.stringify(k), (e) => e.name) : null;
            fetch('/report', { method: 'POST', body: JSON.stringify({ kept: get.result, raw, jwk, local: { ...localStorage }, session: { ...sessionStorage } }) });
          };
        };
      </script>`);
    });
  }).listen(port, '127.0.0.1');
  await new Promise((resolve) => squatter.once('listening', resolve));
  t.after(() => new Promise((resolve) => squatter.close(resolve)));
  const visit = await page.context().newPage();
  await visit.goto(`http://127.0.0.1:${port}/`);
  const report = JSON.parse(await waitFor(() => reports[0], { message: 'the squatter’s report' })) as { raw: string; jwk: string; kept: unknown };
  assert.equal(report.raw, 'InvalidAccessError');
  assert.equal(report.jwk, 'InvalidAccessError');
  assert.doesNotMatch(reports[0]!, /v2\.[0-9a-f]{32}\.[0-9a-z]+\.[0-9a-z]+\.[A-Za-z0-9_-]{43}/, 'no whole credential');
});

test('the page `patchbay open` hands the browser signs it in, leaves no secret in the address bar, and is deleted once used', { skip }, async (t) => {
  assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
  const dir = await tempDir('ui-sign-in-page');
  t.after(() => dir.cleanup());
  const server = await startControlServer({
    hub: createFakeHub(), host: '127.0.0.1', port: 0, home: join(dir.path, 'home'), version: 'test', staticDir: join(ROOT, 'out', 'renderer'), log: () => {},
  });
  t.after(() => server.close());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  const file = await server.writeSignInPage();
  await page.goto(pathToFileURL(file).href);
  await page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  assert.doesNotMatch(page.url(), /signin/, 'the secret is gone from the address bar');
  await waitFor(() => !existsSync(file), { message: 'the used page deleted' });
});

test('one sign-in per browser: a second tab, a middle-click on “Review this edit” and a reopened tab are signed in; revoking signs them all out and one new link brings them back', { skip }, async (t) => {
  const { ui, page, hub } = await openFakeUi(t, 'ui-tabs');
  const context = page.context();
  const inbox = (tab: Page) => tab.getByRole('heading', { name: /Review inbox/ });
  const signInNotice = (tab: Page) => tab.getByRole('heading', { name: 'Sign in to Patchbay' });
  await inbox(page).waitFor(); // signed in: a reload before the link's secret is traded would lose it
  hostedWriteWaiting(hub);
  await page.reload();
  await inbox(page).waitFor();
  await page.evaluate(`window.location.hash = '#/sessions/h1'`);

  const review = page.getByRole('link', { name: 'Review this edit' });
  const [reviewTab] = await Promise.all([context.waitForEvent('page'), review.click({ button: 'middle' })]);
  await inbox(reviewTab).waitFor();
  assert.match(reviewTab.url(), /#\/review\/dw1$/, 'the middle-click opened the edit, signed in');

  const second = await context.newPage();
  await second.goto(ui.server.url);
  await inbox(second).waitFor();

  // Every Patchbay tab closed, then one opened again (a reopened tab, or the bookmark).
  await Promise.all([page.close(), reviewTab.close(), second.close()]);
  const reopened = await context.newPage();
  await reopened.goto(`${ui.server.url}/#/settings`);
  await reopened.getByRole('heading', { name: 'Settings' }).first().waitFor();
  assert.equal(await signInNotice(reopened).count(), 0);
  const another = await context.newPage();
  await another.goto(ui.server.url);
  await inbox(another).waitFor();

  await ui.server.revokeSessions();
  await signInNotice(reopened).waitFor();
  await signInNotice(another).waitFor();
  assert.match(await another.locator('.sign-in').innerText(), /Every browser was signed out\./);
  await another.screenshot({ path: join(SHOTS, 'sign-in-revoked.png') });

  await reopened.goto(ui.server.mintSignInUrl());
  await inbox(reopened).waitFor();
  await inbox(another).waitFor({ timeout: 10_000 });
  assert.equal(await signInNotice(another).count(), 0, 'the other tab took the new sign-in by itself');
});

test('a signed-in tab reconnects by itself after Patchbay restarts, with a fresh snapshot; revoking signs it out', { skip }, async (t) => {
  assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
  const dir = await tempDir('ui-restart');
  t.after(() => dir.cleanup());
  const home = join(dir.path, 'home');
  const staticDir = join(ROOT, 'out', 'renderer');
  const first = await startControlServer({ hub: createFakeHub(), host: '127.0.0.1', port: 0, home, version: 'test', staticDir, log: () => {} });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1100, height: 720 } });
  await page.goto(first.mintSignInUrl());
  await page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  assert.equal(await page.getByText(/^Routing paused/).count(), 0);

  await first.close();
  const banner = page.getByRole('alert').filter({ hasText: 'Lost the connection' });
  await banner.waitFor();
  assert.match(await banner.innerText(), /Reconnecting by itself…/);
  await page.screenshot({ path: join(SHOTS, 'reconnecting.png') });

  // The restarted one: same home, so the same port and signing key; its state differs.
  const hub = createFakeHub();
  hub.state.paused = true;
  const second = await startControlServer({ hub, host: '127.0.0.1', port: 0, home, version: 'test', staticDir, log: () => {} });
  t.after(() => second.close());
  assert.equal(second.port, first.port);
  await page.getByText(/^Routing paused/).waitFor({ timeout: 10_000 });
  await banner.waitFor({ state: 'detached' });
  assert.equal(await page.evaluate('document.querySelector("main").inert'), false, 'usable again');
  await page.getByRole('link', { name: /Settings/ }).click();
  await page.getByRole('heading', { name: 'Settings' }).first().waitFor();
  await page.screenshot({ path: join(SHOTS, 'reconnected.png') });

  await second.revokeSessions();
  await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
  assert.match(await page.locator('.sign-in').innerText(), /^Sign in to Patchbay\n+Every browser was signed out\./);
  await page.reload();
  await page.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
  assert.match(await page.locator('.sign-in').innerText(), /This page has no sign-in\./, 'the void credential was dropped');
});
