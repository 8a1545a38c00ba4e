import assert from 'node:assert/strict';
import { get, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { authenticate, Door, type DoorConnection, type DoorOptions } from '../../src/transport/door.ts';
import { tokensEqual } from '../../src/transport/tokens.ts';
import { withTimeout, WAIT_MS } from '../peers/wait.ts';

/** A door on a free loopback port for the pi token `t`, quiet; `overrides` change what a test is about. */
function doorOptions(overrides: Partial<DoorOptions> = {}): DoorOptions {
  return {
    host: '127.0.0.1',
    port: 0,
    tokens: { pi: 't' },
    maxPayload: 1024,
    onConnection: () => {},
    log: () => {},
    maxPending: 64,
    upgradeDeadlineMs: 5000,
    ...overrides,
  };
}

describe('tokensEqual', () => {
  const cases: [string, string, boolean][] = [
    ['s3cret-token', 's3cret-token', true],
    ['s3cret-token', 's3cret-tokem', false],
    ['short', 'a-much-longer-token', false],
    ['a-much-longer-token', 'short', false],
    ['', 'token', false],
    ['token', '', false],
    ['', '', true],
    ['tökén', 'tökén', true],
  ];
  for (const [given, expected, want] of cases) {
    test(`${JSON.stringify(given)} vs ${JSON.stringify(expected)} → ${want}`, () => assert.equal(tokensEqual(given, expected), want));
  }
});

describe('authenticate', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  const tokens = { pi: 'pi-token', claude: 'claude-token' };

  test('the header that carries the right token names the dialect', () => {
    assert.equal(authenticate(req({ 'x-pi-ide-authorization': 'pi-token' }), tokens), 'pi');
    assert.equal(authenticate(req({ 'x-claude-code-ide-authorization': 'claude-token' }), tokens), 'claude');
  });

  test("one dialect's token in the other's header is refused", () => {
    assert.equal(authenticate(req({ 'x-pi-ide-authorization': 'claude-token' }), tokens), null);
    assert.equal(authenticate(req({ 'x-claude-code-ide-authorization': 'pi-token' }), tokens), null);
  });

  test('a missing or wrong token is refused', () => {
    assert.equal(authenticate(req({}), tokens), null);
    assert.equal(authenticate(req({ 'x-pi-ide-authorization': 'nope' }), tokens), null);
    assert.equal(authenticate(req({ authorization: 'pi-token' }), tokens), null);
  });

  test('a wrong token in one header does not spoil a right one in the other', () => {
    assert.equal(authenticate(req({ 'x-pi-ide-authorization': 'nope', 'x-claude-code-ide-authorization': 'claude-token' }), tokens), 'claude');
  });

  test('a dialect without a token accepts nothing, not even an empty header', () => {
    assert.equal(authenticate(req({ 'x-claude-code-ide-authorization': '' }), { pi: 'pi-token' }), null);
    assert.equal(authenticate(req({ 'x-claude-code-ide-authorization': '' }), { pi: 'pi-token', claude: '' }), null);
  });
});

describe('the door on loopback', () => {
  const tokens = { pi: 'pi-token', claude: 'claude-token' };
  let door: Door;
  const connections: DoorConnection[] = [];
  const logs: string[] = [];

  before(async () => {
    door = await Door.open({
      host: '127.0.0.1',
      port: 0,
      tokens,
      maxPayload: 4096,
      onConnection: (conn) => {
        connections.push(conn);
        conn.ws.on('message', (data) => conn.ws.send(`echo:${data.toString()}`));
        conn.ws.on('error', (err) => logs.push(`server socket: ${err.message}`));
      },
      log: (message) => logs.push(message),
      maxPending: 64,
      upgradeDeadlineMs: 5000,
    });
  });
  after(() => door.close());

  const url = () => `ws://127.0.0.1:${door.port}/`;

  /** Tries an upgrade; resolves with the HTTP status it was refused with, or throws if it was accepted. */
  function refusal(headers: Record<string, string>, origin?: string): Promise<number> {
    return withTimeout(
      new Promise<number>((resolve, reject) => {
        const ws = new WebSocket(url(), { headers, ...(origin ? { origin } : {}) });
        ws.on('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          res.resume();
          ws.terminate();
        });
        ws.on('open', () => {
          ws.terminate();
          reject(new Error('the door accepted the connection'));
        });
        ws.on('error', () => {}); // terminate() after unexpected-response reports an abort
      }),
      WAIT_MS,
      'the door to answer an upgrade',
    );
  }

  async function open(headers: Record<string, string>, protocols?: string[]): Promise<{ ws: WebSocket; conn: DoorConnection; localPort: number }> {
    const before = connections.length;
    const ws = new WebSocket(url(), protocols ?? [], { headers });
    let localPort = 0;
    ws.on('upgrade', (res) => (localPort = res.socket.localPort ?? 0));
    await withTimeout(
      new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      }),
      WAIT_MS,
      'the door to accept',
    );
    const conn = await withTimeout(
      (async () => {
        while (connections.length === before) await new Promise((r) => setTimeout(r, 5));
        return connections[connections.length - 1]!;
      })(),
      WAIT_MS,
      'onConnection',
    );
    return { ws, conn, localPort };
  }

  async function closeClient(ws: WebSocket): Promise<void> {
    if (ws.readyState === WebSocket.CLOSED) return;
    const closed = new Promise((resolve) => ws.once('close', resolve));
    ws.close();
    await withTimeout(closed, WAIT_MS, 'the client to close');
  }

  test('a connection without a token is refused with 401 before upgrading', async () => {
    const before = connections.length;
    assert.equal(await refusal({}), 401);
    assert.equal(connections.length, before);
    assert.ok(logs.some((l) => /missing or wrong token/.test(l)));
  });

  test('a wrong token is refused with 401', async () => {
    const before = connections.length;
    assert.equal(await refusal({ 'x-pi-ide-authorization': 'guess' }), 401);
    assert.equal(await refusal({ 'x-claude-code-ide-authorization': 'pi-token' }), 401);
    assert.equal(connections.length, before);
  });

  test('a browser (any Origin) is refused with 403, even with the right token', async () => {
    const before = connections.length;
    assert.equal(await refusal({ 'x-pi-ide-authorization': 'pi-token' }, 'http://evil.example'), 403);
    assert.equal(await refusal({}, 'null'), 403);
    assert.equal(connections.length, before);
  });

  test('pi connects with its header and is known as the pi dialect, from its own port', async () => {
    const { ws, conn, localPort } = await open({ 'x-pi-ide-authorization': 'pi-token' });
    assert.equal(conn.dialect, 'pi');
    assert.equal(conn.protocol, '');
    assert.equal(conn.remotePort, localPort);
    const reply = new Promise((resolve) => ws.once('message', (d) => resolve(d.toString())));
    ws.send('hi');
    assert.equal(await withTimeout(reply, WAIT_MS, 'an echo'), 'echo:hi');
    await closeClient(ws);
  });

  test('Claude Code connects with its header and subprotocol mcp, which is echoed', async () => {
    const { ws, conn } = await open({ 'x-claude-code-ide-authorization': 'claude-token' }, ['mcp']);
    assert.equal(conn.dialect, 'claude');
    assert.equal(conn.protocol, 'mcp');
    assert.equal(ws.protocol, 'mcp');
    await closeClient(ws);
  });

  test('a frame over the size cap closes that connection with 1009', async () => {
    const { ws } = await open({ 'x-pi-ide-authorization': 'pi-token' });
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send('x'.repeat(5000));
    assert.equal(await withTimeout(closed, WAIT_MS, 'the oversized frame to close the socket'), 1009);
    assert.ok(logs.some((l) => /Max payload size exceeded/.test(l)));
  });

  test('a plain HTTP GET gets 426', async () => {
    const status = await withTimeout(
      new Promise<number>((resolve, reject) => {
        get(url().replace('ws:', 'http:'), (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).on('error', reject);
      }),
      WAIT_MS,
      'an HTTP answer',
    );
    assert.equal(status, 426);
  });

  test('clients that reset the connection while being refused do not bring the door down', async () => {
    const request =
      'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
      'x-pi-ide-authorization: wrong\r\n\r\n';
    await withTimeout(
      Promise.all(
        Array.from(
          { length: 20 },
          () =>
            new Promise<void>((resolve) => {
              const socket = connect(door.port, '127.0.0.1');
              socket.on('error', () => {});
              socket.on('close', () => resolve());
              socket.on('connect', () => {
                socket.write(request);
                socket.resetAndDestroy();
              });
            }),
        ),
      ),
      3000,
      'the resetting clients to finish',
    );
    // Still serving.
    const { ws, conn } = await open({ 'x-pi-ide-authorization': 'pi-token' });
    assert.equal(conn.dialect, 'pi');
    await closeClient(ws);
  });
});

describe('closing the door', () => {
  const options = (onConnection: (c: DoorConnection) => void = () => {}) => doorOptions({ onConnection });

  test('drops connected agents, stops listening, and is safe to call twice', async () => {
    const door = await Door.open(options());
    const ws = new WebSocket(`ws://127.0.0.1:${door.port}/`, { headers: { 'x-pi-ide-authorization': 't' } });
    await withTimeout(new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject)), WAIT_MS, 'open');
    const dropped = new Promise((resolve) => ws.once('close', resolve));
    await withTimeout(Promise.all([door.close(), door.close()]), WAIT_MS, 'close() twice');
    await withTimeout(dropped, WAIT_MS, 'the agent to be dropped');
    await door.close();
    const refused = await new Promise<string>((resolve) => {
      const socket = connect(door.port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
    });
    assert.equal(refused, 'ECONNREFUSED');
  });

  test('does not wait for a client that never finishes its request', async () => {
    // The client's deadline is far beyond the wait for close(): close() must not wait for it.
    const door = await Door.open({ ...options(), upgradeDeadlineMs: 60_000 });
    const socket = connect(door.port, '127.0.0.1');
    socket.on('error', () => {});
    await withTimeout(new Promise((resolve) => socket.once('connect', resolve)), WAIT_MS, 'connect');
    socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // headers never end
    await new Promise((resolve) => setTimeout(resolve, 50));
    await withTimeout(door.close(), WAIT_MS, 'close() with a half-sent request open');
    socket.destroy();
  });

  test('a port already in use is an error, not a hang', async () => {
    const first = await Door.open(options());
    try {
      await assert.rejects(
        withTimeout(Door.open({ ...options(), port: first.port }), WAIT_MS, 'Door.open on a used port'),
        (err: NodeJS.ErrnoException) => err.code === 'EADDRINUSE',
      );
    } finally {
      await first.close();
    }
  });
});

describe('the door under a flood of connections that never upgrade', () => {
  /** A raw TCP connection that says nothing (or half a request); resolves once connected. */
  const halfOpen = (port: number, says = ''): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        if (says !== '') socket.write(says);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  const closedByServer = (socket: Socket): Promise<void> =>
    new Promise((resolve) => {
      if (socket.destroyed || socket.readableEnded) return resolve();
      socket.on('error', () => {});
      socket.once('close', () => resolve());
    });

  test('holds at most its cap of waiting connections, logs a summary instead of a line each, and still lets an agent in', async () => {
    const logs: string[] = [];
    const agents: DoorConnection[] = [];
    const door = await Door.open(
      doorOptions({ onConnection: (conn) => agents.push(conn), log: (line) => logs.push(line), maxPending: 8, upgradeDeadlineMs: 60_000 }),
    );
    const flood: Socket[] = [];
    try {
      for (let i = 0; i < 100; i++) flood.push(await halfOpen(door.port, i % 2 === 0 ? '' : 'GET / HTTP/1.1\r\n'));
      // All but the newest 8 are pushed out by the server: wait for it to have seen them all.
      await withTimeout(Promise.all(flood.slice(0, 92).map(closedByServer)), WAIT_MS, 'the server to shed the oldest connections');
      assert.ok(door.pendingConnections <= 8, `${door.pendingConnections} waiting`);

      const ws = new WebSocket(`ws://127.0.0.1:${door.port}/`, { headers: { 'x-pi-ide-authorization': 't' } });
      await withTimeout(new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject)), WAIT_MS, 'the agent to get in');
      assert.equal(agents.length, 1);
      assert.ok(door.pendingConnections <= 8, 'an upgraded agent does not count against the cap');
      ws.terminate();
    } finally {
      for (const socket of flood) socket.destroy();
      await door.close();
    }
    const lines = logs.filter((l) => l.startsWith('door: refused'));
    assert.ok(lines.length <= 4, `a line each would be ${lines.length}:\n${lines.join('\n')}`);
    const summary = lines.at(-1) ?? '';
    assert.match(summary, /^door: refused (\d+) more connections in the last [\d.]+ s: \1 too many connections waiting$/);
  });

  test('the first refusals of a window are logged with their reason and the page’s Origin', async () => {
    const logs: string[] = [];
    const door = await Door.open(doorOptions({ log: (line) => logs.push(line), maxPending: 8 }));
    try {
      const refusedWith = (headers: Record<string, string>, origin?: string) =>
        new Promise<number>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${door.port}/`, { headers, ...(origin ? { origin } : {}) });
          ws.on('unexpected-response', (_req, res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
            ws.terminate();
          });
          ws.on('error', () => {});
        });
      assert.equal(await refusedWith({ 'x-pi-ide-authorization': 't' }, 'http://evil.example'), 403);
      assert.equal(await refusedWith({ 'x-pi-ide-authorization': 'guess' }), 401);
    } finally {
      await door.close();
    }
    assert.deepEqual(logs, [
      'door: refused a connection: a browser Origin (http://evil.example)',
      'door: refused a connection: missing or wrong token',
    ]);
  });

  test('a connection that has not upgraded by the deadline is cut', async () => {
    const door = await Door.open(doorOptions({ maxPending: 8, upgradeDeadlineMs: 150 }));
    try {
      const silent = await halfOpen(door.port);
      const slow = await halfOpen(door.port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      const started = Date.now();
      await withTimeout(Promise.all([closedByServer(silent), closedByServer(slow)]), WAIT_MS, 'the deadline to cut both');
      assert.ok(Date.now() - started >= 100, 'not before the deadline');
      assert.equal(door.pendingConnections, 0);
    } finally {
      await door.close();
    }
  });
});
