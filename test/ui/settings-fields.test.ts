// Settings fields that keep a draft while the person types, against a fake hub.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { buildIfStale } from '../../src/cli/start.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { createFakeHub } from '../web/fake-hub.ts';
import { openUi, skipWithoutChromium } from './chromium.ts';

test('the diagnostics deadline shows a change made elsewhere and never writes an old value back', { skip: skipWithoutChromium }, async (t) => {
  assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
  const dir = await tempDir('ui-settings');
  t.after(() => dir.cleanup());
  const hub = createFakeHub();
  const ui = await openUi(hub, { home: join(dir.path, 'home'), version: 'test' }, '#/settings');
  t.after(() => ui.close());
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
