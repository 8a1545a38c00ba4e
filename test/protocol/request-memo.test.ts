import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { parseFrame, request, type RpcRequest } from '../../src/protocol/jsonrpc.ts';
import { knownRequestJson, RequestMemo } from '../../src/protocol/request-memo.ts';

/** pi-ide's getDiagnostics, as it sends it before every model call (its ids are UUIDs). */
const call = (id: string): string => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"getDiagnostics","arguments":{}}}`;

function memoOf(text: string): RequestMemo | null {
  const parsed = parseFrame(text);
  assert.ok(parsed.ok && parsed.message.kind === 'request');
  return RequestMemo.of(Buffer.from(text, 'utf8'), text, parsed.message.msg);
}

/** What JSON.parse reads in `text`. */
function parsedRequest(text: string): RpcRequest {
  const parsed = parseFrame(text);
  assert.ok(parsed.ok && parsed.message.kind === 'request', text);
  return parsed.message.msg;
}

describe('request memo', () => {
  test('the same request under another id reads as JSON.parse reads it, string ids and number ids', () => {
    const memo = memoOf(call('"0b1c2d3e-0000-4000-8000-000000000001"'))!;
    for (const id of ['"0b1c2d3e-0000-4000-8000-000000000002"', '"with \\"quote\\" and \\u00e9"', '7', '-1.5', '123456789012345', '"é"']) {
      assert.deepEqual(memo.read(call(id)), parsedRequest(call(id)), id);
    }
  });

  test('keys beyond the envelope and their order are kept', () => {
    const text = (id: number) => `{"id":${id},"jsonrpc":"2.0","_meta":{"progressToken":3},"method":"tools/call","params":{"name":"getOpenEditors"}}`;
    const memo = memoOf(text(1))!;
    const read = memo.read(text(2))!;
    assert.deepEqual(Object.keys(read), Object.keys(parsedRequest(text(2))));
    assert.deepEqual(read, parsedRequest(text(2)));
  });

  test('a request read from it has the hidden class JSON.parse gives the same text, however often it was read', () => {
    setFlagsFromString('--allow-natives-syntax');
    const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
    const memo = memoOf(call('1'))!;
    let read: RpcRequest | null = null;
    // Enough reads for V8 to take its fast path for whatever builds the object.
    for (let id = 2; id < 3000; id++) read = memo.read(call(String(id)));
    assert.ok(read && sameMap(read, parsedRequest(call('3000'))), 'a getDiagnostics');
    const openDiff = '{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"openDiff","arguments":{"tab_name":"t"}}}';
    assert.ok(sameMap(read, parsedRequest(openDiff)), 'and any other request JSON.parse reads');
  });

  test('anything but the id differing, or an id that is not one string or number, is not read', () => {
    const memo = memoOf(call('1'))!;
    const others = [
      call('1').replace('getDiagnostics', 'getDiagnosticx'),
      call('1').replace('{}}}', '{"uri":"file:///etc/passwd"}}}'),
      call('1,"id":2'), // two ids, JSON.parse would take the last
      call('null'),
      call('true'),
      call('{}'),
      call('1e999'), // not finite: classifyMessage refuses it
      call('"unterminated'),
      `${call('1')} `,
      ` ${call('1')}`,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
    ];
    for (const text of others) assert.equal(memo.read(text), null, text);
  });

  test('a non-ASCII, long or id-less request is not remembered', () => {
    assert.equal(memoOf(call('1').replace('{}}}', '{"uri":"file:///tmp/é.ts"}}}')), null);
    assert.equal(memoOf(call('1').replace('{}}}', `{"uri":"file:///${'a'.repeat(3000)}"}}}`)), null);
    // The id found twice at the top level: json-check cannot place it, so nothing is remembered.
    assert.equal(memoOf('{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{}}'), null);
  });

  test('a request relayed with a remembered params is encoded as JSON.stringify encodes it', () => {
    const memo = memoOf(call('"a"'))!;
    const params = memo.read(call('"b"'))!.params;
    for (const id of [5, 'x"y', 'é']) {
      assert.equal(knownRequestJson(id, 'tools/call', params), JSON.stringify(request(id, 'tools/call', params)));
    }
    // Params no memo holds: the caller encodes them itself.
    assert.equal(knownRequestJson(5, 'tools/call', { name: 'getDiagnostics', arguments: {} }), undefined);
    assert.equal(knownRequestJson(5, 'initialize', undefined), undefined);
  });
});
