import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkedEnvelope } from '../../src/protocol/json-check.ts';

const check = (text: string) => checkedEnvelope(Buffer.from(text, 'utf8'));

/** A small seeded generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STRINGS = ['', 'text', 'quote " inside', 'back\\slash', 'tab\there', 'line\nbreak', 'é ü 修正 🙂', '\u0001\u001f', '\u2028', '{"nested":"json"}', 'lone \ud800 half'];

function value(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 4 ? 5 : 7));
  switch (pick) {
    case 0:
      return STRINGS[Math.floor(next() * STRINGS.length)];
    case 1:
      return [0, -1, 7, 1.5, -0.25, 1e21, 12345678901234, 5e-324][Math.floor(next() * 8)];
    case 2:
      return [true, false, null][Math.floor(next() * 3)];
    case 3:
      return Math.floor(next() * 1e6);
    case 4:
      return STRINGS[Math.floor(next() * STRINGS.length)]!.repeat(3);
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, (_, i) => [`${STRINGS[Math.floor(next() * STRINGS.length)]}${i}`, value(next, depth + 1)]));
  }
}

/** JSON text of `v` with whitespace (of the four kinds JSON allows) after some tokens. */
function spaced(text: string, next: () => number): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    out += c;
    if (c === '"' && text[i - 1] !== '\\') inString = !inString;
    else if (c === '\\' && inString) out += text[++i]!;
    if (!inString && ',:[{'.includes(c) && next() < 0.3) out += [' ', '\t', '\n', '\r\n  '][Math.floor(next() * 4)];
  }
  return out;
}

describe('checking a frame is JSON on its bytes', () => {
  test('accepts JSON-RPC messages as editors write them, and finds the one top-level id', () => {
    const answer = '{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"{\\"file:///a.ts\\":[]}"}]}}';
    assert.deepEqual(check(answer), { idAt: { start: 22, end: 24 }, method: false, result: true, error: false });
    const spacedOut = ' {\n  "result" : null ,\r\n\t"jsonrpc": "2.0", "id" : "s-1"\n}\n';
    const found = check(spacedOut)!;
    assert.equal(Buffer.from(spacedOut).toString('utf8', found.idAt!.start, found.idAt!.end), '"s-1"');
    assert.deepEqual(check('{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no"}}'), { idAt: { start: 22, end: 23 }, method: false, result: false, error: true });
    assert.deepEqual(check('{"jsonrpc":"2.0","method":"selection_changed","params":{}}'), { idAt: null, method: true, result: false, error: false });
    assert.deepEqual(check('{}'), { idAt: null, method: false, result: false, error: false });
  });

  test('refuses what JSON.parse refuses', () => {
    for (const text of [
      '',
      '{',
      '{"a":1,}',
      '{"a":[1,]}',
      '{"a":[,1]}',
      '{"a":01}',
      '{"a":1.}',
      '{"a":.5}',
      '{"a":1e}',
      '{"a":-}',
      '{"a":+1}',
      '{"a":"\\x"}',
      '{"a":"\\u12g4"}',
      '{"a":"\u0001"}',
      '{"a":"tab\there"}',
      '{"a":tru}',
      '{"a":nul}',
      '{"a":NaN}',
      '{"a":1}x',
      '{"a":1}{}',
      '{"a" 1}',
      '{"a":1 "b":2}',
      '{"a":"b"',
      "{'a':1}",
      '{a:1}',
      '\ufeff{"a":1}',
      '{"a":[1 2]}',
      '{"a":}',
      '{"a":[}]}',
      '{"a":{]}',
    ]) {
      assert.throws(() => JSON.parse(text), SyntaxError, `JSON.parse takes ${JSON.stringify(text)}`);
      assert.equal(check(text), null, JSON.stringify(text));
    }
  });

  test('leaves to JSON.parse what it cannot be sure of: another top level than an object, an envelope key twice or escaped, deep nesting', () => {
    for (const text of ['[1]', '"text"', '7', 'null', '{"id":1,"id":2,"result":1}', '{"result":1,"result":2}', '{"\\u0069d":1,"result":2}', `{"a":${'['.repeat(64)}${']'.repeat(64)}}`]) {
      JSON.parse(text);
      assert.equal(check(text), null, text);
    }
    assert.notEqual(check(`{"a":${'['.repeat(62)}${']'.repeat(62)}}`), null, 'nesting up to its depth is checked');
    assert.notEqual(check('{"x":{"i\\u0064":1},"y":2,"y":3}'), null, 'a key escaped below the top level, or any other key twice, is only JSON');
  });

  test('accepts every object JSON.stringify writes, with whitespace anywhere JSON allows it, and finds its id', () => {
    const next = random(31);
    for (let i = 0; i < 3000; i++) {
      const message: Record<string, unknown> = { jsonrpc: '2.0' };
      const order = ['id', 'result', 'other', 'method'].filter(() => next() < 0.7);
      for (const key of order) message[key] = key === 'id' ? [Math.floor(next() * 1e9), `s-${i}`, 0][Math.floor(next() * 3)] : value(next, 1);
      const text = spaced(JSON.stringify(message), next);
      const found = check(text);
      assert.notEqual(found, null, text);
      assert.equal(found!.method, 'method' in message, text);
      assert.equal(found!.result, 'result' in message, text);
      assert.equal(found!.error, false);
      if ('id' in message) {
        const bytes = Buffer.from(text, 'utf8');
        assert.deepEqual(JSON.parse(bytes.toString('utf8', found!.idAt!.start, found!.idAt!.end)), message.id, text);
      } else assert.equal(found!.idAt, null);
    }
  });

  test('never calls JSON what JSON.parse refuses, byte edits of real frames included', () => {
    const next = random(7);
    const pieces = ['{', '}', '[', ']', '"', '\\', ',', ':', ' ', '0', '-', '.', 'e', 'u', 't', 'n', '\u0001', 'x', 'é'];
    let checked = 0;
    for (let i = 0; i < 20000; i++) {
      const base = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: i, result: value(next, 1) }), 'utf8');
      const edits = 1 + Math.floor(next() * 3);
      let bytes = base;
      for (let e = 0; e < edits; e++) {
        const at = Math.floor(next() * (bytes.length + 1));
        const piece = Buffer.from(pieces[Math.floor(next() * pieces.length)]!, 'utf8');
        const kind = next();
        if (kind < 0.33) bytes = Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
        else if (kind < 0.66) bytes = Buffer.concat([bytes.subarray(0, at), piece, bytes.subarray(at)]);
        else bytes = Buffer.concat([bytes.subarray(0, at), piece, bytes.subarray(at + 1)]);
      }
      const found = checkedEnvelope(bytes);
      if (found === null) continue;
      checked++;
      const text = bytes.toString('utf8');
      const parsed = JSON.parse(text) as Record<string, unknown>;
      assert.equal(typeof parsed, 'object', text);
      assert.equal(found.result, 'result' in parsed, text);
      if (found.idAt) assert.deepEqual(JSON.parse(bytes.toString('utf8', found.idAt.start, found.idAt.end)), parsed.id, text);
      else assert.equal('id' in parsed, false, text);
    }
    assert.ok(checked > 1000, `edits that stayed JSON were checked too (${checked})`);
  });
});
