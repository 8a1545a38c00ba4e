import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HubError } from '../../src/api/types.ts';
import {
  decodeRequest,
  decodeServerFrame,
  encodeError,
  encodeEvent,
  encodeRequest,
  encodeResult,
  toWireError,
} from '../../src/api/wire.ts';
import { sampleSnapshot } from './fake-hub.ts';

test('requests the hub can run decode into id, method and params', () => {
  const cases: [string, { id: number; method: string; params: unknown }][] = [
    [encodeRequest(1, 'snapshot', undefined), { id: 1, method: 'snapshot', params: undefined }],
    [encodeRequest(7, 'bind', { sessionId: 's', editorId: null }), { id: 7, method: 'bind', params: { sessionId: 's', editorId: null } }],
    ['{"id":0,"method":"restore","params":null}', { id: 0, method: 'restore', params: undefined }],
    ['{"id":3,"method":"diffs.get","params":{"id":"d1"}}', { id: 3, method: 'diffs.get', params: { id: 'd1' } }],
  ];
  for (const [text, expected] of cases) {
    assert.deepEqual(decodeRequest(text), { ok: true, request: expected }, text);
  }
});

test('malformed requests are refused with a reason, keeping the id when there is one', () => {
  const cases: [string, number | null, RegExp][] = [
    ['not json', null, /request is not JSON/],
    ['[1,2]', null, /must be a JSON object/],
    ['{"method":"snapshot"}', null, /"id" must be a non-negative integer/],
    ['{"id":"1","method":"snapshot"}', null, /"id" must be a non-negative integer/],
    ['{"id":1.5,"method":"snapshot"}', null, /"id" must be a non-negative integer/],
    ['{"id":-1,"method":"snapshot"}', null, /"id" must be a non-negative integer/],
    ['{"id":2,"method":"shutdown"}', 2, /unknown method "shutdown"/],
    ['{"id":2,"method":"__proto__"}', 2, /unknown method "__proto__"/],
    ['{"id":2}', 2, /unknown method missing/],
    ['{"id":4,"method":"bind","params":["s1","e1"]}', 4, /bind: "params" must be an object/],
    ['{"id":4,"method":"bind","params":"s1"}', 4, /bind: "params" must be an object/],
  ];
  for (const [text, id, message] of cases) {
    const decoded = decodeRequest(text);
    assert.equal(decoded.ok, false, text);
    if (decoded.ok) continue;
    assert.equal(decoded.id, id, text);
    assert.equal(decoded.error.code, 'invalid', text);
    assert.match(decoded.error.message, message, text);
  }
});

test('results, errors and events round-trip through the server frames', () => {
  const snapshot = sampleSnapshot();
  assert.deepEqual(decodeServerFrame(encodeResult(5, snapshot)), { kind: 'result', id: 5, result: snapshot });
  // void commands answer without a result
  assert.deepEqual(decodeServerFrame(encodeResult(6, undefined)), { kind: 'result', id: 6, result: undefined });
  assert.deepEqual(decodeServerFrame(encodeError(7, { message: 'no diff "x"', code: 'not-found' })), {
    kind: 'error',
    id: 7,
    error: { message: 'no diff "x"', code: 'not-found' },
  });
  const event = { type: 'snapshot', snapshot } as const;
  assert.deepEqual(decodeServerFrame(encodeEvent(event)), { kind: 'event', event });
});

test('a HubError keeps its code on the wire; other errors are internal', () => {
  assert.deepEqual(toWireError(new HubError('busy', 'conflict')), { message: 'busy', code: 'conflict' });
  assert.deepEqual(toWireError(new TypeError('x is undefined')), { message: 'x is undefined', code: 'internal' });
  assert.deepEqual(toWireError('plain'), { message: 'plain', code: 'internal' });
});

test('server frames that cannot be trusted are refused with a reason', () => {
  const cases: [string, RegExp][] = [
    ['nope', /not JSON/],
    ['42', /not a JSON object/],
    ['{"event":{"type":"explode"}}', /event of unknown type "explode"/],
    ['{"event":7}', /event of unknown type 7/],
    ['{"result":1}', /"id" is not a non-negative integer/],
    ['{"id":1,"error":"bad"}', /malformed error for request 1/],
    ['{"id":1,"error":{"message":"x","code":"weird"}}', /malformed error for request 1/],
  ];
  for (const [text, message] of cases) assert.throws(() => decodeServerFrame(text), message, text);
});
