// A cold page at a diff's address asks for the snapshot and that diff the moment its socket is
// up, before React and the app have loaded (renderer/src/hub/early-start.ts); the views then
// take those answers instead of asking again, and a later diff is asked for as usual.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openFakeUi, skipWithoutChromium } from './chromium.ts';
import { waitFor } from '../peers/wait.ts';

test('a new tab at a diff’s address asks once for the snapshot and once for that diff, and shows it', { skip: skipWithoutChromium }, async (t) => {
  const { ui, hub } = await openFakeUi(t, 'ui-early');
  // Signed in (the profile keeps it); the first tab goes so that only the new one asks.
  const origin = new URL(ui.page.url()).origin;
  const tab = await ui.page.context().newPage();
  await ui.page.close();
  const mark = hub.calls.length;
  await tab.goto(`${origin}/#/review/d1`);
  await tab.locator('.merge-editor .cm-line', { hasText: '2' }).first().waitFor();
  const asked = (method: string) => hub.calls.slice(mark).filter((c) => c.method === method);
  assert.deepEqual(asked('diffs.get'), [{ method: 'diffs.get', params: { id: 'd1' } }], 'the diff in the address, once');
  assert.equal(asked('snapshot').length, 1, 'the snapshot, once');

  // Another diff is asked for when it is opened: the early answer was for d1 alone.
  await tab.locator('.diff-item', { hasText: 'new.txt' }).click();
  await waitFor(() => asked('diffs.get').some((c) => (c.params as { id: string }).id === 'd2'), { message: 'd2 asked for' });
  await tab.getByText('brand new').first().waitFor();
  assert.equal(asked('diffs.get').length, 2);
});
