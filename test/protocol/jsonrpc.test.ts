import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  errorResponse,
  INVALID_REQUEST,
  notification,
  PARSE_ERROR,
  parseFrame,
  request,
  result,
  routedOnly,
  type ParseResult,
} from '../../src/protocol/jsonrpc.ts';

type Want = { kind: 'request' | 'notification' | 'response' } | { code: number; id: string | number | null };

const frames: { name: string; text: string; want: Want }[] = [
  { name: 'a request with a number id', text: '{"jsonrpc":"2.0","id":7,"method":"tools/list"}', want: { kind: 'request' } },
  { name: 'a request with a string id', text: '{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{}}', want: { kind: 'request' } },
  { name: 'a request with id 0', text: '{"jsonrpc":"2.0","id":0,"method":"initialize"}', want: { kind: 'request' } },
  { name: 'a request with an empty string id', text: '{"jsonrpc":"2.0","id":"","method":"initialize"}', want: { kind: 'request' } },
  { name: 'a notification (no id)', text: '{"jsonrpc":"2.0","method":"notifications/initialized"}', want: { kind: 'notification' } },
  { name: 'a notification with params', text: '{"jsonrpc":"2.0","method":"selection_changed","params":{"text":""}}', want: { kind: 'notification' } },
  { name: 'a method with a null id (treated as a notification)', text: '{"jsonrpc":"2.0","id":null,"method":"x"}', want: { kind: 'notification' } },
  { name: 'a response with a result', text: '{"jsonrpc":"2.0","id":3,"result":{"content":[]}}', want: { kind: 'response' } },
  { name: 'a response with a null result', text: '{"jsonrpc":"2.0","id":"s","result":null}', want: { kind: 'response' } },
  { name: 'an error response', text: '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}}', want: { kind: 'response' } },
  { name: 'an error response with a null id', text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}', want: { kind: 'response' } },
  { name: 'a batch', text: '[{"jsonrpc":"2.0","id":1,"method":"a"}]', want: { code: INVALID_REQUEST, id: null } },
  { name: 'an empty batch', text: '[]', want: { code: INVALID_REQUEST, id: null } },
  { name: 'bad JSON', text: '{"jsonrpc":"2.0",', want: { code: PARSE_ERROR, id: null } },
  { name: 'an empty frame', text: '', want: { code: PARSE_ERROR, id: null } },
  { name: 'a number', text: '42', want: { code: INVALID_REQUEST, id: null } },
  { name: 'a string', text: '"hello"', want: { code: INVALID_REQUEST, id: null } },
  { name: 'null', text: 'null', want: { code: INVALID_REQUEST, id: null } },
  { name: 'a request with an object id', text: '{"jsonrpc":"2.0","id":{"a":1},"method":"x"}', want: { code: INVALID_REQUEST, id: null } },
  { name: 'a request with a boolean id', text: '{"jsonrpc":"2.0","id":true,"method":"x"}', want: { code: INVALID_REQUEST, id: null } },
  { name: 'a request with an array id', text: '{"jsonrpc":"2.0","id":[1],"method":"x"}', want: { code: INVALID_REQUEST, id: null } },
  { name: 'a response with an object id', text: '{"jsonrpc":"2.0","id":{"a":1},"result":1}', want: { code: INVALID_REQUEST, id: null } },
  { name: 'a response without an id', text: '{"jsonrpc":"2.0","result":1}', want: { code: INVALID_REQUEST, id: null } },
  { name: 'an object with neither method nor result (its id echoed)', text: '{"jsonrpc":"2.0","id":9}', want: { code: INVALID_REQUEST, id: 9 } },
  { name: 'a non-string method and no result', text: '{"jsonrpc":"2.0","id":"q","method":5}', want: { code: INVALID_REQUEST, id: 'q' } },
];

function classify(parsed: ParseResult): Want {
  return parsed.ok ? { kind: parsed.message.kind } : { code: parsed.error.code, id: parsed.id };
}

describe('parseFrame', () => {
  for (const { name, text, want } of frames) {
    test(`${name} → ${'kind' in want ? want.kind : want.code}`, () => {
      assert.deepEqual(classify(parseFrame(text)), want);
    });
  }

  test('a parsed request keeps its id type, method and params', () => {
    const parsed = parseFrame('{"jsonrpc":"2.0","id":"41","method":"tools/call","params":{"name":"openDiff"}}');
    assert.ok(parsed.ok && parsed.message.kind === 'request');
    assert.equal(parsed.message.msg.id, '41');
    assert.equal(parsed.message.msg.method, 'tools/call');
    assert.deepEqual(parsed.message.msg.params, { name: 'openDiff' });
  });

  test('a malformed frame gets a message saying what is wrong', () => {
    const bad = parseFrame('{oops');
    assert.ok(!bad.ok);
    assert.match(bad.error.message, /^Parse error: /);
    const badId = parseFrame('{"id":true,"method":"x"}');
    assert.ok(!badId.ok);
    assert.match(badId.error.message, /"id"/);
  });
});

describe('envelope builders', () => {
  test('leave out params and data that are not given', () => {
    assert.deepEqual(request(1, 'tools/list'), { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    assert.deepEqual(request('x', 'tools/call', { a: 1 }), { jsonrpc: '2.0', id: 'x', method: 'tools/call', params: { a: 1 } });
    assert.deepEqual(notification('notifications/initialized'), { jsonrpc: '2.0', method: 'notifications/initialized' });
    assert.deepEqual(notification('n', []), { jsonrpc: '2.0', method: 'n', params: [] });
    assert.deepEqual(result(2, null), { jsonrpc: '2.0', id: 2, result: null });
    assert.deepEqual(errorResponse(null, PARSE_ERROR, 'bad'), { jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'bad' } });
    assert.deepEqual(errorResponse(3, -1, 'm', { why: 1 }), { jsonrpc: '2.0', id: 3, error: { code: -1, message: 'm', data: { why: 1 } } });
  });

  test('what the builders make parses back to the same kind', () => {
    assert.deepEqual(classify(parseFrame(JSON.stringify(request(1, 'm')))), { kind: 'request' });
    assert.deepEqual(classify(parseFrame(JSON.stringify(notification('m')))), { kind: 'notification' });
    assert.deepEqual(classify(parseFrame(JSON.stringify(result('id', { ok: true })))), { kind: 'response' });
    assert.deepEqual(classify(parseFrame(JSON.stringify(errorResponse(null, -32600, 'x')))), { kind: 'response' });
  });
});

test('a selection written the usual way is routed by its method alone; anything else is parsed', () => {
  const selection = JSON.stringify({ jsonrpc: '2.0', method: 'selection_changed', params: { text: 'x', filePath: '/w/a.ts', selection: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 }, isEmpty: false } } });
  const routed = routedOnly(selection);
  assert.equal(routed?.method, 'selection_changed');
  assert.deepEqual(routed?.params, JSON.parse(selection).params, 'its params, read when asked for (to translate it)');
  assert.deepEqual(JSON.parse(JSON.stringify(routed)), JSON.parse(selection), 'serialised whole, params included');
  assert.deepEqual(Object.keys({ ...routed }).sort(), ['jsonrpc', 'method'], 'a spread copies no frame text along');
  assert.equal(routedOnly('{"jsonrpc":"2.0","method":"at_mentioned","params":{"filePath":"/w/a.ts","lineStart":1,"lineEnd":2}}')?.method, 'at_mentioned');
  assert.equal(routedOnly('{"jsonrpc":"2.0","method":"selection_changed","params":{"a":[}}')?.params, undefined, 'malformed: no params, and no throw');
  for (const other of [
    '{"method":"selection_changed","jsonrpc":"2.0","params":{}}',
    '{"jsonrpc":"2.0","method":"selection_changed","params":{"a":1},"id":7}',
    '{"jsonrpc":"2.0","method":"getSuggestions","params":{"a":1}}',
    '{"jsonrpc":"2.0","method":"selection_changed","params":[]}',
    '{"jsonrpc":"2.0","id":1,"method":"selection_changed","params":{}}',
  ]) {
    assert.equal(routedOnly(other), null, other);
  }
});
