// The hub's side of hosted sessions, with a scripted stand-in for pi (fast): the door covers the
// session's folder, pi-ide from that pi is linked to it and its edits reach the inbox, status
// changes reach subscribers, and closing Patchbay stops the pi.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { HubError, HubEvent } from '../../src/api/types.ts';
import { pidAlive } from '../../src/discovery/liveness.ts';
import { createHub } from '../../src/hub.ts';
import { PatchbayStore } from '../../src/settings/store.ts';
import { FakePiClient } from '../peers/fake-pi.ts';
import { TSX_LOADER } from '../peers/spawn.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import { isolatedOptions } from '../peers/hub-options.ts';

const FAKE = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));

/** A hub whose every dir is under `root`, starting the scripted pi. */
function hubOptions(root: string) {
  return isolatedOptions(root, {
    pollMs: 50,
    piCommand: [process.execPath, '--import', TSX_LOADER, FAKE],
    piEnv: process.env,
    piStopGraceMs: 500,
  });
}

test('a hosted pi’s pi-ide finds the door for its folder, is linked to the session, and its edits wait in the inbox', async (t) => {
  const root = await tempDir('hub-pi');
  t.after(() => root.cleanup());
  const work = join(root.path, 'work');
  await mkdir(work);
  let hostedPid: number | null = null;
  const options = hubOptions(root.path);
  // Stands in for the /proc lookup: the connection comes from the hosted pi's process.
  const hub = await createHub(options, { lookupPeer: async () => ({ pid: hostedPid!, cwd: work, command: 'pi', startedAt: null }) });
  let closed = false;
  t.after(() => (closed ? undefined : hub.close()));
  const snapshots: HubEvent[] = [];
  hub.subscribe((e) => e.type === 'snapshot' && snapshots.push(e));

  const view = await hub.call('pi.start', { cwd: work });
  hostedPid = view.pid;
  assert.equal(view.sessionId, null);
  await waitFor(() => snapshots.some((e) => e.type === 'snapshot' && e.snapshot.hosted[0]?.status === 'idle'), {
    message: 'a snapshot with the session idle',
  });

  // What pi-ide inside that pi does: look in $PI_IDE_LOCK_DIR for a lockfile covering its cwd.
  const piIde = await FakePiClient.connect({ cwd: work, lockDir: options.piLockDir });
  t.after(() => piIde.close());
  const linked = await waitFor(async () => (await hub.call('snapshot', undefined)).hosted[0]?.sessionId, { message: 'the link' });
  const session = (await hub.call('snapshot', undefined)).sessions.find((s) => s.id === linked);
  assert.equal(session?.pid, hostedPid);

  const outcome = piIde.write(join(work, 'a.txt'), 'proposed\n');
  const diff = await waitFor(async () => (await hub.call('snapshot', undefined)).diffs[0], { message: 'the diff in the inbox' });
  assert.equal(diff.sessionId, linked);
  await hub.call('diffs.accept', { id: diff.id });
  assert.equal((await outcome).outcome, 'saved');

  // One id per session: the pi commands take its door id, the session commands its hosted id.
  assert.equal((await hub.call('pi.get', { id: linked })).id, view.id);
  const traffic = await hub.call('traffic', { sessionId: view.id });
  assert.ok(traffic.some((e) => e.tool === 'openDiff'), 'the hosted id names the door session for traffic');
  assert.equal((await hub.call('bind', { sessionId: view.id, editorId: null })).id, linked);

  assert.ok(hub.openResources() > 0, 'the running pi is held');
  closed = true;
  await hub.close();
  assert.equal(pidAlive(hostedPid!), false, 'closing Patchbay stops its hosted pi');
  assert.equal(hub.openResources(), 0, 'no timer or child of the hosted session is left');
});

test('pi.start refuses arguments that load code (-e, and --approve, which runs the folder\'s own .pi extensions) unless the person allowed them in config.json, which the API cannot change', async (t) => {
  const root = await tempDir('hub-pi-ext');
  t.after(() => root.cleanup());
  const work = join(root.path, 'work');
  await mkdir(work);
  const options = hubOptions(root.path);
  const hub = await createHub(options);
  let closed = false;
  t.after(() => (closed ? undefined : hub.close()));

  for (const args of [['-e', '/tmp/evil-extension.ts'], ['--extension=/tmp/evil.ts'], ['--no-session', '--hook', '/tmp/h.ts'], ['--approve'], ['-a']]) {
    await assert.rejects(hub.call('pi.start', { cwd: work, args }), (err: HubError) => {
      assert.equal(err.code, 'invalid');
      assert.match(err.message, /^pi\.start: "args" would load code into pi \(.+\): .*allowPiExtensions/);
      return true;
    });
  }
  assert.deepEqual((await hub.call('snapshot', undefined)).hosted, [], 'no pi was started');

  await assert.rejects(hub.call('settings.set', { patch: { allowPiExtensions: true } }), /allowPiExtensions is not changed over Patchbay's API/);
  // The person allows them where only they can write: config.json (what `patchbay settings set` writes).
  PatchbayStore.open(options.home).updateSettings({ allowPiExtensions: true }, { local: true });
  const view = await hub.call('pi.start', { cwd: work, args: ['-e', join(work, 'mine.ts')] });
  assert.equal(view.cwd, work);
  await hub.call('pi.stop', { id: view.id });
  closed = true;
  await hub.close();
});

test("review after with a hosted pi: its edits are grouped by its turn (named by the prompt), and an undo reaches it as a steering message", async (t) => {
  const root = await tempDir('hub-pi-after');
  t.after(() => root.cleanup());
  const work = join(root.path, 'work');
  await mkdir(work);
  let hostedPid: number | null = null;
  const options = hubOptions(root.path);
  const hub = await createHub(options, { lookupPeer: async () => ({ pid: hostedPid!, cwd: work, command: 'pi', startedAt: null }) });
  t.after(() => hub.close());
  await hub.call('reviewMode.set', { project: work, value: 'after' });
  const view = await hub.call('pi.start', { cwd: work });
  hostedPid = view.pid;
  const piIde = await FakePiClient.connect({ cwd: work, lockDir: options.piLockDir });
  t.after(() => piIde.close());
  await waitFor(async () => (await hub.call('snapshot', undefined)).hosted[0]?.sessionId, { message: 'the link' });
  await hub.call('pi.prompt', { id: view.id, text: 'tidy up the notes' });
  await waitFor(async () => (await hub.call('pi.get', { id: view.id })).transcript.some((i) => i.kind === 'user'), { message: 'the prompt in the transcript' });

  const outcome = await piIde.write(join(work, 'notes.md'), 'tidy\n');
  assert.equal(outcome.outcome, 'saved');
  const [edit] = await waitFor(async () => {
    const applied = (await hub.call('snapshot', undefined)).diffs.filter((d) => d.status === 'applied');
    return applied.length === 1 && applied;
  });
  assert.equal(edit!.turn?.key, `${view.id}#1`);
  assert.equal(edit!.turn?.label, '“tidy up the notes”');

  const undone = await hub.call('diffs.undo', { id: edit!.id });
  assert.equal(undone.afterwards?.heard, 'steered');
  const steering = await waitFor(async () => (await hub.call('pi.get', { id: view.id })).queue.steering[0], { message: 'the steering message at pi' });
  assert.match(steering, /^Patchbay: the person undid your edit of .*notes\.md/);
});
