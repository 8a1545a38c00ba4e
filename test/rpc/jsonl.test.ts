import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonlDecoder, encodeJsonl, type JsonlLineError } from '../../src/rpc/jsonl.ts';

function decoder(maxLineChars?: number) {
  const records: unknown[] = [];
  const errors: JsonlLineError[] = [];
  const d = new JsonlDecoder({
    onRecord: (value) => records.push(value),
    onError: (err) => errors.push(err),
    ...(maxLineChars !== undefined ? { maxLineChars } : {}),
  });
  return { d, records, errors };
}

test('U+2028 and U+2029 inside a JSON string stay inside one record', () => {
  const { d, records, errors } = decoder();
  const text = 'line\u2028separator\u2029paragraph';
  // Raw separators, as JSON.stringify writes them (readline would split here).
  d.push(Buffer.from(`${JSON.stringify({ type: 'a', text })}\n${JSON.stringify({ type: 'b' })}\n`));
  assert.deepEqual(records, [{ type: 'a', text }, { type: 'b' }]);
  assert.deepEqual(errors, []);
});

test('CRLF line ends are accepted: one CR before LF is dropped', () => {
  const { d, records } = decoder();
  d.push('{"n":1}\r\n{"n":2}\r\n');
  assert.deepEqual(records, [{ n: 1 }, { n: 2 }]);
});

test('a record split across chunks arrives once it is complete', () => {
  const { d, records } = decoder();
  d.push('{"type":"mess');
  assert.deepEqual(records, []);
  d.push('age_update","delta":"hi"}\n{"ty');
  assert.deepEqual(records, [{ type: 'message_update', delta: 'hi' }]);
  d.push('pe":"x"}\n');
  assert.deepEqual(records, [{ type: 'message_update', delta: 'hi' }, { type: 'x' }]);
});

test('a multi-byte character split between chunks is decoded whole', () => {
  const { d, records, errors } = decoder();
  const text = 'é\u2028🎉 done';
  const bytes = Buffer.from(`${JSON.stringify({ text })}\n`);
  // Cut inside every character: one byte at a time.
  for (let i = 0; i < bytes.length; i++) d.push(bytes.subarray(i, i + 1));
  assert.deepEqual(records, [{ text }]);
  assert.deepEqual(errors, []);
});

test('empty and blank lines are skipped silently', () => {
  const { d, records, errors } = decoder();
  d.push('\n\n   \n{"ok":true}\n\r\n');
  assert.deepEqual(records, [{ ok: true }]);
  assert.deepEqual(errors, []);
});

test('a garbage line is reported with a preview and the stream goes on', () => {
  const { d, records, errors } = decoder();
  d.push('{"a":1}\nthis is not json\n{"b":2}\n');
  assert.deepEqual(records, [{ a: 1 }, { b: 2 }]);
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.message, /^line is not JSON: /);
  assert.equal(errors[0]!.preview, 'this is not json');
});

test('a last line without LF counts when the stream ends', () => {
  const { d, records } = decoder();
  d.push('{"a":1}\n{"b":2}');
  assert.deepEqual(records, [{ a: 1 }]);
  d.end();
  assert.deepEqual(records, [{ a: 1 }, { b: 2 }]);
});

test('an over-long line is dropped with an error, and the next line is read normally', () => {
  const { d, records, errors } = decoder(32);
  d.push(`{"big":"${'x'.repeat(20)}`);
  d.push(`${'y'.repeat(20)}"}`);
  assert.equal(errors.length, 1);
  assert.match(errors[0]!.message, /over 32 characters/);
  d.push(`${'z'.repeat(50)}"}\n{"small":1}\n`);
  assert.deepEqual(records, [{ small: 1 }]);
  assert.equal(errors.length, 1, 'the tail of the long line is not a second error');
});

test('encodeJsonl writes one line per record and keeps U+2028 raw', () => {
  const line = encodeJsonl({ type: 'prompt', message: 'a\u2028b\nc' });
  assert.equal(line.split('\n').length, 2, 'only the terminating LF (the \\n in the string is escaped)');
  assert.ok(line.includes('\u2028'));
  const { d, records } = decoder();
  d.push(line);
  assert.deepEqual(records, [{ type: 'prompt', message: 'a\u2028b\nc' }]);
});
