import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openFileLimit, pendingCapFor } from '../../src/transport/connection-gate.ts';

const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            ${soft.padEnd(20)} 1048576              files
Max locked memory         8388608              8388608              bytes
`;

test('the descriptor limit is read from /proc/self/limits, with 1024 where it cannot be', () => {
  assert.equal(openFileLimit(() => limits('120')), 120);
  assert.equal(openFileLimit(() => limits('unlimited')), Number.MAX_SAFE_INTEGER);
  assert.equal(openFileLimit(() => 'nothing useful'), 1024);
  assert.equal(
    openFileLimit(() => {
      throw new Error('ENOENT');
    }),
    1024,
  );
});

test('each server lets an eighth of the descriptor limit wait, between 8 and 128', () => {
  const cases: [number, number][] = [
    [20, 8],
    [120, 15],
    [1024, 128],
    [1_048_576, 128],
    [Number.MAX_SAFE_INTEGER, 128],
  ];
  for (const [limit, cap] of cases) assert.equal(pendingCapFor(limit), cap, `limit ${limit}`);
});
