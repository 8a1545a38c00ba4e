// A door lockfile that cannot be written means agents may not reach Patchbay: the page says so.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openFakeUi, skipWithoutChromium } from './chromium.ts';

test('a stale door lockfile shows as an alert with its reason, and goes once it is written', { skip: skipWithoutChromium }, async (t) => {
  const { hub, ui } = await openFakeUi(t, 'ui-door');
  const problem = 'door lockfile /home/u/.pi/ide/41234.lock cannot be written: permission denied (EACCES). Retrying';
  hub.state.door.problems = [problem];
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
  const alert = ui.page.getByRole('alert').filter({ hasText: 'Agents may not reach Patchbay' });
  await alert.waitFor();
  assert.match((await alert.textContent()) ?? '', /41234\.lock cannot be written: permission denied \(EACCES\)/);

  hub.state.door.problems = [];
  hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
  await alert.waitFor({ state: 'detached' });
});
