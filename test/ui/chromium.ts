// Debian's Chromium as the browser tests drive it (playwright-core never downloads one).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import type { HubApi } from '../../src/api/types.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { startControlServer, type ControlServer } from '../../src/web/control-server.ts';
import { tempDir } from '../peers/wait.ts';
import { createFakeHub, type FakeHub } from '../web/fake-hub.ts';

export const CHROMIUM = '/usr/bin/chromium';
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Screenshots the tests save, to be looked at. */
export const SHOTS = join(ROOT, 'test-results', 'ui');
/** Headless, and nothing that would reach for the network this machine does not have. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** false, or why the browser tests are skipped. */
export const skipWithoutChromium: false | string = existsSync(CHROMIUM) ? false : `${CHROMIUM} is not installed (apt-get install chromium)`;

export interface UiSession {
  server: ControlServer;
  browser: Browser;
  /** Signed in through a sign-in link, at 1100×720. */
  page: Page;
  /** Console errors and uncaught exceptions of the page, for a final "no errors" check. */
  consoleErrors: string[];
  close(): Promise<void>;
}

/**
 * Serves the built renderer for `hub` on a control server and signs a fresh page in, then goes to `hash`.
 * `prepare` runs before the page loads (init scripts, permissions for `origin`).
 */
export async function openUi(
  hub: HubApi,
  server: { home: string; version: string },
  hash = '',
  prepare?: (page: Page, origin: string) => Promise<void>,
): Promise<UiSession> {
  const control = await startControlServer({
    hub,
    host: '127.0.0.1',
    port: 0,
    home: server.home,
    version: server.version,
    staticDir: join(ROOT, 'out', 'renderer'),
    log: () => {},
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  // A context of its own, so a test can open more tabs that share its storage and cookies.
  const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  const page = await context.newPage();
  const consoleErrors: string[] = [];
  page.on('console', (msg) => msg.type() === 'error' && consoleErrors.push(msg.text()));
  page.on('pageerror', (err) => consoleErrors.push(err.message));
  await prepare?.(page, control.url);
  await page.goto(control.mintSignInUrl());
  // The page has read (and cleared) the sign-in fragment by the load event; the route comes after.
  if (hash !== '') await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
  return {
    server: control,
    browser,
    page,
    consoleErrors,
    close: async () => {
      await browser.close();
      await control.close();
    },
  };
}

/**
 * The built UI signed in to a fresh fake hub, in a temp home, at `hash`; the page closes and
 * the home goes (in that order) when the test ends.
 */
export async function openFakeUi(
  t: TestContext,
  name: string,
  hash = '',
  prepare?: (page: Page, origin: string) => Promise<void>,
): Promise<{ hub: FakeHub; ui: UiSession; page: Page }> {
  assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
  const dir = await tempDir(name);
  const hub = createFakeHub();
  let ui: UiSession | undefined;
  t.after(async () => {
    await ui?.close();
    await dir.cleanup();
  });
  ui = await openUi(hub, { home: join(dir.path, 'home'), version: 'test' }, hash, prepare);
  return { hub, ui, page: ui.page };
}
