// Settings fields that keep a draft while the person types, against a fake hub.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitFor } from '../peers/wait.ts';
import { SHOTS, openFakeUi, skipWithoutChromium } from './chromium.ts';

test('the diagnostics deadline shows a change made elsewhere and never writes an old value back', { skip: skipWithoutChromium }, async (t) => {
  const { hub, ui } = await openFakeUi(t, 'ui-settings', '#/settings');
  const field = ui.page.getByLabel('Diagnostics deadline (ms)');
  await field.waitFor();
  assert.equal(await field.inputValue(), String(hub.state.settings.diagnosticsDeadlineMs));

  // Another window (or the CLI) changes it.
  hub.state.settings.diagnosticsDeadlineMs = 2500;
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
  await waitFor(async () => (await field.inputValue()) === '2500', { message: 'the field to show the new value' });
  const sets = () => hub.calls.filter((c) => c.method === 'settings.set').length;
  await field.focus();
  await field.blur();
  assert.equal(sets(), 0, 'a blur without an edit saves nothing');
  assert.equal(hub.state.settings.diagnosticsDeadlineMs, 2500);

  await field.fill('900');
  await field.press('Enter');
  await waitFor(() => sets() === 1, { message: 'the edit saved' });
  assert.deepEqual(hub.calls.filter((c) => c.method === 'settings.set').at(-1)?.params, { patch: { diagnosticsDeadlineMs: 900 } });
  assert.equal(hub.state.settings.diagnosticsDeadlineMs, 900);
});

test('a bad deadline is outlined with its reason beside it and not saved; a good one says it was saved', { skip: skipWithoutChromium }, async (t) => {
  const { hub, ui } = await openFakeUi(t, 'ui-settings-bad', '#/settings');
  const { page } = ui;
  const field = page.getByLabel('Diagnostics deadline (ms)');
  await field.fill('-5');
  await field.press('Enter');
  const error = page.getByText('The deadline must be between 50 and 60000 ms.');
  await error.waitFor();
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.equal(await field.inputValue(), '-5', 'the typed value stays, to be fixed');
  // The reason is the field's own description, and sits right under it.
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  assert.ok(describedBy.split(' ').includes((await error.getAttribute('id')) ?? '-'), 'the field names its error');
  const fieldBox = await field.boundingBox();
  const errorBox = await error.boundingBox();
  assert.ok(fieldBox && errorBox && errorBox.y > fieldBox.y && errorBox.y - (fieldBox.y + fieldBox.height) < 20, 'the error is under the field');
  // Page-side code as text: this file is type-checked without the DOM library.
  const border = async (id: string | null): Promise<string> =>
    (await page.evaluate(`getComputedStyle(document.getElementById(${JSON.stringify(id)})).borderTopColor`)) as string;
  const bad = await border(await field.getAttribute('id'));
  assert.notEqual(bad, await border(await page.getByLabel('Add folder').getAttribute('id')), `outlined (${bad})`);
  assert.equal(hub.calls.filter((c) => c.method === 'settings.set').length, 0, 'nothing saved');
  assert.equal(hub.state.settings.diagnosticsDeadlineMs, 1500);
  await page.screenshot({ path: join(SHOTS, 'settings-deadline-invalid.png') });

  await field.fill('800');
  await field.press('Enter');
  await page.getByRole('status').getByText('Saved', { exact: true }).first().waitFor();
  assert.equal(hub.state.settings.diagnosticsDeadlineMs, 800);
  assert.equal(await field.getAttribute('aria-invalid'), 'false');
  assert.equal(await error.count(), 0);

  // A click, not uncheck(): the box shows the hub's value, which changes once the hub has it.
  const takeover = page.getByLabel("Take over editors' lockfiles", { exact: false });
  await takeover.click();
  await page.getByRole('heading', { name: /Routing and review/ }).getByText('Saved', { exact: true }).waitFor();
  assert.equal(hub.state.settings.takeover, false);
  await waitFor(async () => !(await takeover.isChecked()), { message: 'the box unchecked' });
});

test('what hosted pi runs is shown, with where it comes from, and cannot be changed from the page: it says how to, in a terminal', { skip: skipWithoutChromium }, async (t) => {
  const { hub, ui } = await openFakeUi(t, 'ui-settings-pi', '#/settings');
  const { page } = ui;
  const hosted = page.getByRole('region', { name: 'Hosted pi sessions' });
  await hosted.waitFor();
  const text = () => hosted.innerText();
  assert.match(await text(), /pi command\s+pi\s+pi on PATH: nothing else is set/);
  assert.match(await text(), /Extensions \(-e\)\s+not allowed/);
  assert.equal(await hosted.getByRole('textbox').count(), 0, 'no field to type a command into');
  assert.equal(await page.getByRole('checkbox', { name: /extensions/i }).count(), 0, 'no box to allow extensions');
  assert.ok((await text()).includes(`patchbay settings set piCommand '"/path/to/pi"'`), await text());
  assert.ok((await text()).includes('patchbay settings set allowPiExtensions true'));
  assert.ok((await text()).includes(hub.state.hostedPi.settingsFile));

  // The daemon was started with $PATCHBAY_PI_COMMAND, and extensions were allowed in a terminal.
  hub.state.hostedPi = { ...hub.state.hostedPi, command: ['/opt/node22/bin/node', '/opt/pi/cli.js'], commandSource: 'environment', allowExtensions: true };
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
  await waitFor(async () => /\/opt\/node22\/bin\/node \/opt\/pi\/cli\.js\s+from \$PATCHBAY_PI_COMMAND/.test(await text()), { message: 'the environment’s command shown' });
  assert.match(await text(), /Extensions \(-e\)\s+allowed/);
  await hosted.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'settings-hosted-pi.png') });
  assert.equal(hub.calls.filter((c) => c.method === 'settings.set').length, 0);
});
