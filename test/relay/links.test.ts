// The relay's link parts against a fake editor: a session's upstream pool, and the monitor.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import type { LiveEditor } from '../../src/relay/editor-link.ts';
import { EditorMonitor, MONITOR_RETIRE_MS, type MonitorDeps } from '../../src/relay/editor-monitor.ts';
import type { RpcLink } from '../../src/relay/rpc-link.ts';
import { UpstreamPool, type UpstreamEvents } from '../../src/relay/upstream-pool.ts';
import { WebSocketServer } from 'ws';
import { FakeEditor, type EditorClient } from '../peers/fake-editor.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

/** The name a client gave in its `initialize`. */
function clientName(fake: FakeEditor, client: EditorClient): unknown {
  const init = fake.received.find((r) => r.client === client && r.msg.method === 'initialize');
  return (init?.msg.params as { clientInfo?: { name?: string } } | undefined)?.clientInfo?.name;
}

async function editor(t: TestContext): Promise<{ fake: FakeEditor; live: LiveEditor }> {
  const dir = await tempDir('links');
  const fake = await FakeEditor.start({ lockDir: dir.path, workspaceFolders: ['/w/app'], pingIntervalMs: 0 });
  t.after(async () => {
    await fake.stop();
    await dir.cleanup();
  });
  const live: LiveEditor = {
    id: 'ed-1',
    port: fake.port,
    pid: process.pid,
    ideName: fake.ideName,
    workspaceFolders: ['/w/app'],
    authToken: fake.authToken,
    dialect: 'pi',
    lockfile: fake.lockfile ?? '',
  };
  return { fake, live };
}

function pool() {
  const events: string[] = [];
  const handlers: UpstreamEvents = {
    onRequest: () => {},
    onNotification: (_editor, _link, msg) => events.push(`notification ${msg.method}`),
    onFrame: () => {},
    onMalformed: (problem) => events.push(`malformed ${problem}`),
    onOpened: (e) => events.push(`opened ${e.id}`),
    onClosed: (e, how) => events.push(`${how} ${e.id}`),
  };
  return { pool: new UpstreamPool(() => ({ name: 'pi-ide', version: '1' }), () => 1024 * 1024, handlers), events };
}

describe('a session’s upstream pool', () => {
  test('one link per editor instance, opened once however often it is asked for', async (t) => {
    const { fake, live } = await editor(t);
    const { pool: p, events } = pool();
    const [a, b] = await Promise.all([p.linkTo(live), p.linkTo(live)]);
    assert.equal(a, b);
    assert.equal(p.openLink(live), a);
    await fake.waitForClients(1);
    assert.equal(fake.openClients.length, 1);
    assert.equal(clientName(fake, fake.openClients[0]!), 'pi-ide', 'the editor sees the agent, as without Patchbay');
    assert.deepEqual(events, ['opened ed-1']);
    p.close();
    assert.equal(p.size, 0);
    await waitFor(() => fake.openClients.length === 0, { message: 'the editor sees the link go' });
  });

  test('a restarted editor (new port) gets a new link; the old instance’s link closes', async (t) => {
    const first = await editor(t);
    const second = await editor(t);
    const { pool: p } = pool();
    const old = await p.linkTo(first.live);
    const fresh = await p.linkTo({ ...second.live, id: 'ed-1' });
    assert.notEqual(old, fresh);
    assert.equal(old.isOpen, false);
    assert.equal(p.size, 1);
    p.close();
  });

  test('pruning closes idle links to other editors, but not one with a request in flight', async (t) => {
    const a = await editor(t);
    const b = await editor(t);
    const { pool: p } = pool();
    const toA = await p.linkTo(a.live);
    const toB = await p.linkTo({ ...b.live, id: 'ed-2' });
    const waiting = toA.request('tools/call', { name: 'slowTool', arguments: {} });
    waiting.response.catch(() => {});
    p.prune('ed-2');
    assert.equal(toA.isOpen, true, 'a request still waits on it');
    assert.equal(toB.isOpen, true, 'the kept editor');
    p.prune('nothing');
    assert.equal(toB.isOpen, false);
    p.close();
  });

  test('a link that cannot open is reported as failed and forgotten', async (t) => {
    const { live } = await editor(t);
    const { pool: p, events } = pool();
    await assert.rejects(p.linkTo({ ...live, authToken: 'wrong' }));
    assert.deepEqual(events, ['failed ed-1']);
    assert.equal(p.size, 0);
  });

  test('closing while a link is opening closes it as soon as it opens', async (t) => {
    const { fake, live } = await editor(t);
    const { pool: p } = pool();
    const opening = p.linkTo(live);
    p.close();
    const link = await opening;
    await waitFor(() => !link.isOpen && fake.openClients.length === 0, { message: 'closed once open' });
    await assert.rejects(p.linkTo(live), /the session has closed/);
  });
});

function monitorDeps(sessionLinks: () => number) {
  const seen: string[] = [];
  const deps: MonitorDeps = {
    version: 'test',
    maxFrame: () => 1024 * 1024,
    sessionLinks,
    waiting: () => 0,
    onRequest: () => {},
    onCancel: () => {},
    onFocus: () => seen.push('focus'),
    onSuspect: () => seen.push('suspect'),
    onChange: () => {},
    log: (line) => seen.push(`log ${line}`),
  };
  return { deps, seen };
}

describe("Patchbay's own link to an editor (the monitor)", () => {
  test('opens while no session has a link: tool list, focus and liveness; closes to nothing', async (t) => {
    const { fake, live } = await editor(t);
    const { deps, seen } = monitorDeps(() => 0);
    const monitor = new EditorMonitor(live, deps);
    monitor.supervise();
    await waitFor(() => monitor.alive && monitor.tools !== null, { message: 'monitor open with tools' });
    assert.ok(monitor.tools!.some((tool) => tool.name === 'openDiff'));
    assert.equal(clientName(fake, fake.openClients[0]!), 'patchbay');
    fake.sendSelection({ filePath: '/w/app/a.ts', text: 'x' });
    await waitFor(() => seen.includes('focus'), { message: 'focus heard' });
    monitor.close();
    monitor.close();
    assert.equal(monitor.resources, 0);
    assert.equal(monitor.alive, false);
    await waitFor(() => fake.openClients.length === 0, { message: 'link closed' });
  });

  test('retires once a session has its own link (not at once), and comes back when none has', async (t) => {
    const { fake, live } = await editor(t);
    let links = 0;
    const { deps } = monitorDeps(() => links);
    const monitor = new EditorMonitor(live, deps);
    t.after(() => monitor.close());
    monitor.supervise();
    await waitFor(() => monitor.alive && monitor.tools !== null);
    links = 1;
    const asked = Date.now();
    monitor.supervise();
    assert.equal(monitor.alive, true, 'kept a moment: the editor may have just sent a request on it');
    await waitFor(() => !monitor.alive, { timeoutMs: MONITOR_RETIRE_MS * 5, message: 'retired' });
    assert.ok(Date.now() - asked >= MONITOR_RETIRE_MS - 10);
    await waitFor(() => fake.openClients.length === 0);
    links = 0;
    monitor.supervise();
    await waitFor(() => monitor.alive, { message: 'back when no session link is left' });
  });

  test('an editor that hangs up during the handshake makes the open fail with its reason, and the editor suspect', async (t) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    server.on('connection', (ws) => ws.close());
    await once(server, 'listening');
    t.after(() => new Promise((resolve) => server.close(resolve)));
    const port = (server.address() as AddressInfo).port;
    const live: LiveEditor = { id: 'ed-1', port, pid: process.pid, ideName: 'Hangup', workspaceFolders: ['/w/app'], authToken: 't', dialect: 'pi', lockfile: '' };
    const { deps, seen } = monitorDeps(() => 0);
    const monitor = new EditorMonitor(live, deps);
    t.after(() => monitor.close());
    monitor.supervise();
    await waitFor(() => seen.includes('suspect'), { message: 'suspect after the failed open' });
    const failure = seen.find((line) => line.startsWith('log '));
    assert.match(failure ?? '', /monitor for Hangup \(port \d+\): editor Hangup \(port \d+\): connection closed/);
    assert.equal(monitor.alive, false);
  });

  test('a lost link makes the editor suspect and is opened again later', async (t) => {
    const { fake, live } = await editor(t);
    const { deps, seen } = monitorDeps(() => 0);
    const monitor = new EditorMonitor(live, deps);
    t.after(() => monitor.close());
    monitor.supervise();
    await waitFor(() => monitor.alive);
    const first = fake.openClients[0]!;
    first.rpc.terminate();
    await waitFor(() => seen.includes('suspect'), { message: 'suspect after the loss' });
    await waitFor(() => monitor.alive && fake.openClients.some((c) => c !== first), { timeoutMs: 5000, message: 'reopened' });
  });
});

export type { RpcLink };
