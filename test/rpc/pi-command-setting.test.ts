// The hosted pi command: Patchbay's setting, when set, wins over $PATCHBAY_PI_COMMAND (the
// hub's options); emptied, the environment's command applies again. It decides what program
// Patchbay runs, so it is set by the person in a terminal (the CLI writes config.json as
// them), never over the API a browser sign-in reaches; the running hub uses it from the next
// pi start and shows where the command it runs comes from.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HubError } from '../../src/api/types.ts';
import { runCli } from '../cli/run-cli.ts';
import { controlledHub } from '../peers/controlled-hub.ts';
import { TSX_LOADER } from '../peers/spawn.ts';

const FAKE_PI_RPC = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));

test('the pi command is set in a terminal, never over the API; the running hub runs it from the next start and says where it comes from', async (t) => {
  const fromEnv = [process.execPath, '--import', TSX_LOADER, FAKE_PI_RPC];
  const { dir, options, hub } = await controlledHub(t, 'pi-command', { piCommand: fromEnv, piStopGraceMs: 500, piIdeConnectMs: null });
  const project = join(dir.path, 'project');
  await mkdir(project);
  const settingsFile = join(options.home, 'config.json');
  const hostedPi = async () => (await hub.call('snapshot', undefined)).hostedPi;
  assert.deepEqual(await hostedPi(), { command: fromEnv, commandSource: 'environment', allowExtensions: false, settingsFile });

  const missing = join(dir.path, 'no such pi');
  await assert.rejects(hub.call('settings.set', { patch: { piCommand: missing } }), (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.match(err.message, /^settings: piCommand is not changed over Patchbay's API/);
    return true;
  });
  assert.equal((await hostedPi()).commandSource, 'environment', 'the refused command is not used');

  const cli = (...argv: string[]) => runCli(argv, { home: options.home, cwd: dir.path });
  const set = await cli('settings', 'set', 'piCommand', JSON.stringify(missing));
  assert.equal(set.stderr, '');
  assert.equal(set.code, 0);
  assert.equal(set.stdout, `piCommand ${JSON.stringify(missing)} (in ${settingsFile}; the running Patchbay uses it from the next pi start)\n`);
  assert.deepEqual(await hostedPi(), { command: [missing], commandSource: 'settings', allowExtensions: false, settingsFile }, 'shown at once');
  await assert.rejects(hub.call('pi.start', { cwd: project }), (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.ok(err.message.includes(`pi not found: "${missing}" is not an executable file`), err.message);
    assert.ok(err.message.includes('patchbay settings set piCommand'), err.message);
    return true;
  });

  assert.equal((await cli('settings', 'set', 'piCommand', JSON.stringify(JSON.stringify(fromEnv)))).code, 0);
  const started = await hub.call('pi.start', { cwd: project });
  assert.equal(started.cwd, project);
  await hub.call('pi.stop', { id: started.id });

  assert.equal((await cli('settings', 'set', 'piCommand', '""')).code, 0);
  assert.equal((await hostedPi()).commandSource, 'environment');
  const again = await hub.call('pi.start', { cwd: project });
  assert.equal(typeof again.pid, 'number', 'the environment’s command runs when the setting is empty');
  await hub.call('pi.stop', { id: again.id });
});
