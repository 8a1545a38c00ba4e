// PiRpcClient against a scripted stand-in for pi (test/peers/fake-pi-rpc.ts): correlation,
// events, UI requests, failures and shutdown, fast. The real pi is in real-pi.test.ts.
import assert from 'node:assert/strict';
import { test, type TestContext } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PiCommandError, PiExitedError, PiRpcClient, type PiExit } from '../../src/rpc/client.ts';
import type { RpcEvent, UiRequest } from '../../src/rpc/protocol.ts';
import { TSX_LOADER } from '../peers/spawn.ts';
import { waitFor } from '../peers/wait.ts';

const FAKE = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));

function start(t: TestContext, opts: { args?: string[]; command?: string[]; stopGraceMs?: number } = {}) {
  const events: RpcEvent[] = [];
  const ui: UiRequest[] = [];
  const exits: PiExit[] = [];
  const logs: string[] = [];
  const client = new PiRpcClient({
    command: opts.command ?? [process.execPath, '--import', TSX_LOADER, FAKE],
    args: opts.args ?? [],
    cwd: process.cwd(),
    env: process.env,
    commandTimeoutMs: 5000,
    stopGraceMs: opts.stopGraceMs ?? 1000,
    onEvent: (e) => events.push(e),
    onUiRequest: (r) => ui.push(r),
    onExit: (e) => exits.push(e),
    log: (m) => logs.push(m),
  });
  t.after(() => client.close());
  return { client, events, ui, exits, logs };
}

test('responses find their commands by id, even out of order', async (t) => {
  const { client } = start(t);
  const slow = client.request({ type: 'wait', ms: 150 });
  const fast = client.request({ type: 'wait', ms: 1 });
  const order: string[] = [];
  await Promise.all([slow.then(() => order.push('slow')), fast.then(() => order.push('fast'))]);
  assert.deepEqual(order, ['fast', 'slow']);
  assert.deepEqual(await slow, { waited: 150 });
  // Ids carry a prefix of this client's own: a core restarted under a running pi never takes an old command's late answer for its own.
  const echoed = (await client.request({ type: 'echo', extra: 'a\u2028b' })) as { echo: { id: string } };
  assert.match(echoed.echo.id, /^pb-[0-9a-f]{6}-3$/);
  assert.deepEqual(echoed, { echo: { type: 'echo', extra: 'a\u2028b', id: echoed.echo.id } });
});

test('events and extension UI requests reach the owner; garbage lines are logged, not fatal', async (t) => {
  const { client, events, ui, logs } = start(t);
  await client.request({ type: 'garbage' });
  await client.request({
    type: 'emit',
    records: [
      { type: 'agent_start' },
      { type: 'extension_ui_request', id: 'u1', method: 'select', title: 'Pick', options: ['a', 'b'] },
      { type: 'response', command: 'parse', success: false, error: 'Failed to parse command' },
    ],
  });
  assert.deepEqual(events, [{ type: 'agent_start' }]);
  assert.deepEqual(ui.map((r) => [r.id, r.method]), [['u1', 'select']]);
  assert.ok(logs.some((l) => /stdout line is not JSON: .*this is not json/.test(l)), logs.join('\n'));
  assert.ok(logs.some((l) => /response to parse: Failed to parse command/.test(l)), logs.join('\n'));
});

test('a failed command rejects with pi’s reason; a silent one times out', async (t) => {
  const { client } = start(t);
  await assert.rejects(client.request({ type: 'fail' }), (err: unknown) => err instanceof PiCommandError && err.message === 'pi fail: it failed on purpose');
  await assert.rejects(client.request({ type: 'silent' }, { timeoutMs: 50 }), /^Error: pi silent: no answer within 50 ms$/);
});

test('pi exiting rejects waiting commands with its exit code and last stderr lines', async (t) => {
  const { client, exits } = start(t);
  const waiting = client.request({ type: 'silent' }, { timeoutMs: null });
  void client.request({ type: 'crash', code: 3 }).catch(() => {});
  await assert.rejects(waiting, (err: unknown) => {
    assert.ok(err instanceof PiExitedError);
    assert.equal(err.message, 'pi silent: pi exited with code 3; stderr:\nfatal: something broke\nat the fake pi');
    return true;
  });
  await waitFor(() => exits.length === 1);
  assert.equal(exits[0]!.code, 3);
  await assert.rejects(client.request({ type: 'get_state' }), /pi get_state: pi exited with code 3/);
  assert.throws(() => client.answer('u1', { cancelled: true }), PiExitedError);
});

test('a missing pi binary is reported as "pi not found"', async (t) => {
  const { client, exits } = start(t, { command: ['/nonexistent/bin/pi'] });
  await assert.rejects(client.request({ type: 'get_state' }), /pi not found: "\/nonexistent\/bin\/pi" is not an executable/);
  assert.equal(client.pid, null);
  await waitFor(() => exits.length === 1);
});

test('close ends a well-behaved pi with EOF on stdin, and is safe to call twice', async (t) => {
  const { client } = start(t);
  await client.request({ type: 'get_state' });
  const [first, second] = await Promise.all([client.close(), client.close()]);
  assert.equal(first, second);
  assert.equal(first.code, 0);
  assert.equal(first.message, 'pi stopped (exit code 0)');
});

test('close escalates to SIGKILL when pi ignores abort, EOF and SIGTERM', async (t) => {
  const { client } = start(t, { args: ['--stubborn'], stopGraceMs: 150 });
  await client.request({ type: 'get_state' });
  const exit = await client.close();
  assert.equal(exit.signal, 'SIGKILL');
  assert.match(exit.message, /^pi was stopped by SIGKILL; stderr:\nfake pi: ignoring SIGTERM/);
  // One step each, in order: the abort went unanswered, SIGTERM twice (pi 1.6 takes the second as "now"), then SIGKILL.
  assert.equal(exit.message.match(/ignoring SIGTERM/g)?.length, 2, 'two SIGTERMs, not a third round');
});

test('a pi whose orderly shutdown outlasts the grace ends by its own exit, not SIGKILL: 1.6 at the second SIGTERM, 0.87 at the first', async (t) => {
  for (const version of ['1.6.0', '0.87.1']) {
    const { client } = start(t, { args: ['--pi-version', version, '--shutdown-ms', '30000'], stopGraceMs: 1000 });
    await client.request({ type: 'get_state' });
    const began = Date.now();
    const exit = await client.close();
    assert.equal(exit.signal, null, `pi ${version}: ${exit.message}`);
    assert.equal(exit.code, 143, `pi ${version} exits as a SIGTERM'd pi does`);
    // Three graces of 1 s at most; its cleanup alone would take 30 s (a loaded machine may take several seconds more).
    assert.ok(Date.now() - began < 15_000, `pi ${version} did not wait for its whole cleanup nor for SIGKILL (${Date.now() - began} ms)`);
  }
});

test('stopping pi also stops the commands its tools left running', async (t) => {
  const { client } = start(t);
  const { pid } = (await client.request({ type: 'tool' })) as { pid: number };
  assert.ok(alive(pid), 'the tool command runs');
  await client.close();
  await waitFor(() => !alive(pid), { message: `tool process ${pid} to end with pi` });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
