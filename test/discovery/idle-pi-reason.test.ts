// A pi running when Patchbay starts (a restart of Patchbay included) cannot have autoconnected:
// pi-ide looks for lockfiles only when its session starts. The person is told to connect it
// with /ide, rather than that its pi-ide is too old.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { platform } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startedBefore } from '../../src/discovery/pi-scan.ts';
import { processInfo } from '../../src/discovery/peer-process.ts';
import { createHub } from '../../src/hub.ts';
import { PatchbayStore } from '../../src/settings/store.ts';
import { isolatedOptions } from '../peers/hub-options.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { spawnLive } from './helpers.ts';

const cases: [string, number | null, number | null, boolean | null][] = [
  ['started a minute before the door', 0, 60_000, true],
  ['started a minute after the door', 60_000, 0, false],
  ['started within a second of the door (start times are known to a second)', 10_500, 10_000, null],
  ['start time unknown', null, 10_000, null],
  ['no door yet', 10_000, null, null],
];
for (const [name, startedAt, advertisedAt, want] of cases) {
  test(`startedBefore: ${name}`, () => assert.equal(startedBefore(startedAt, advertisedAt), want));
}

test('a pi running before Patchbay started is listed as “started before Patchbay: connect with /ide”', { skip: platform() !== 'linux' && 'Linux /proc scan', timeout: 60_000 }, async (t) => {
  const dir = await tempDir('idle-pi');
  // Undone last first (node:test runs after-hooks in the order they were added): the folder only
  // once the hub that writes lockfiles into it has closed.
  const undo: (() => unknown)[] = [dir.cleanup];
  t.after(async () => {
    for (const step of undo.reverse()) await step();
  });
  const project = join(dir.path, 'project');
  await mkdir(project);
  const script = join(project, 'pi');
  await writeFile(script, 'setInterval(() => {}, 1000);\n');
  const before = await spawnLive([script], project);
  undo.push(() => before.kill());
  const after = await spawnLive([script, '--continue'], project);
  undo.push(() => after.kill());

  const options = isolatedOptions(dir.path, { scanProcesses: true });
  // The project is a review folder, so the door's lockfile names it.
  await mkdir(options.home, { recursive: true, mode: 0o700 });
  PatchbayStore.open(options.home).updateSettings({ reviewFolders: [project] });
  // Start times as if `before` had run for a minute and `after` started a minute from now.
  const startedAt = new Map([[before.pid, Date.now() - 60_000], [after.pid, Date.now() + 60_000]]);
  const hub = await createHub(options, {
    processInfo: async (pid) => {
      const info = await processInfo(pid);
      return info && { ...info, startedAt: startedAt.get(pid) ?? info.startedAt };
    },
  });
  undo.push(() => hub.close('test over'));

  const idle = await waitFor(
    async () => {
      const agents = (await hub.call('snapshot', undefined)).idleAgents.filter((a) => a.pid === before.pid || a.pid === after.pid);
      return agents.length === 2 ? agents : null;
    },
    { message: 'both pis listed as not connected' },
  );
  assert.equal(idle.find((a) => a.pid === before.pid)!.reason, 'started before Patchbay: connect with /ide');
  assert.equal(idle.find((a) => a.pid === after.pid)!.reason, 'older pi-ide: connect with /ide');
});
