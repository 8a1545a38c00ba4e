// The hosted pi command: Patchbay's setting, when set, wins over $PATCHBAY_PI_COMMAND (the
// hub's options); emptied, the environment's command applies again.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HubError } from '../../src/api/types.ts';
import { createHub, type Hub } from '../../src/hub.ts';
import { TSX_LOADER } from '../peers/spawn.ts';
import { tempDir } from '../peers/wait.ts';
import { isolatedOptions } from '../peers/hub-options.ts';

const FAKE_PI_RPC = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));

test('a pi command set in the settings is the one hosted sessions run, over the environment’s', async (t) => {
  const dir = await tempDir('pi-command');
  let hub: Hub | undefined;
  // One hook, in order: the hub (its lockfile takeover writes under dir) stops before dir goes.
  t.after(async () => {
    await hub?.close('test over');
    await dir.cleanup();
  });
  const project = join(dir.path, 'project');
  await mkdir(project);
  const options = isolatedOptions(dir.path, {
    piCommand: [process.execPath, '--import', TSX_LOADER, FAKE_PI_RPC],
    piStopGraceMs: 500,
    piIdeConnectMs: null,
  });
  hub = await createHub(options);

  const missing = join(dir.path, 'no such pi');
  await hub.call('settings.set', { patch: { piCommand: missing } });
  await assert.rejects(hub.call('pi.start', { cwd: project }), (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.ok(err.message.includes(`pi not found: "${missing}" is not an executable file`), err.message);
    assert.ok(err.message.includes("Patchbay's Settings → Hosted pi sessions → pi command"), err.message);
    return true;
  });

  await hub.call('settings.set', { patch: { piCommand: JSON.stringify(options.piCommand) } });
  const started = await hub.call('pi.start', { cwd: project });
  assert.equal(started.cwd, project);
  await hub.call('pi.stop', { id: started.id });

  await hub.call('settings.set', { patch: { piCommand: '' } });
  const fromEnv = await hub.call('pi.start', { cwd: project });
  assert.equal(typeof fromEnv.pid, 'number', 'the environment’s command runs when the setting is empty');
  await hub.call('pi.stop', { id: fromEnv.id });
});
