// Trusting a lock dir others may write widens whose lockfiles Patchbay adopts: like the pi
// command, it is set by the person in a terminal (the CLI writes config.json as them), never
// over the API a browser sign-in reaches, and the running hub looks at its lock dirs again.
import assert from 'node:assert/strict';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { HubError } from '../../src/api/types.ts';
import { runCli } from '../cli/run-cli.ts';
import { controlledHub } from '../peers/controlled-hub.ts';
import { waitFor } from '../peers/wait.ts';

test('a lock dir others may write is trusted only from a terminal: the API is refused, the CLI’s choice is used at once', { skip: process.getuid === undefined }, async (t) => {
  const { dir, options, hub } = await controlledHub(t, 'trusted-dirs', {}, async ({ piLockDir }) => {
    await mkdir(piLockDir, { recursive: true });
    await chmod(piLockDir, 0o777);
  });
  const warnedAbout = async () => (await hub.call('snapshot', undefined)).warnings.filter((w) => w.startsWith(`lock dir ${options.piLockDir}:`));
  const [warning] = await waitFor(async () => ((await warnedAbout()).length === 1 ? warnedAbout() : null), { message: 'the shared lock dir reported' });
  assert.match(warning!, /it is writable by its group and others \(mode 0777\); .*patchbay settings set trustedLockDirs/);

  await assert.rejects(hub.call('settings.set', { patch: { trustedLockDirs: [options.piLockDir] } }), (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.match(err.message, /^settings: trustedLockDirs is not changed over Patchbay's API: it decides whose lockfiles Patchbay trusts/);
    return true;
  });
  assert.deepEqual((await hub.call('settings.get', undefined)).trustedLockDirs, [], 'nothing of the refused patch was stored');
  assert.equal((await warnedAbout()).length, 1);

  const { code, stdout, stderr } = await runCli(['settings', 'set', 'trustedLockDirs', JSON.stringify([options.piLockDir])], { home: options.home, cwd: dir.path });
  assert.equal(stderr, '');
  assert.equal(code, 0);
  assert.equal(stdout, `trustedLockDirs ${JSON.stringify([options.piLockDir])} (in ${join(options.home, 'config.json')}; the running Patchbay looked at its lock dirs again)\n`);
  await waitFor(async () => (await warnedAbout()).length === 0, { message: 'the trusted dir no longer reported' });
});
