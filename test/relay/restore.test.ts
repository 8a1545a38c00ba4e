// `patchbay restore` through a running hub: the editors' lockfiles go back, and the report says so.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startHarness } from './harness.ts';

test('restore gives an adopted lockfile back, reports it, and takeover stays off', async (t) => {
  const h = await startHarness();
  t.after(() => h.close());
  const editor = await h.editor({ workspaceFolders: [await h.folder('p')] });
  await h.editors(1);
  const original = join(h.options.piLockDir, `${editor.port}.lock`);
  assert.ok(!existsSync(original), 'adopted while Patchbay takes over');

  const report = await h.hub.call('restore', undefined);
  assert.deepEqual(report.restored, [original]);
  assert.ok(existsSync(original));
  assert.equal((await h.hub.call('settings.get', undefined)).takeover, false);
  assert.equal((await h.hub.call('snapshot', undefined)).editors.length, 1, 'still listed, now in place');
});
