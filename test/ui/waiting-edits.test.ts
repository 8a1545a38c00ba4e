// Never missing a waiting edit in the browser face: the Review tab's count, the title and the
// favicon, and a notification while the page is hidden (asked for from a button, never on load).
// Headless Chromium always reports its pages visible, so the page's visibility is set by an
// init script; the Notification API is the browser's own, watched by a wrapper.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import type { DiffSummary } from '../../src/api/types.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { createFakeHub, type FakeHub } from '../web/fake-hub.ts';
import { openFakeUi, openUi, skipWithoutChromium } from './chromium.ts';

const skip = skipWithoutChromium;

/** Page-side: a settable visibility and a record of every Notification made and permission asked. */
const WATCH_PAGE = `(() => {
  let hidden = false;
  Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
  Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
  window.__setHidden = (value) => {
    hidden = value;
    document.dispatchEvent(new Event('visibilitychange'));
  };
  window.__notices = [];
  window.__asked = 0;
  const Real = window.Notification;
  class Watched extends Real {
    constructor(title, options) {
      super(title, options);
      window.__notices.push({ title, body: options && options.body, tag: options && options.tag, notice: this });
    }
  }
  Watched.requestPermission = (...args) => {
    window.__asked++;
    return Real.requestPermission(...args);
  };
  window.Notification = Watched;
})();`;

interface Notice {
  title: string;
  body: string;
  tag: string;
}

const notices = (page: Page): Promise<Notice[]> =>
  page.evaluate('window.__notices.map(({ title, body, tag }) => ({ title, body, tag }))') as Promise<Notice[]>;

/** A pi edit arrives at the hub: it is pending and the snapshot says so. */
function arrive(hub: FakeHub, id: string, path: string, createdAt: number, more: Partial<DiffSummary> = {}): void {
  const diff: DiffSummary = {
    id,
    sessionId: 's1',
    editorId: null,
    tool: 'write',
    path,
    tabName: `pi-write:${id}`,
    status: 'pending',
    createdAt,
    isNew: true,
    tooLarge: false,
    inEditor: false,
    ...more,
  };
  hub.state.diffs.push(diff);
  hub.details.set(id, { ...diff, oldContents: null, newContents: `${id}\n`, decision: null, finalContents: null });
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
}

function decideAll(hub: FakeHub): void {
  for (const diff of hub.state.diffs) diff.status = 'accepted';
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
}

const favicon = (page: Page): Promise<string> => page.evaluate(`document.querySelector('link[rel~="icon"]').getAttribute('href')`) as Promise<string>;

test('the Review tab counts the waiting edits; the title and the favicon carry the count on every view', { skip }, async (t) => {
  const { hub, ui } = await openFakeUi(t, 'ui-waiting', '#/pairing');
  const { page } = ui;

  // The header is drawn before the first snapshot arrives: wait for the count, not the link.
  const review = page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Review/ });
  await page.getByRole('link', { name: 'Review 2 edits waiting for review' }).waitFor();
  assert.equal(await review.textContent(), 'Review2 edits waiting for review', 'the sample hub has two pending edits');
  assert.equal(await page.title(), '(2) Pairing — Patchbay');
  await waitFor(async () => (await favicon(page)).startsWith('data:image/png'), { message: 'the favicon drawn with the count' });
  for (const v of ['Pairing', 'Traffic', 'Settings', 'Sessions']) {
    // The view keys are in the shortcuts list, not beside the names, where they read as counts.
    assert.equal(await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${v}`) }).textContent(), v);
  }

  arrive(hub, 'd3', '/work/proj/third.txt', Date.now());
  await page.getByRole('link', { name: 'Review 3 edits waiting for review' }).waitFor();
  assert.equal(await page.title(), '(3) Pairing — Patchbay');

  decideAll(hub);
  await page.getByRole('link', { name: 'Review', exact: true }).waitFor();
  assert.equal(await page.title(), 'Pairing — Patchbay');
  await waitFor(async () => (await favicon(page)) === './favicon.png', { message: 'the shipped favicon back' });
  assert.deepEqual(ui.consoleErrors, []);
});

test('the shortcuts list opens with "?" and names every view key; keys behind it do nothing', { skip }, async (t) => {
  const { hub, ui } = await openFakeUi(t, 'ui-shortcuts', '#/review');
  const { page } = ui;
  await page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  await page.getByRole('heading', { name: /Review inbox/ }).click();
  await page.keyboard.press('?');
  const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
  await dialog.waitFor();
  for (const label of ['Go to Review', 'Go to Pairing', 'Go to Traffic', 'Go to Settings', 'Go to Sessions', 'Accept', 'Follow up']) {
    await dialog.getByText(label, { exact: true }).waitFor();
  }
  await page.keyboard.press('a');
  await page.keyboard.press('2');
  assert.equal(hub.calls.filter((c) => c.method === 'diffs.accept').length, 0, '"a" behind the list accepts nothing');
  assert.equal(await page.evaluate('location.hash'), '#/review/d1', '"2" behind the list does not switch views (the oldest edit is selected)');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  await page.getByRole('button', { name: 'Shortcuts' }).click();
  await dialog.getByRole('button', { name: 'Close' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.keyboard.press('2');
  await page.waitForURL((url) => url.hash === '#/pairing');
});

test('a notification is asked for only from its button, and shows when an edit arrives while the page is hidden', { skip }, async (t) => {
  assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
  const dir = await tempDir('ui-notify');
  t.after(() => dir.cleanup());

  // Not allowed yet: a button offers it, and loading the page asks nothing.
  const first = await openUi(createFakeHub(), { home: join(dir.path, 'home1'), version: 'test' }, '#/review', async (page) => {
    await page.addInitScript(WATCH_PAGE);
  });
  t.after(() => first.close());
  const ask = first.page.getByRole('button', { name: 'Notify me of waiting edits' });
  await ask.waitFor();
  assert.equal(await first.page.evaluate('window.__asked'), 0, 'no permission asked on load');
  await ask.click();
  await waitFor(async () => (await first.page.evaluate('window.__asked')) === 1, { message: 'the permission asked from the click' });

  // Allowed: no button; edits that arrive while the page is hidden are announced.
  const hub = createFakeHub();
  hub.state.diffs = [];
  const ui = await openUi(hub, { home: join(dir.path, 'home2'), version: 'test' }, '#/settings', async (page, origin) => {
    await page.addInitScript(WATCH_PAGE);
    await page.context().grantPermissions(['notifications'], { origin });
  });
  t.after(() => ui.close());
  const { page } = ui;
  await page.getByRole('heading', { name: 'Settings', exact: true }).waitFor();
  assert.equal(await page.getByRole('button', { name: 'Notify me of waiting edits' }).count(), 0);

  // Seen on a visible page: the badge tells, no notification.
  arrive(hub, 'seen', '/work/proj/seen.txt', Date.now() - 10_000);
  await page.getByRole('link', { name: 'Review 1 edit waiting for review' }).waitFor();

  await page.evaluate('window.__setHidden(true)');
  // Shown in an editor: that editor tells the person.
  arrive(hub, 'in-editor', '/work/proj/open.txt', Date.now() - 10_000, { inEditor: true });
  arrive(hub, 'hidden', '/work/proj/hidden.txt', Date.now() - 10_000);
  const [notice] = await waitFor(async () => {
    const list = await notices(page);
    return list.length > 0 && list;
  }, { message: 'a notification for the edit that arrived while hidden' });
  assert.deepEqual(notice, { title: 'Edit waiting for review', body: 'hidden.txt from pi · proj', tag: 'patchbay-waiting-edits' });
  assert.equal(await page.title(), '(3) Settings — Patchbay');
  assert.equal((await notices(page)).length, 1, 'one notification: not for the edit seen, nor the one an editor shows');

  // Clicking it brings the page back on that edit.
  await page.evaluate('window.__notices[0].notice.onclick(new Event("click"))');
  await page.waitForURL((url) => url.hash === '#/review/hidden');
  assert.deepEqual(ui.consoleErrors, []);
});
