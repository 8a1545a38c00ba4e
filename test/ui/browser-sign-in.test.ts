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
import { CREDENTIAL_KEY } from '../../src/web/browser-hub.ts';
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
  const credential = (await ui.page.evaluate(`localStorage.getItem(${JSON.stringify(CREDENTIAL_KEY)})`)) as string | null;
  assert.ok(credential, 'the page keeps its credential in localStorage');

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
  const report = await waitFor(() => seen.find((s) => s.url === '/report'), { timeoutMs: 5000, message: 'the other page’s report' });
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
  assert.equal(await page.getByText('Routing paused').count(), 0);

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
  await page.getByText('Routing paused').waitFor({ timeout: 10_000 });
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
