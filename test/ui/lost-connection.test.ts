// The browser face when the daemon behind it goes away: it says so, and gets back by itself.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { SHOTS, openFakeUi, skipWithoutChromium } from './chromium.ts';

test('when Patchbay stops, the page says the connection is lost and that it is reconnecting', { skip: skipWithoutChromium }, async (t) => {
  const { ui } = await openFakeUi(t, 'ui-lost');
  await ui.page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  await ui.page.locator('.cm-mergeView').waitFor(); // its chunk has loaded: the next test is about a failed one
  assert.equal(await ui.page.getByRole('alert').count(), 0, 'no alarm while connected');
  assert.equal(await ui.page.evaluate('document.querySelector("main").inert'), false);

  await ui.server.close();
  const banner = ui.page.getByRole('alert');
  await banner.waitFor();
  assert.match(await banner.innerText(), /^Lost the connection to Patchbay: Patchbay is stopping\. Reconnecting by itself…/);
  assert.ok(await banner.getByRole('button', { name: 'Reconnect now' }).isVisible());
  assert.equal(await ui.page.evaluate('document.querySelector("main").inert'), true, 'stale controls can no longer be used');
  await ui.page.screenshot({ path: join(SHOTS, 'lost-connection.png') });
});

test('a diff editor that cannot be fetched says so in place; the rest of the page keeps working', { skip: skipWithoutChromium }, async (t) => {
  // Refused from the start: the page shows the review view while it signs in, before '#/settings'.
  const refuseChunk = async (page: Page): Promise<void> => {
    await page.route('**/MergeEditor-*.js', (route) => route.abort());
  };
  const { ui } = await openFakeUi(t, 'ui-chunk', '#/settings', refuseChunk);
  await ui.page.getByRole('heading', { name: 'Settings' }).first().waitFor();
  await ui.page.getByRole('link', { name: /Review/ }).click();
  const failed = ui.page.getByRole('alert');
  await failed.waitFor();
  assert.match(await failed.innerText(), /^Could not load the diff editor: /);
  assert.ok(await ui.page.getByRole('button', { name: 'Accept', exact: true }).isVisible(), 'the decision buttons stay');
  await ui.page.getByRole('link', { name: /Settings/ }).click();
  await ui.page.getByRole('heading', { name: 'Settings' }).first().waitFor();
});
