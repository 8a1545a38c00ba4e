// Resources have owners: once the hub has closed, nothing it opened is left behind.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitFor } from '../peers/wait.ts';
import { startHarness } from './harness.ts';

/** Sockets, servers, watchers, ref'd timers and children of this process, by kind. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}

test('after a busy session and close, the hub holds no timer, link or session, and the process no socket or watcher', async () => {
  const before = activeResources();
  const h = await startHarness();
  const project = await h.folder('busy');
  const editor = await h.editor({ workspaceFolders: [project] });
  await h.editors(1);
  const pi = await h.pi(project);
  const claude = await h.claude(project);
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).sessions.filter((s) => s.editorId !== null).length === 2, {
    message: 'both sessions bound',
  });
  const file = join(project, 'a.txt');
  await writeFile(file, 'old\n');
  const writing = pi.write(file, 'new\n');
  const diff = await editor.waitForDiff();
  await pi.turn();
  void claude.openDiff(join(project, 'b.txt'), 'pending at close\n').catch(() => {});
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.length === 2, { message: 'two diffs pending' });
  editor.decide(diff.tabName, 'saved', 'new\n');
  await writing;
  assert.ok(h.hub.openResources() > 0, 'a running hub holds links and timers');

  await h.close();
  assert.equal(h.hub.openResources(), 0, 'the hub gave back everything it held');
  await waitFor(() => JSON.stringify(activeResources()) === JSON.stringify(before), {
    message: `the process's resources back to ${JSON.stringify(before)} (now ${JSON.stringify(activeResources())})`,
  });
});
