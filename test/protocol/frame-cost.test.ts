// Weighing a frame before parsing it: what its values would cost, and the envelope a refused
// frame is answered by, both read from its bytes without parsing it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTAINER_COST, costLimit, MAX_DEPTH, peekEnvelope, weighFrame } from '../../src/protocol/frame-cost.ts';
import { topLevelIdAt } from '../../src/protocol/json-scan.ts';

const frame = (text: string): Buffer => Buffer.from(text);

test('a frame of big strings weighs about its size, and is let in', () => {
  const contents = 'const s = "a \\"quoted\\" path";\n'.repeat(100_000);
  const bytes = frame(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'openDiff', arguments: { new_file_contents: contents, tab_name: 'pi-write:1' } } }));
  const weight = weighFrame(bytes);
  assert.ok(weight.ok);
  assert.ok(weight.cost >= bytes.length * 0.9 && weight.cost <= bytes.length * 1.1, `${weight.cost} for ${bytes.length} bytes`);
});

test('a frame dense with little values is refused unread, saying so; one with a few is not', () => {
  const n = 200_000;
  for (const unit of ['{}', '[]', '0', '{"a":0}', 'true', '[[],{}]']) {
    const text = `{"jsonrpc":"2.0","id":1,"method":"x","params":[${Array(n).fill(unit).join(',')}]}`;
    const weight = weighFrame(frame(text));
    assert.equal(weight.ok, false, unit);
    assert.match(weight.ok ? '' : weight.problem, /holding so many JSON values \(objects, arrays, numbers\) that reading it would take over [\d.]+ MiB is not read/);
  }
  // A tool list's worth of small values is far from the limit.
  const tools = Array.from({ length: 40 }, (_, i) => ({ name: `tool${i}`, description: 'd', inputSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } }));
  assert.ok(weighFrame(frame(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools } }))).ok);
  // The room every frame has: a small frame of empty objects still passes.
  const small = `[${Array(1000).fill('{}').join(',')}]`;
  assert.ok(1000 * CONTAINER_COST < costLimit(small.length));
  assert.ok(weighFrame(frame(small)).ok);
});

test('nesting past the limit is refused; at the limit it is not; a malformed frame is left to JSON.parse', () => {
  assert.ok(weighFrame(frame(`${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`)).ok);
  const deep = weighFrame(frame(`${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`));
  assert.equal(deep.ok, false);
  assert.match(deep.ok ? '' : deep.problem, /nested deeper than 64 levels/);
  // Brackets inside strings are text, not nesting.
  assert.ok(weighFrame(frame(JSON.stringify({ text: '['.repeat(10_000) }))).ok);
  for (const text of ['{"a":"unterminated', '{oops', '', ']]]}}}']) assert.ok(weighFrame(frame(text)).ok, text);
});

test('a refused frame is answered by its envelope, read without the rest: id, method, tool and tab name', () => {
  const head = '{"jsonrpc":"2.0", "id" : 7.5, "method":"tools/call","params":{"name":"openDiff","arguments":{"tab_name":"pi-write:\\"x\\"","extra":[';
  // Everything needed comes first: the walk stops there (the rest does not even end).
  assert.deepEqual(peekEnvelope(frame(`${head}[[[[{`)), { id: 7.5, method: 'tools/call', response: false, tool: 'openDiff', tabName: 'pi-write:"x"' });
  // Fields after the junk are found by skipping it, strings with brackets and quotes included.
  const junkFirst = `{"params":{"arguments":{"extra":[{},"]}\\"",[[]]],"tab_name":"t"},"name":"openDiff"},"method":"tools/call","id":"r-1"}`;
  assert.deepEqual(peekEnvelope(frame(junkFirst)), { id: 'r-1', method: 'tools/call', response: false, tool: 'openDiff', tabName: 't' });
  assert.deepEqual(peekEnvelope(frame('{"jsonrpc":"2.0","id":3,"result":{"content":[{}]}}')), { id: 3, method: null, response: true, tool: null, tabName: null });
  // What cannot be read stays null: an id that is an object, a huge method name, no object at all.
  assert.deepEqual(peekEnvelope(frame(`{"id":{"a":1},"method":"${'m'.repeat(5000)}"}`)), { id: null, method: null, response: false, tool: null, tabName: null });
  assert.deepEqual(peekEnvelope(frame('[1,2]')), { id: null, method: null, response: false, tool: null, tabName: null });
});

test('an answer’s top-level id is found in its bytes, whatever comes before it; twice, or not at the top, it is not', () => {
  const at = (text: string): string | null => {
    const range = topLevelIdAt(frame(text));
    return range === null ? null : text.slice(range.start, range.end);
  };
  assert.equal(at('{"result":{"content":[{"id":1,"text":"\\"id\\":2"}]},"jsonrpc":"2.0","id":7}'), '7');
  assert.equal(at(' { "id" : "r-\\"1" , "result" : {} } '), '"r-\\"1"');
  assert.equal(at('{"\\u0069d":12,"result":null}'), '12');
  assert.equal(at('{"id":1,"result":{},"id":2}'), null, 'twice');
  assert.equal(at('{"id":1,"result":{},"\\u0069d":2}'), null, 'twice, once escaped');
  assert.equal(at('{"result":{"id":1}}'), null, 'only nested');
  assert.equal(at('[{"id":1}]'), null);
  assert.equal(at('{"id":1,"result":{"unterminated'), null);
});
