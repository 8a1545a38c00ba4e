import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseFrame, type RpcMessage } from '../../src/protocol/jsonrpc.ts';
import { TrafficLog } from '../../src/relay/traffic.ts';

/** Records a frame the way the relay does: the text and what it parsed to. */
function record(log: TrafficLog, text: string, at: number, dir: 'in' | 'out' | 'up' | 'down' = 'in', editorId: string | null = null): void {
  const parsed = parseFrame(text);
  log.record(dir, editorId, text, parsed.ok ? parsed.message : null, at);
}

const frame = (n: number) => JSON.stringify({ jsonrpc: '2.0', id: n, method: `m${n}` });

describe('the traffic log', () => {
  test('keeps frames oldest first until it is full', () => {
    const log = new TrafficLog(5);
    for (let i = 1; i <= 3; i++) record(log, frame(i), i);
    assert.deepEqual(
      log.list().map((e) => e.at),
      [1, 2, 3],
    );
  });

  test('after wrapping around it keeps the newest frames, still oldest first', () => {
    const log = new TrafficLog(3);
    for (let i = 1; i <= 8; i++) record(log, frame(i), i);
    assert.deepEqual(
      log.list().map((e) => e.id),
      [6, 7, 8],
    );
    record(log, frame(9), 9);
    assert.deepEqual(
      log.list().map((e) => e.id),
      [7, 8, 9],
    );
  });

  test('wrapping exactly at capacity keeps the order', () => {
    const log = new TrafficLog(4);
    for (let i = 1; i <= 4; i++) record(log, frame(i), i);
    assert.deepEqual(
      log.list().map((e) => e.id),
      [1, 2, 3, 4],
    );
    record(log, frame(5), 5);
    assert.deepEqual(
      log.list().map((e) => e.id),
      [2, 3, 4, 5],
    );
  });

  test('a limit returns only the newest entries, oldest first', () => {
    const log = new TrafficLog(4);
    for (let i = 1; i <= 6; i++) record(log, frame(i), i);
    assert.deepEqual(
      log.list(2).map((e) => e.id),
      [5, 6],
    );
    assert.deepEqual(
      log.list(10).map((e) => e.id),
      [3, 4, 5, 6],
    );
    assert.deepEqual(log.list(0), []);
  });

  test('a capacity of zero records nothing', () => {
    const log = new TrafficLog(0);
    record(log, frame(1), 1);
    assert.deepEqual(log.list(), []);
  });

  test('a long frame is cut to a preview, but its size is the whole frame in bytes', () => {
    const log = new TrafficLog(2);
    const text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { text: 'é'.repeat(1000) } });
    record(log, text, 1);
    const [entry] = log.list();
    assert.equal(entry!.bytes, Buffer.byteLength(text));
    assert.ok(entry!.bytes > text.length, 'bytes count UTF-8, not characters');
    assert.equal(entry!.preview, `${text.slice(0, 400)}…`);
  });

  test('a short frame is kept whole', () => {
    const log = new TrafficLog(2);
    const text = frame(1);
    record(log, text, 1);
    assert.equal(log.list()[0]!.preview, text);
    const exact = 'x'.repeat(400);
    log.record('in', null, exact, null, 2);
    assert.equal(log.list()[1]!.preview, exact);
  });

  test('a preview never ends in half an emoji', () => {
    const log = new TrafficLog(1);
    const text = `${'a'.repeat(399)}😀${'b'.repeat(100)}`;
    log.record('in', null, text, null, 1);
    const preview = log.list()[0]!.preview;
    assert.equal(preview, `${'a'.repeat(399)}…`);
  });

  test('method, tool and id are taken from what the frame parsed to', () => {
    const log = new TrafficLog(10);
    record(log, '{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"openDiff","arguments":{}}}', 1, 'in');
    record(log, '{"jsonrpc":"2.0","method":"selection_changed","params":{}}', 2, 'down', 'nvim');
    record(log, '{"jsonrpc":"2.0","id":7,"result":{}}', 3, 'up', 'nvim');
    record(log, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}', 4, 'out');
    record(log, '{not json', 5, 'in');
    assert.deepEqual(
      log.list().map(({ dir, editorId, method, tool, id }) => ({ dir, editorId, method, tool, id })),
      [
        { dir: 'in', editorId: null, method: 'tools/call', tool: 'openDiff', id: 'abc' },
        { dir: 'down', editorId: 'nvim', method: 'selection_changed', tool: null, id: null },
        { dir: 'up', editorId: 'nvim', method: null, tool: null, id: 7 },
        { dir: 'out', editorId: null, method: null, tool: null, id: null },
        { dir: 'in', editorId: null, method: null, tool: null, id: null },
      ],
    );
  });

  test('an entry is the frame as it was when recorded, not the message it parsed to now', () => {
    const log = new TrafficLog(2);
    const message: RpcMessage = { kind: 'request', msg: { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'openDiff' } } };
    log.record('in', null, '{}', message, 1, 2);
    message.msg.method = 'changed';
    (message.msg as { id: number }).id = 4;
    assert.deepEqual(
      log.list().map(({ method, tool, id, bytes }) => ({ method, tool, id, bytes })),
      [{ method: 'tools/call', tool: 'openDiff', id: 3, bytes: 2 }],
    );
  });

  test('the time defaults to now', () => {
    const log = new TrafficLog(1);
    const before = Date.now();
    const message: RpcMessage = { kind: 'notification', msg: { jsonrpc: '2.0', method: 'x' } };
    log.record('in', null, '{}', message);
    const at = log.list()[0]!.at;
    assert.ok(at >= before && at <= Date.now());
  });
});
