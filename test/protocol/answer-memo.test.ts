import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AnswerMemo } from '../../src/protocol/answer-memo.ts';
import { checkedEnvelope } from '../../src/protocol/json-check.ts';

/** An editor's getDiagnostics answer, as it repeats while nothing changes. */
const answer = (id: string): Buffer =>
  Buffer.from(`{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"[{\\"uri\\":\\"file:///w/src/é.ts\\",\\"diagnostics\\":[]}]"}]}}`, 'utf8');

function memoOf(bytes: Buffer): AnswerMemo | null {
  const envelope = checkedEnvelope(bytes);
  assert.ok(envelope);
  return AnswerMemo.of(bytes, envelope);
}

describe('answer memo', () => {
  test('the same answer under another integer id has the envelope json-check finds, its id placed', () => {
    const memo = memoOf(answer('7'))!;
    for (const id of ['8', '0', '10', '123456789', '9999999999999']) {
      assert.deepEqual(memo.match(answer(id)), checkedEnvelope(answer(id)), id);
    }
  });

  test('any other byte, or an id that is not an integer JSON reads as one, is checked as usual', () => {
    const memo = memoOf(answer('7'))!;
    const others = [
      answer('"7"'),
      answer('-7'),
      answer('07'), // not JSON: json-check refuses it too
      answer('7.5'),
      answer('7e2'),
      answer('7,"id":8'),
      answer(''),
      Buffer.from(answer('8').toString('utf8').replace('diagnostics', 'diagnosticz')),
      Buffer.from(answer('8').toString('utf8').replace('}}', '}} ')),
      Buffer.from(answer('8').toString('utf8').slice(0, -1)), // cut short: not JSON
      answer('8').subarray(1),
    ];
    for (const bytes of others) assert.equal(memo.match(bytes), null, bytes.toString('utf8'));
  });

  test('the memo keeps its own copy of the bytes it was made from', () => {
    const bytes = answer('7');
    const memo = memoOf(bytes)!;
    bytes.write('X', bytes.indexOf('result'));
    assert.notEqual(memo.match(answer('8')), null);
  });

  test('a long answer, or one under a string or fractional id, is not remembered', () => {
    assert.equal(memoOf(Buffer.from(`{"jsonrpc":"2.0","id":1,"result":"${'a'.repeat(5000)}"}`)), null);
    assert.equal(memoOf(answer('"a"')), null);
    assert.equal(memoOf(answer('1.5')), null);
  });
});
