// A review folder that is not a folder on this machine is said, not silently accepted.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHarness } from './harness.ts';
import { waitFor } from '../peers/wait.ts';

test('a review folder that does not exist is warned about until it is removed', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const real = await h.folder('real');
  const missing = join(real, 'no-such-folder');
  await h.hub.call('settings.set', { patch: { reviewFolders: [real, missing] } });
  const warnings = await waitFor(async () => {
    const found = (await h.hub.call('snapshot', undefined)).warnings.filter((w) => w.startsWith('Review folder'));
    return found.length > 0 && found;
  });
  assert.deepEqual(warnings, [`Review folder ${missing} is not a folder on this machine: no agent works there, so none reaches Patchbay through it. Check it in Settings.`]);
  await h.hub.call('settings.set', { patch: { reviewFolders: [real] } });
  await waitFor(async () => !(await h.hub.call('snapshot', undefined)).warnings.some((w) => w.startsWith('Review folder')), { message: 'the warning gone' });
});
