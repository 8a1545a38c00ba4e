// Doors for Claude Code in editors' terminals: which editor pid the main door names, which get a
// door of their own, and those doors as agents meet them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, test } from 'node:test';
import WebSocket from 'ws';
import { Door, type DoorConnection } from '../../src/transport/door.ts';
import { newToken } from '../../src/transport/tokens.ts';
import { mainTerminalPid, TerminalDoors, terminalGroups, type TerminalEditor } from '../../src/transport/terminal-doors.ts';
import { waitFor } from '../peers/wait.ts';

const SELF = 100;
const code = (pid: number, ...folders: string[]): TerminalEditor => ({ pid, dialect: 'claude', workspaceFolders: folders });

describe('terminalGroups', () => {
  test('windows sharing a pid are one group with all their folders; pi-dialect editors and Patchbay itself are left out', () => {
    const editors: TerminalEditor[] = [
      code(7, '/w/app'),
      { pid: 8, dialect: 'pi', workspaceFolders: ['/w/nvim'] },
      code(9, '/w/cursor'),
      code(7, '/w/lib', '/w/app'),
      code(SELF, '/w/self'),
    ];
    assert.deepEqual(terminalGroups(editors, SELF), [
      { pid: 7, folders: ['/w/app', '/w/lib'] },
      { pid: 9, folders: ['/w/cursor'] },
    ]);
  });
});

describe('mainTerminalPid', () => {
  const groups = [
    { pid: 7, folders: ['/a'] },
    { pid: 9, folders: ['/b'] },
  ];
  const cases: { name: string; previous: number | null; own: number[]; want: number | null }[] = [
    { name: 'the first editor pid when none was named', previous: null, own: [], want: 7 },
    { name: 'the one named before while it lives (its lockfile stays put)', previous: 9, own: [7], want: 9 },
    { name: 'not one with a door of its own (closing it would drop its sessions)', previous: 3, own: [7], want: 9 },
    { name: 'none when every editor pid has its own door', previous: 3, own: [7, 9], want: null },
  ];
  for (const c of cases) test(c.name, () => assert.equal(mainTerminalPid(groups, c.previous, new Set(c.own)), c.want));
  test('none without Claude-dialect editors', () => assert.equal(mainTerminalPid([], 7, new Set()), null));
});

describe('TerminalDoors', () => {
  async function doors(connections: DoorConnection[] = []) {
    const logs: string[] = [];
    const td = new TerminalDoors(async () => {
      const token = newToken();
      const door = await Door.open({
        host: '127.0.0.1',
        port: 0,
        tokens: { claude: token },
        maxPayload: 1024,
        onConnection: (conn) => connections.push(conn),
        log: (line) => logs.push(line),
        maxPending: 8,
        upgradeDeadlineMs: 2000,
      });
      return { door, token };
    }, (line) => logs.push(line));
    return { td, logs };
  }

  test('one editor pid: the main door names it and no listener is opened', async (t) => {
    const { td } = await doors();
    t.after(() => td.close());
    assert.deepEqual(await td.sync([code(7, '/a'), code(7, '/b')], SELF), { pid: 7, extra: [] });
    assert.equal(td.size, 0);
  });

  test('a second editor pid gets a door of its own: a fresh token, checked before the upgrade, and its connections say which door they came to', async (t) => {
    const connections: DoorConnection[] = [];
    const { td } = await doors(connections);
    t.after(() => td.close());
    const { pid, extra } = await td.sync([code(7, '/a'), code(9, '/b')], SELF);
    assert.equal(pid, 7);
    assert.equal(extra.length, 1);
    const [door] = extra;
    assert.deepEqual([door!.pid, door!.folders], [9, ['/b']]);
    assert.match(door!.token, /^[0-9a-f-]{20,}$/i);

    const refused = new WebSocket(`ws://127.0.0.1:${door!.port}`, { headers: { 'x-claude-code-ide-authorization': 'wrong' } });
    const [, res] = (await once(refused, 'unexpected-response')) as [unknown, { statusCode: number }];
    assert.equal(res.statusCode, 401);
    const browser = new WebSocket(`ws://127.0.0.1:${door!.port}`, { headers: { 'x-claude-code-ide-authorization': door!.token }, origin: 'http://evil.example' });
    const [, forbidden] = (await once(browser, 'unexpected-response')) as [unknown, { statusCode: number }];
    assert.equal(forbidden.statusCode, 403);
    const pi = new WebSocket(`ws://127.0.0.1:${door!.port}`, { headers: { 'x-pi-ide-authorization': door!.token } });
    assert.equal(((await once(pi, 'unexpected-response')) as [unknown, { statusCode: number }])[1].statusCode, 401, 'Claude only');
    assert.equal(connections.length, 0);

    const ws = new WebSocket(`ws://127.0.0.1:${door!.port}`, 'mcp', { headers: { 'x-claude-code-ide-authorization': door!.token } });
    await once(ws, 'open');
    await waitFor(() => connections.length === 1, { message: 'the connection handed on' });
    assert.deepEqual([connections[0]!.dialect, connections[0]!.localPort], ['claude', door!.port]);

    // The second editor quits: its door closes, with its connections.
    assert.deepEqual(await td.sync([code(7, '/a')], SELF), { pid: 7, extra: [] });
    await once(ws, 'close');
    assert.equal(td.size, 0);
  });

  test('the editor the main door names quits: another takes its place only if it has no door of its own', async (t) => {
    const { td } = await doors();
    t.after(() => td.close());
    const first = await td.sync([code(7, '/a'), code(9, '/b')], SELF);
    const nine = first.extra[0]!;
    const after = await td.sync([code(9, '/b'), code(11, '/c')], SELF);
    assert.equal(after.pid, 11, 'the new editor, not 9, whose door has sessions');
    assert.deepEqual(after.extra.map((d) => [d.pid, d.port, d.token]), [[9, nine.port, nine.token]], '9 keeps its door and token');
  });

  test('closed, it closes every door and opens none again', async () => {
    const { td } = await doors();
    const { extra } = await td.sync([code(7, '/a'), code(9, '/b'), code(11, '/c')], SELF);
    assert.equal(extra.length, 2);
    await td.close();
    assert.equal(td.size, 0);
    assert.deepEqual(await td.sync([code(7, '/a'), code(9, '/b')], SELF), { pid: null, extra: [] });
    assert.equal(td.size, 0);
    await td.close();
  });
});
