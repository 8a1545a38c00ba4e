// The lazy reader must agree with JSON.parse on everything it reads, and leave only big strings as bytes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { encodeJson, encodeJsonPieces, holdsLazyText, LazyText, parseLazily } from '../../src/protocol/lazy-json.ts';

/** The value with every LazyText decoded, to compare with JSON.parse. */
function decoded(value: unknown): unknown {
  if (value instanceof LazyText) return value.value();
  if (Array.isArray(value)) return value.map(decoded);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, decoded(v)]));
  }
  return value;
}

const SAMPLES = [
  '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":"a \\"quoted\\" \\\\ path\\\\\\n\\ttab é 日本 🚀 \\u00e9\\ud83d\\ude80"}]}}',
  ' { "id" : "x-1" , "method" : "tools/call" , "params" : { "name" : "openDiff" , "arguments" : { } } } ',
  '[1, -2.5e3, 0, true, false, null, [], {}, [[["deep"]]], "\\\\", "\\\\\\"", ""]',
  '{"a":{"b":{"c":[1,{"d":"e"}]}},"__proto__":{"polluted":1},"n":-0.0001}',
  '"just a string"',
  '42',
];

test('reads what JSON.parse reads, to the same value, whatever the size bound', () => {
  for (const text of SAMPLES) {
    for (const lazyBytes of [1, 4, 16, 1 << 20]) {
      const value = parseLazily(Buffer.from(text), lazyBytes)?.value;
      assert.deepEqual(decoded(value), JSON.parse(text), `${text} with lazyBytes ${lazyBytes}`);
    }
  }
  const proto = parseLazily(Buffer.from(SAMPLES[3]!), 1 << 20)?.value as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype, '"__proto__" is a key, not a prototype');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('only strings at or above the bound stay as bytes, and their raw bytes are those of the frame', () => {
  const big = 'line with "quotes" and \\ and ü\n'.repeat(100);
  const frame = Buffer.from(JSON.stringify({ id: 3, result: { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: big }] } }));
  const value = parseLazily(frame, 1024)?.value as { id: number; result: { content: { text: unknown }[] } };
  assert.equal(value.id, 3);
  assert.equal(value.result.content[0]!.text, 'FILE_SAVED');
  const lazy = value.result.content[1]!.text;
  assert.ok(lazy instanceof LazyText);
  assert.equal(lazy.raw.toString(), JSON.stringify(big));
  assert.equal(lazy.value(), big);
});

test('anything it cannot read is left to JSON.parse (undefined): malformed, trailing bytes, too deep', () => {
  for (const text of ['{oops', '{"a":1,}', '{"a" 1}', '[1 2]', '{"a":"unterminated}', '{"a":1} x', '', 'tru', '{"a":01x}', `${'['.repeat(100)}${']'.repeat(100)}`]) {
    assert.equal(parseLazily(Buffer.from(text), 1 << 20), undefined, text);
  }
});

test('a malformed big string is found when it is read, not before', () => {
  const frame = Buffer.from(`{"text":"${'x'.repeat(100)}\\q"}`);
  const value = parseLazily(frame, 10)?.value as { text: LazyText };
  assert.ok(value.text instanceof LazyText);
  assert.throws(() => value.text.value(), SyntaxError);
});

test('encodeJson writes what JSON.stringify writes, undefined and functions dropped alike', () => {
  const values: unknown[] = [
    { a: 1, b: undefined, c: () => 1, d: [undefined, () => 1, 'x'], e: { toJSON: () => 'as json' }, f: null, g: 'é "q" \\ \n' },
    [1, 'two', { three: [3] }],
    'plain',
    null,
  ];
  for (const value of values) assert.equal(encodeJson(value).toString(), JSON.stringify(value));
});

test('encodeJson writes each LazyText as the bytes it arrived in, never decoding it', () => {
  for (const text of SAMPLES) {
    const value = parseLazily(Buffer.from(text), 1)?.value;
    const encoded = encodeJson({ wrapped: value });
    assert.deepEqual(JSON.parse(encoded.toString()), { wrapped: JSON.parse(text) }, text);
  }
  const raw = '"\\u00e9 stays escaped, \\/ too"';
  const lazy = parseLazily(Buffer.from(`{"t":${raw}}`), 1)?.value as { t: LazyText };
  const original = LazyText.prototype.value;
  LazyText.prototype.value = () => assert.fail('decoded');
  try {
    assert.equal(encodeJson({ content: [{ type: 'text', text: lazy.t }] }).toString(), `{"content":[{"type":"text","text":${raw}}]}`);
    assert.equal(holdsLazyText({ content: [{ text: lazy.t }] }), true);
    assert.equal(holdsLazyText({ content: [{ text: 'x' }] }), false);
  } finally {
    LazyText.prototype.value = original;
  }
  assert.equal(JSON.stringify(lazy), '{"t":"é stays escaped, / too"}', 'JSON.stringify still gets its value');
});

test('a known big string standing byte for byte in a frame is found by comparing, and is that very LazyText', () => {
  const big = 'const s = "a \\"b\\" \\\\ é";\n'.repeat(200);
  const proposed = parseLazily(Buffer.from(JSON.stringify({ text: big })), 1024)?.value as { text: LazyText };
  const saved = Buffer.from(JSON.stringify({ id: 1, result: { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: big }] } }));
  const same = parseLazily(saved, 1024, [proposed.text])?.value as { result: { content: { text: unknown }[] } };
  assert.equal(same.result.content[1]!.text, proposed.text, 'the known LazyText itself');
  const edited = Buffer.from(JSON.stringify({ id: 1, result: { content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: `${big}x` }] } }));
  const other = parseLazily(edited, 1024, [proposed.text])?.value as { result: { content: { text: LazyText }[] } };
  assert.notEqual(other.result.content[1]!.text, proposed.text);
  assert.equal(other.result.content[1]!.text.value(), `${big}x`, 'a string that only starts the same is scanned to its real end');
});

test('encodeJsonPieces leaves each LazyText’s bytes where they are, between the pieces around them', () => {
  const frame = Buffer.from(JSON.stringify({ text: 'x'.repeat(2000) }));
  const lazy = (parseLazily(frame, 1024)?.value as { text: LazyText }).text;
  const pieces = encodeJsonPieces({ a: 1, text: lazy, b: [2] });
  assert.equal(pieces.length, 3);
  assert.equal(pieces[1]!.buffer, frame.buffer, 'not copied');
  assert.equal(Buffer.concat(pieces).toString(), `{"a":1,"text":${JSON.stringify('x'.repeat(2000))},"b":[2]}`);
});

test('says where the top-level "id" value sits, however its key is written, and not a nested one', () => {
  for (const [text, id] of [
    ['{"params":{"id":99},"id":7.000000000000001,"method":"m"}', '7.000000000000001'],
    [' { "jsonrpc" : "2.0" , "\\u0069d" : "x-\\"1" } ', '"x-\\"1"'],
    ['{"result":{"content":[{"id":1}]},"id":  12 }', '12'],
  ] as const) {
    const bytes = Buffer.from(text);
    const read = parseLazily(bytes, 1)!;
    assert.ok(read.idAt, text);
    assert.equal(bytes.toString('utf8', read.idAt.start, read.idAt.end), id, text);
  }
  assert.equal(parseLazily(Buffer.from('{"params":{"id":1}}'), 1)!.idAt, null, 'no top-level id');
});

test('a frame with a key twice in one object is not read lazily (peers disagree which one counts)', () => {
  for (const text of ['{"id":1,"method":"m","id":2}', '{"id":1,"params":{"arguments":{"tab_name":"a","tab_name":"b"}}}', '{"a":1,"\\u0061":2}']) {
    assert.equal(parseLazily(Buffer.from(text), 1), undefined, text);
  }
});

test('its objects have the hidden classes JSON.parse gives the same message small (optimized code meets no new shape)', () => {
  setFlagsFromString('--allow-natives-syntax');
  const sameMap = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean;
  const message = (contents: string): string =>
    JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'openDiff', arguments: { old_file_path: '/p/a.ts', new_file_contents: contents, tab_name: 't' } } });
  type Call = { params: { arguments: { new_file_contents: unknown } } };
  const small = JSON.parse(message('x')) as Call;
  const big = parseLazily(Buffer.from(message('const a = 1;\n'.repeat(100))), 1024)?.value as Call;
  assert.ok(big.params.arguments.new_file_contents instanceof LazyText);
  assert.ok(sameMap(big, small), 'the request');
  assert.ok(sameMap(big.params, small.params), 'its params');
  assert.ok(sameMap(big.params.arguments, small.params.arguments), 'its arguments, a LazyText where the string was');
});
