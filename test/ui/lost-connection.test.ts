// The browser face when the daemon behind it goes away: it says so, and gets back by itself.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { SHOTS, openFakeUi, skipWithoutChromium } from './chromium.ts';
import { shootEverySize } from './live-review.ts';

test('when Patchbay stops, the page says the connection is lost and that it is reconnecting', { skip: skipWithoutChromium }, async (t) => {
  const { ui, hub } = await openFakeUi(t, 'ui-lost');
  await ui.page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  await ui.page.locator('.cm-mergeView').waitFor(); // its chunk has loaded: the next test is about a failed one
  assert.equal(await ui.page.getByRole('alert').count(), 0, 'no alarm while connected');
  assert.equal(await ui.page.evaluate('document.querySelector("main").inert'), false);

  // As a stopping hub does: the edit it rejected is told; the other one it never got to.
  const [first] = hub.state.diffs;
  hub.emit({
    type: 'diffDecided',
    record: { id: first!.id, sessionId: first!.sessionId, path: first!.path, outcome: 'rejected', status: 'rejected', by: 'shutdown', at: 0, edited: false, tool: first!.tool, editorId: null, agent: 'pi-ide' },
  });
  await ui.server.close();
  const banner = ui.page.getByRole('alert');
  await banner.waitFor();
  const text = await banner.innerText();
  assert.match(text, /^Lost the connection to Patchbay: Patchbay is stopping\. What this page shows is out of date\. Reconnecting by itself…/);
  assert.match(text, /Patchbay stopped and rejected the edit that waited \(a\.txt\): the agents were told no, nothing was written\./);
  assert.match(text, /1 edit was waiting \(new\.txt\) and Patchbay said nothing about it: if it stopped unexpectedly, pi-ide may have written it without review\./);
  assert.ok(await banner.getByRole('button', { name: 'Reconnect now' }).isVisible());
  assert.equal(await ui.page.evaluate('document.querySelector("main").inert'), true, 'stale controls can no longer be used');
  assert.equal(await ui.page.evaluate('getComputedStyle(document.querySelector("main")).filter'), 'grayscale(1)', 'and it looks out of date');
  await ui.page.screenshot({ path: join(SHOTS, 'lost-connection.png') });
  await shootEverySize(ui.page, 'lost-connection');
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
