// The one change model: what the review editor, the CLI and the agent's answer count as "change
// 2 of 41", and what taking some of them writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyChoices, changeModel, choicesIn, lineCounts, splitLines, unifiedPatch } from '../../src/review/changes.ts';
import { BIG_CHANGED_LINES, BIG_DISK, BIG_PROPOSAL, DISK, PROPOSAL, bigWithChanges, withChanges } from '../ui/review-fixtures.ts';

test('a proposal with three separate changes is three changes, with the lines each adds and removes', () => {
  const model = changeModel(DISK, PROPOSAL);
  assert.equal(model.changes.length, 3);
  assert.deepEqual(
    model.changes.map((c) => [c.toB - c.fromB, c.toA - c.fromA]),
    [
      [1, 1],
      [1, 3],
      [4, 0],
    ],
  );
  assert.deepEqual(lineCounts(model.changes), { added: 6, removed: 4 });
});

test('taking some changes writes exactly those, for every combination', () => {
  const model = changeModel(DISK, PROPOSAL);
  const sets: (1 | 2 | 3)[][] = [[], [1], [2], [3], [1, 2], [1, 3], [2, 3], [1, 2, 3]];
  for (const set of sets) {
    const written = applyChoices(model, new Set(set.map((n) => n - 1)));
    assert.equal(written, withChanges(...set), `changes ${set.join(',')}`);
    assert.deepEqual([...(choicesIn(model, written) ?? [])].sort(), set.map((n) => n - 1), `recognised: ${set.join(',')}`);
  }
  assert.equal(choicesIn(model, `${PROPOSAL}// typed\n`), null, 'typed text is not a set of choices');
});

test('a 3000-line file with 41 one-line changes is exactly 41 changes of one line each', () => {
  const model = changeModel(BIG_DISK, BIG_PROPOSAL);
  assert.equal(model.precise, true);
  assert.equal(model.changes.length, 41);
  assert.deepEqual(
    model.changes.map((c) => [c.fromA, c.toA, c.fromB, c.toB]),
    BIG_CHANGED_LINES.map((at) => [at, at + 1, at, at + 1]),
  );
  assert.equal(applyChoices(model, new Set([0, 40])), bigWithChanges([1, 41]));
  const patch = unifiedPatch(model, { path: 'big.ts', oldHeader: 'on disk', newHeader: 'proposed' });
  assert.equal(patch.match(/^@@ /gm)?.length, 41, 'one hunk per change');
  assert.match(patch, /^@@ -28,7 \+28,7 @@ change 1 of 41$/m);
});

test('a last line without a line break, and CRLF files, keep their bytes', () => {
  const model = changeModel('a\nb', 'a\nb\nc');
  assert.equal(model.changes.length, 1);
  assert.equal(applyChoices(model, new Set()), 'a\nb');
  assert.equal(applyChoices(model, new Set([0])), 'a\nb\nc');
  assert.match(unifiedPatch(model, { path: 'f', oldHeader: 'x', newHeader: 'y' }), /-b\n\\ No newline at end of file\n\+b\n\+c\n\\ No newline/);
  const crlf = changeModel('one\r\ntwo\r\nthree\r\n', 'one\r\n2\r\nthree\r\n');
  assert.equal(crlf.changes.length, 1);
  assert.equal(applyChoices(crlf, new Set()), 'one\r\ntwo\r\nthree\r\n');
  assert.deepEqual(splitLines('x\ry\nz'), ['x\r', 'y\n', 'z']);
});

test('texts too different to diff within the limit are one change, said to be imprecise', () => {
  const a = Array.from({ length: 40_000 }, (_, i) => `a${i}\n`).join('');
  const b = Array.from({ length: 40_000 }, (_, i) => `b${i}\n`).join('');
  const model = changeModel(`same\n${a}end\n`, `same\n${b}end\n`);
  assert.equal(model.precise, false);
  assert.deepEqual(model.changes, [{ index: 0, fromA: 1, toA: 40_001, fromB: 1, toB: 40_001 }]);
});
