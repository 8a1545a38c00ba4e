// A pi Patchbay hosts lives under the daemon's keeper, not under its core: after kill -9 of the
// core (or `patchbay restart`) the same pi process goes on under the same hosted id, its
// conversation is read back from it, and a dialog it was waiting on is shown again and can be
// answered. Run with the scripted stand-in for pi (fast); the real pi's restart is checked by hand.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { TSX_LOADER } from '../peers/spawn.ts';
import type { TempDir } from '../peers/wait.ts';
import { cli, e2eFolder, startDaemon, status, statusUntil, type Daemon, type Env } from './daemon-process.ts';

const FAKE_PI = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));

describe('a hosted pi across a restart of the core', () => {
  let tmp: TempDir;
  let env: Env;
  let project: string;
  let daemon: Daemon | undefined;

  before(async () => {
    ({ tmp, env, project } = await e2eFolder('e2e-hosted-restart'));
    env.env.PATCHBAY_PI_COMMAND = JSON.stringify([process.execPath, '--import', TSX_LOADER, FAKE_PI]);
  });

  after(async () => {
    await daemon?.stop('SIGKILL');
    await tmp.cleanup();
  });

  test('the same pi goes on under the same id, and its waiting dialog is shown again and answered', async () => {
    daemon = await startDaemon(env);
    const started = await cli(env, ['pi', 'start', project]);
    assert.equal(started.code, 0, started.stderr);
    const view = await statusUntil(env, (s) => s.hosted.find((h) => h.status === 'idle'), 'the hosted pi idle');
    const dialog = { type: 'extension_ui_request', id: 'q1', method: 'confirm', title: 'Run the migration?', message: 'It rewrites the schema.' };
    const prompted = await cli(env, ['pi', 'prompt', view.id, `emit ${JSON.stringify([dialog])}`]);
    assert.equal(prompted.code, 0, prompted.stderr);
    await statusUntil(env, (s) => s.hosted[0]?.pendingDialogs === 1, 'the dialog waiting');

    const before = await status(env);
    process.kill(before.corePid, 'SIGKILL');
    const after = await statusUntil(env, (s) => s.corePid !== before.corePid && s.hosted[0]?.status === 'idle' && s, 'the pi taken over by the next core');
    assert.equal(after.hosted[0]!.id, view.id, 'the same hosted id');
    assert.equal(after.hosted[0]!.pid, view.pid, 'the same pi process, never restarted');
    assert.equal(after.hosted[0]!.pendingDialogs, 1, 'its dialog shown again');

    const answered = await cli(env, ['pi', 'answer', view.id, 'q1', '--yes']);
    assert.equal(answered.code, 0, answered.stderr);
    await statusUntil(env, (s) => s.hosted[0]?.pendingDialogs === 0, 'the dialog answered');
    const turn = await cli(env, ['pi', 'prompt', view.id, 'still there?']);
    assert.equal(turn.code, 0, turn.stderr);

    // A graceful restart: the answered dialog does not come back, and the pi still runs.
    const restarted = await cli(env, ['restart']);
    assert.equal(restarted.code, 0, restarted.stderr);
    const again = await statusUntil(env, (s) => s.core.reason === 'restart' && s.hosted[0]?.status === 'idle' && s, 'the pi after the restart');
    assert.equal(again.hosted[0]!.pid, view.pid);
    assert.equal(again.hosted[0]!.pendingDialogs, 0);
  });
});
