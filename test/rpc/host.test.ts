// PiHost (the hub's hosted sessions) over the scripted stand-in for pi: how starts fail, how
// dialogs come and go, what an exit looks like. The real pi is in hosted-pi.test.ts.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { HubError } from '../../src/api/types.ts';
import { pidAlive } from '../../src/discovery/liveness.ts';
import { PiHost, type PiHostOptions } from '../../src/rpc/host.ts';
import { TSX_LOADER } from '../peers/spawn.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

const FAKE = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));

async function host(t: TestContext, overrides: Partial<PiHostOptions> = {}) {
  const dir = await tempDir('pi-host');
  const events: { id: string; event: Record<string, unknown> }[] = [];
  const logs: string[] = [];
  let changes = 0;
  let folderChanges = 0;
  const pi = new PiHost({
    command: () => [process.execPath, '--import', TSX_LOADER, FAKE],
    env: process.env,
    startTimeoutMs: 10_000,
    commandTimeoutMs: 5000,
    stopGraceMs: 500,
    ideConnectMs: null,
    reviewWaitMs: 5000,
    onEvent: (id, event) => events.push({ id, event }),
    onChange: () => void changes++,
    onFoldersChanged: async () => void folderChanges++,
    door: () => ({ pid: 4242, port: 40123 }),
    sessionIdForPid: () => null,
    log: (m) => logs.push(m),
    ...overrides,
  });
  t.after(async () => {
    await pi.close();
    await dir.cleanup();
  });
  return { pi, dir: dir.path, events, logs, changes: () => changes, folderChanges: () => folderChanges };
}

const emit = (records: unknown[]): string => `emit ${JSON.stringify(records)}`;

test('pi.start refuses a relative path, a missing folder and a file, before starting anything', async (t) => {
  const { pi, dir } = await host(t);
  await writeFile(join(dir, 'file.txt'), 'x');
  await assert.rejects(pi.start({ cwd: 'relative/dir' }), /"cwd" must be an absolute path/);
  await assert.rejects(pi.start({ cwd: join(dir, 'missing') }), new RegExp(`cannot use ${dir}/missing: no such folder`));
  await assert.rejects(pi.start({ cwd: join(dir, 'file.txt') }), /is not a folder/);
  assert.deepEqual(pi.views(), []);
});

test('a missing pi binary fails the start with "pi not found", and the session is not kept', async (t) => {
  const { pi, dir } = await host(t, { command: () => ['/nonexistent/bin/pi'] });
  await assert.rejects(pi.start({ cwd: dir }), (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.equal(err.code, 'unavailable');
    assert.match(err.message, /pi not found: "\/nonexistent\/bin\/pi" is not an executable file\. Set pi's path in a terminal: patchbay settings set piCommand/);
    return true;
  });
  assert.deepEqual(pi.views(), []);
  assert.deepEqual(pi.folders(), []);
});

test('a started session is listed with its folder; dialogs wait, expire on time, and are answered once', async (t) => {
  const { pi, dir, events, folderChanges } = await host(t);
  const view = await pi.start({ cwd: dir, model: 'fake/one', args: ['--flag'] });
  assert.equal(view.status, 'idle');
  assert.deepEqual(pi.folders(), [dir]);
  assert.ok(folderChanges() >= 1, 'the door hears of the folder before pi starts');
  const { id } = view;

  await pi.prompt(id, emit([
    { type: 'extension_ui_request', id: 'slow', method: 'input', title: 'Name?', placeholder: 'a name' },
    { type: 'extension_ui_request', id: 'quick', method: 'confirm', title: 'Sure?', timeout: 1000 }, // outlasts the prompt's answer on a loaded machine
  ]));
  assert.deepEqual(pi.detail(id).dialogs.map((d) => d.requestId), ['slow', 'quick']);
  assert.equal(pi.views()[0]?.pendingDialogs, 2);
  await waitFor(() => pi.detail(id).dialogs.length === 1, { message: 'the timed dialog to expire' });
  assert.equal(pi.detail(id).dialogs[0]?.placeholder, 'a name');

  assert.throws(() => pi.answer(id, 'slow', { confirmed: true }), /input dialog takes \{value: string\}/);
  pi.answer(id, 'slow', { value: 'Ada' });
  assert.deepEqual(pi.detail(id).dialogs, []);
  assert.throws(() => pi.answer(id, 'slow', { value: 'Ada' }), (err: unknown) => err instanceof HubError && err.code === 'not-found');
  assert.ok(events.some((e) => e.event.type === 'extension_ui_request' && e.event.id === 'quick'), 'raw UI requests are streamed too');
});

test("pi-ide's /ide dialog never reaches the person when Patchbay's door is among the choices", async (t) => {
  const { pi, dir, events } = await host(t);
  const { id } = await pi.start({ cwd: dir });
  await pi.prompt(id, emit([
    {
      type: 'extension_ui_request',
      id: 'ide',
      method: 'select',
      title: 'Connect to IDE',
      options: ['Neovim · /p · pid=5000 port=41000', 'Patchbay · /p · pid=4242 port=40123'],
    },
  ]));
  const d = pi.detail(id);
  assert.deepEqual(d.dialogs, []);
  const last = d.transcript.at(-1);
  assert.equal(last?.kind, 'notice');
  assert.equal(last.text, 'Patchbay answered "Connect to IDE" with its door: Patchbay · /p · pid=4242 port=40123');
  const streamed = events.find((e) => e.event.type === 'extension_ui_request' && e.event.id === 'ide');
  assert.equal(streamed?.event.patchbayAnswer, 'Patchbay · /p · pid=4242 port=40123', 'faces are told it is answered');
});

test("a hosted pi with pi-ide's /ide that has not reached the door gets it run once, answered with the door", async (t) => {
  const { pi, dir, logs } = await host(t, { ideConnectMs: 20 });
  const { id } = await pi.start({ cwd: dir, args: ['--with-ide'] });
  const connected = await waitFor(() => pi.detail(id).transcript.find((i) => i.kind === 'notice' && i.text.startsWith('Patchbay answered')), {
    message: () => `the /ide dialog answered (log: ${logs.join(' | ')})`,
  });
  assert.equal(connected.kind === 'notice' && connected.text, 'Patchbay answered "Connect to IDE" with its door: Patchbay · /p · pid=4242 port=40123');
  assert.equal(logs.filter((l) => l.includes('running /ide')).length, 1);
  assert.deepEqual(pi.detail(id).dialogs, []);
});

test("where pi-ide's autoconnect is off, its /ide is run at once: nothing else will bring it to the door", async (t) => {
  const asked: string[] = [];
  const off = await host(t, { ideConnectMs: 60_000, autoconnects: async (cwd) => (asked.push(cwd), false) });
  const began = Date.now();
  const { id } = await off.pi.start({ cwd: off.dir, args: ['--with-ide'] });
  await waitFor(() => off.logs.some((l) => l.includes('running /ide')), { message: '/ide run' });
  assert.ok(Date.now() - began < 30_000, 'not after the minute an autoconnecting pi-ide would get');
  assert.deepEqual(asked, [off.dir], 'its folder’s settings were read');
  await waitFor(() => off.pi.detail(id).transcript.some((i) => i.kind === 'notice' && i.text.startsWith('Patchbay answered')));
  // Where it is on (or cannot be read), pi-ide gets its time to come by itself.
  const on = await host(t, { ideConnectMs: 60_000, autoconnects: async () => { throw new Error('unreadable settings'); } });
  await on.pi.start({ cwd: on.dir, args: ['--with-ide'] });
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(on.logs.filter((l) => l.includes('/ide')), []);
});

test('no /ide is run for a pi already at the door, nor for one without pi-ide', async (t) => {
  const atDoor = await host(t, { ideConnectMs: 20, sessionIdForPid: () => 's1' });
  const { id: first } = await atDoor.pi.start({ cwd: atDoor.dir, args: ['--with-ide'] });
  const plain = await host(t, { ideConnectMs: 20 });
  const { id: second } = await plain.pi.start({ cwd: plain.dir });
  // Both had their moment (20 ms) several times over; a state round trip orders us after it.
  await new Promise((resolve) => setTimeout(resolve, 200));
  await atDoor.pi.getState(first);
  await plain.pi.getState(second);
  assert.deepEqual([...atDoor.logs, ...plain.logs].filter((l) => l.includes('/ide')), []);
  assert.equal(atDoor.pi.detail(first).transcript.some((i) => i.kind === 'notice'), false);
});

test('a prompt to a pi whose pi-ide is not at the door yet waits for it, then goes', async (t) => {
  let linked: string | null = null;
  const { pi, dir, events } = await host(t, { sessionIdForPid: () => linked });
  const view = await pi.start({ cwd: dir, args: ['--with-ide'] });
  assert.equal(view.review, 'connecting');
  const { id } = view;
  let sent = false;
  const prompting = pi.prompt(id, emit([{ type: 'agent_start' }, { type: 'agent_settled' }])).then(() => (sent = true));
  // pi answers in order: had the prompt gone out, its records would come before this answer.
  await pi.getState(id);
  assert.equal(sent, false, 'the prompt is held');
  assert.equal(events.some((e) => e.event.type === 'agent_start'), false, 'pi never saw it');

  linked = 's1';
  pi.doorSessionsChanged();
  await prompting;
  assert.equal(pi.views()[0]?.review, 'reviewed');
  assert.equal(pi.views()[0]?.sessionId, 's1');
  await waitFor(() => events.some((e) => e.event.type === 'agent_start'), { message: 'the prompt reached pi' });
});

test('a prompt held for review is refused when pi-ide never reaches the door, and pi never sees it', async (t) => {
  const { pi, dir, events } = await host(t, { reviewWaitMs: 50 });
  const { id } = await pi.start({ cwd: dir, args: ['--with-ide'] });
  await assert.rejects(pi.prompt(id, emit([{ type: 'agent_start' }])), (err: unknown) => {
    assert.ok(err instanceof HubError);
    assert.equal(err.code, 'unavailable');
    assert.match(err.message, /its pi-ide has not reached Patchbay's door within 0 s, so its edits would be written without review; the prompt was not sent/);
    return true;
  });
  await pi.getState(id);
  assert.equal(events.some((e) => e.event.type === 'agent_start'), false);
  // `/ide` itself is how pi-ide gets there: it is not held.
  await pi.prompt(id, '/ide');
});

test('a pi without pi-ide says its edits are unreviewed, and its prompts go at once', async (t) => {
  const { pi, dir, events } = await host(t, { reviewWaitMs: 60_000 });
  const view = await pi.start({ cwd: dir });
  assert.equal(view.review, 'unreviewed');
  await pi.prompt(view.id, emit([{ type: 'agent_start' }]));
  assert.ok(events.some((e) => e.event.type === 'agent_start'));
});

test('pi-ide leaving the door holds prompts again and has its /ide run again', async (t) => {
  let linked: string | null = 's1';
  const { pi, dir, logs } = await host(t, { ideConnectMs: 20, sessionIdForPid: () => linked });
  const { id } = await pi.start({ cwd: dir, args: ['--with-ide'] });
  assert.equal(pi.views()[0]?.review, 'reviewed');
  linked = null;
  pi.doorSessionsChanged();
  assert.equal(pi.views()[0]?.review, 'connecting');
  await waitFor(() => pi.detail(id).transcript.some((i) => i.kind === 'notice' && i.text.startsWith('Patchbay answered')), {
    message: () => `/ide run again (log: ${logs.join(' | ')})`,
  });
});

test('a prompt held for review fails at once when pi exits', async (t) => {
  const { pi, dir } = await host(t);
  const { id, pid } = await pi.start({ cwd: dir, args: ['--with-ide'] });
  const prompting = pi.prompt(id, 'hello');
  process.kill(pid!, 'SIGKILL');
  await assert.rejects(prompting, (err: unknown) => err instanceof HubError && err.code === 'unavailable' && /killed by SIGKILL/.test(err.message));
});

test('pi exiting on its own: status exited with the reason, a hosted_exit event, commands refused', async (t) => {
  const { pi, dir, events } = await host(t);
  const { id, pid } = await pi.start({ cwd: dir });
  await assert.rejects(pi.prompt(id, '   '), /"text" must not be empty/);
  process.kill(pid!, 'SIGKILL');
  await waitFor(() => pi.views()[0]?.status === 'exited', { message: 'the exit' });
  assert.equal(pi.views()[0]?.exit, 'pi was killed by SIGKILL');
  assert.deepEqual(pi.folders(), [], 'an exited session no longer needs the door');
  const exit = events.find((e) => e.event.type === 'hosted_exit');
  assert.deepEqual(exit, { id, event: { type: 'hosted_exit', code: null, signal: 'SIGKILL', message: 'pi was killed by SIGKILL' } });
  await assert.rejects(pi.getState(id), (err: unknown) => err instanceof HubError && err.code === 'unavailable' && /has exited: pi was killed by SIGKILL/.test(err.message));
  await pi.stop(id);
  assert.deepEqual(pi.views(), []);
  await assert.rejects(pi.getState(id), (err: unknown) => err instanceof HubError && err.code === 'not-found');
});

test('a stop that keeps the session leaves it exited with its transcript; a second stop forgets it', async (t) => {
  const { pi, dir } = await host(t);
  const { id, pid } = await pi.start({ cwd: dir });
  await pi.stop(id, true);
  assert.equal(pidAlive(pid!), false, 'pi is gone');
  const kept = pi.detail(id);
  assert.equal(kept.status, 'exited');
  assert.match(kept.exit ?? '', /^pi stopped/);
  assert.deepEqual(kept.transcript.at(-1), { kind: 'notice', level: 'info', text: kept.exit, at: kept.transcript.at(-1)?.at });
  assert.deepEqual(pi.folders(), [], 'a stopped session no longer needs the door');
  await assert.rejects(pi.prompt(id, 'hello'), (err: unknown) => err instanceof HubError && err.code === 'unavailable');
  await pi.stop(id);
  assert.deepEqual(pi.views(), []);
});

test('close stops every session', async (t) => {
  const { pi, dir } = await host(t);
  const a = await pi.start({ cwd: dir });
  const b = await pi.start({ cwd: dir });
  assert.notEqual(a.id, b.id);
  await pi.close();
  assert.equal(pidAlive(a.pid!), false);
  assert.equal(pidAlive(b.pid!), false);
  assert.deepEqual(pi.views(), []);
  await assert.rejects(pi.start({ cwd: dir }), /shutting down/);
});

test('pi 1.6 says what became of each prompt (started, queued, handled); a handled one leaves the session idle; pi 0.87 says nothing', async (t) => {
  for (const version of ['1.6.0', '0.87.1']) {
    const { pi, dir, events } = await host(t, { command: () => [process.execPath, '--import', TSX_LOADER, FAKE, '--pi-version', version] });
    const { id } = await pi.start({ cwd: dir });
    const settled = events.length;
    const started = await pi.prompt(id, 'hold working on it');
    await waitFor(() => pi.views()[0]?.status === 'streaming', { message: 'the run streaming' });
    const queued = await pi.prompt(id, 'and this too', 'followUp');
    await pi.abort(id);
    await waitFor(() => events.slice(settled).some((e) => e.event.type === 'agent_settled'), { message: 'the run settled' });
    const handled = await pi.prompt(id, emit([{ type: 'extension_ui_request', id: 'n', method: 'notify', message: 'done by an extension' }]));
    if (version === '0.87.1') {
      assert.deepEqual([started, queued, handled], [{ ran: 'prompt' }, { ran: 'prompt' }, { ran: 'prompt' }]);
    } else {
      assert.deepEqual([started, queued, handled], [
        { ran: 'prompt', disposition: 'started' },
        { ran: 'prompt', disposition: 'queued' },
        { ran: 'prompt', disposition: 'handled' },
      ]);
    }
    assert.equal(pi.views()[0]?.status, 'idle', `pi ${version}: no run is waited for after a handled prompt`);
    await pi.stop(id);
  }
});
