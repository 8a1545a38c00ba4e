// The browser's sign-in in Debian's Chromium: the credential stays with its tab (no other
// loopback port receives anything), and a signed-in tab rides out a restart of the server.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { buildIfStale } from '../../src/cli/start.ts';
import { CREDENTIAL_KEY } from '../../src/web/browser-hub.ts';
import { startControlServer } from '../../src/web/control-server.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { createFakeHub } from '../web/fake-hub.ts';
import { openSocket } from '../web/helpers.ts';
import { CHROMIUM, CHROMIUM_ARGS, ROOT, SHOTS, openFakeUi, skipWithoutChromium } from './chromium.ts';

const skip = skipWithoutChromium;

test('after signing in, a page on another loopback port receives no credential, and a replay without the page’s own is refused', { skip }, async (t) => {
  const { ui } = await openFakeUi(t, 'ui-sign-in');
  await ui.page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  assert.doesNotMatch(ui.page.url(), /signin/, 'the sign-in secret is gone from the address bar');
  const credential = (await ui.page.evaluate(`sessionStorage.getItem(${JSON.stringify(CREDENTIAL_KEY)})`)) as string | null;
  assert.ok(credential, 'the page keeps its credential in sessionStorage');

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

  // The page's own tab still works; a fresh tab of Patchbay has no sign-in and says how to get one.
  assert.equal(await ui.page.getByRole('heading', { name: /Review inbox/ }).count(), 1);
  await tab.goto(control);
  await tab.getByRole('heading', { name: 'Sign in to Patchbay' }).waitFor();
  assert.match(await tab.locator('.sign-in').innerText(), /This page has no sign-in\.\n+Run patchbay open in a terminal/);
  await tab.screenshot({ path: join(SHOTS, 'sign-in.png') });
  assert.deepEqual(ui.consoleErrors.filter((e) => !e.includes('WebSocket')), []);
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
