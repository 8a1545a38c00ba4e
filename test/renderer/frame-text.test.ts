import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isCut, prettyFrame } from '../../renderer/src/traffic/frame-text.ts';

test('a whole frame is shown as indented JSON', () => {
  assert.equal(prettyFrame('{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}'), '{\n  "jsonrpc": "2.0",\n  "id": 1,\n  "result": {\n    "a": [\n      1,\n      2\n    ]\n  }\n}');
});

test('a frame cut short is still indented, its strings kept as they are', () => {
  const cut = '{"method":"tools/call","params":{"name":"openDiff","arguments":{"new_file_contents":"a, {b}: [c]\\n\\"q\\"…';
  assert.equal(
    prettyFrame(cut),
    '{\n  "method": "tools/call",\n  "params": {\n    "name": "openDiff",\n    "arguments": {\n      "new_file_contents": "a, {b}: [c]\\n\\"q\\"…',
  );
});

test('text that is not JSON is left readable', () => {
  assert.equal(prettyFrame('not json, {really}'), 'not json, {really}');
});

test('a frame is cut when the log kept less than it carried', () => {
  assert.equal(isCut({ preview: '{"a":1}', bytes: 7 }), false);
  assert.equal(isCut({ preview: `${'x'.repeat(400)}…`, bytes: 10_000 }), true);
  const whole = '{"text":"and so on…"}';
  assert.equal(isCut({ preview: whole, bytes: new TextEncoder().encode(whole).length }), false, 'a whole frame with a "…" of its own');
});
