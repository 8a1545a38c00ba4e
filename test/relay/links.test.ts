// Patchbay's one link to an editor (editor-connection) against the fake editors: opened once
// for everyone, kept open, taken back only when needed after another client took it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { describe, test, type TestContext } from 'node:test';
import { WebSocketServer } from 'ws';
import { EditorConnection, type ConnectionDeps, type LinkLoss } from '../../src/relay/editor-connection.ts';
import type { LiveEditor } from '../../src/relay/editor-link.ts';
import { FakeEditor, type EditorClient, type FakeEditorOptions } from '../peers/fake-editor.ts';
import { openSocket, RpcPeer } from '../peers/rpc-peer.ts';
import { tempDir, waitFor } from '../peers/wait.ts';

/** The name a client gave in its `initialize`. */
function clientName(fake: FakeEditor, client: EditorClient): unknown {
  const init = fake.received.find((r) => r.client === client && r.msg.method === 'initialize');
  return (init?.msg.params as { clientInfo?: { name?: string } } | undefined)?.clientInfo?.name;
}

async function editor(t: TestContext, opts: Partial<FakeEditorOptions> = {}): Promise<{ fake: FakeEditor; live: LiveEditor }> {
  const dir = await tempDir('links');
  const fake = await FakeEditor.start({ lockDir: dir.path, workspaceFolders: ['/w/app'], pingIntervalMs: 0, ...opts });
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
    dialect: fake.dialect,
    lockfile: fake.lockfile ?? '',
  };
  return { fake, live };
}

function connection(t: TestContext, live: LiveEditor, retry: ConnectionDeps['retry'] = {}) {
  const seen: string[] = [];
  const losses: LinkLoss[] = [];
  const conn = new EditorConnection(live, {
    version: 'test',
    maxFrame: () => 1024 * 1024,
    onRequest: () => {},
    onNotification: (_link, msg) => seen.push(`notification ${msg.method}`),
    onFrame: () => {},
    onOpened: () => seen.push('opened'),
    onLost: (how) => losses.push(how),
    onChange: () => {},
    log: (line) => seen.push(`log ${line}`),
    retry,
  });
  t.after(() => conn.close());
  return { conn, seen, losses };
}

describe("Patchbay's one link to an editor", () => {
  test('opened once however often it is asked for, with the tool list; closes to nothing', async (t) => {
    const { fake, live } = await editor(t);
    const { conn, seen } = connection(t, live);
    const [a, b] = await Promise.all([conn.link(), conn.link()]);
    assert.equal(a, b);
    assert.equal(conn.openLink(), a);
    await waitFor(() => conn.tools !== null, { message: 'tool list' });
    assert.ok(conn.tools!.some((tool) => tool.name === 'openDiff'));
    assert.equal(fake.clients.length, 1);
    assert.equal(clientName(fake, fake.clients[0]!), 'patchbay');
    assert.deepEqual(seen, ['opened']);
    fake.sendSelection({ filePath: '/w/app/a.ts', text: 'x' });
    await waitFor(() => seen.includes('notification selection_changed'), { message: 'selection heard' });
    conn.close();
    conn.close();
    assert.equal(conn.resources, 0);
    assert.equal(conn.alive, false);
    await waitFor(() => fake.openClients.length === 0, { message: 'the editor sees the link go' });
    await assert.rejects(conn.link(), /is gone/);
  });

  test('an editor that hangs up during the handshake fails the open with its reason, and is reported', async (t) => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    server.on('connection', (ws) => ws.close());
    await once(server, 'listening');
    t.after(() => new Promise((resolve) => server.close(resolve)));
    const port = (server.address() as AddressInfo).port;
    const live: LiveEditor = { id: 'ed-1', port, pid: process.pid, ideName: 'Hangup', workspaceFolders: ['/w/app'], authToken: 't', dialect: 'pi', lockfile: '' };
    const { conn, seen, losses } = connection(t, live);
    conn.supervise();
    await waitFor(() => losses.length > 0, { message: 'reported after the failed open' });
    assert.deepEqual(losses, ['handshake']);
    assert.match(seen.find((line) => line.startsWith('log ')) ?? '', /editor Hangup \(port \d+\): .*connection closed/);
    assert.equal(conn.view.link, 'down');
  });

  test('a lost link is reported and opened again after a wait', async (t) => {
    const { fake, live } = await editor(t);
    const { conn, losses } = connection(t, live, { downFirstMs: 50 });
    await conn.link();
    const first = fake.openClients[0]!;
    first.rpc.terminate();
    await waitFor(() => losses.includes('lost'), { message: 'reported after the loss' });
    await waitFor(() => conn.alive && fake.openClients.some((c) => c !== first), { message: 'reopened' });
  });

  test('VS Code: a link another client took stays with it until an agent needs the editor', async (t) => {
    const { fake, live } = await editor(t, { vscode: true });
    const { conn, seen, losses } = connection(t, live, { takenFirstMs: 60_000 });
    await conn.link();
    const ws = await openSocket(`ws://127.0.0.1:${fake.port}`, { 'x-claude-code-ide-authorization': fake.authToken }, ['mcp']);
    const other = new RpcPeer(ws, {});
    t.after(() => other.close());
    await waitFor(() => conn.view.link === 'taken', { message: 'taken' });
    assert.match(conn.view.linkProblem ?? '', /another client took its connection/);
    assert.deepEqual(losses, [], 'the editor is fine: discovery has nothing to look at');
    assert.equal(seen.filter((line) => /another client/.test(line)).length, 1);
    assert.ok(other.isOpen);
    // An agent needs it: taken back at once.
    await conn.link();
    assert.equal(conn.view.link, 'open');
    assert.equal((await other.closed).code, 1005);
  });
});
