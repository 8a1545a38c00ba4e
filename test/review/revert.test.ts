import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changeModel } from '../../src/review/changes.ts';
import { revertChanges } from '../../src/review/revert.ts';

const lines = (...l: string[]): string => l.map((x) => `${x}\n`).join('');

// Three changes: line b changed, d removed, g added after f.
const BEFORE = lines('a', 'b', 'c', 'd', 'e', 'f', 'h');
const WRITTEN = lines('a', 'B', 'c', 'e', 'f', 'g', 'h');

function revert(current: string, which: number[]) {
  return revertChanges({ before: BEFORE, written: WRITTEN, current, which });
}

describe('taking an edit back in the file as it is now', () => {
  test('the fixture has three changes, numbered in file order', () => {
    assert.equal(changeModel(BEFORE, WRITTEN).changes.length, 3);
  });

  test('every change taken back from an untouched file gives the file as it was', () => {
    assert.deepEqual(revert(WRITTEN, [0, 1, 2]), { ok: true, text: BEFORE });
  });

  test('one change taken back leaves the others as written', () => {
    assert.deepEqual(revert(WRITTEN, [1]), { ok: true, text: lines('a', 'B', 'c', 'd', 'e', 'f', 'g', 'h') });
  });

  test('later edits to other lines stay, wherever they moved the change', () => {
    // Two lines added at the top and the last line changed since.
    const current = lines('x', 'y', 'a', 'B', 'c', 'e', 'f', 'g', 'H');
    assert.deepEqual(revert(current, [0, 1, 2]), { ok: true, text: lines('x', 'y', 'a', 'b', 'c', 'd', 'e', 'f', 'H') });
  });

  test('a later edit of a neighbouring line does not stop it', () => {
    const current = lines('A', 'B', 'C', 'e', 'f', 'g', 'h');
    assert.deepEqual(revert(current, [0]), { ok: true, text: lines('A', 'b', 'C', 'e', 'f', 'g', 'h') });
  });

  test('a change whose lines changed since is refused by number, and nothing else is taken back', () => {
    const current = lines('a', 'B!', 'c', 'e', 'f', 'g', 'h');
    const result = revert(current, [0, 2]);
    assert.equal(result.ok, false);
    assert.deepEqual(
      !result.ok && result.conflicts.map((c) => c.index),
      [0],
    );
    assert.match(!result.ok ? result.conflicts[0]!.why : '', /line 2 of what was written changed since/);
    // The other change alone still can be.
    assert.deepEqual(revert(current, [2]), { ok: true, text: lines('a', 'B!', 'c', 'e', 'f', 'h') });
  });

  test('lines the edit removed go back between the same two lines after they moved', () => {
    const current = lines('top', 'a', 'B', 'c', 'e', 'f', 'g', 'h');
    assert.deepEqual(revert(current, [1]), { ok: true, text: lines('top', 'a', 'B', 'c', 'd', 'e', 'f', 'g', 'h') });
  });

  test('something put since exactly where removed lines would go back is a conflict', () => {
    const current = lines('a', 'B', 'c', 'new', 'e', 'f', 'g', 'h');
    const result = revert(current, [1]);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.conflicts[0]!.why : '', /where it removed lines/);
  });

  test('a change already gone from the file (taken back before, or rewritten) is a conflict', () => {
    const once = revert(WRITTEN, [2]);
    assert.ok(once.ok);
    assert.equal(revertChanges({ before: BEFORE, written: WRITTEN, current: once.text, which: [2] }).ok, false);
  });

  test('a number the edit has no change for is refused', () => {
    const result = revert(WRITTEN, [5]);
    assert.equal(result.ok, false);
    assert.match(!result.ok ? result.conflicts[0]!.why : '', /has 3 changes/);
  });

  test('a file without a final newline, and lines added after its last line since', () => {
    const before = 'one\ntwo';
    const written = 'one\nTWO';
    assert.deepEqual(revertChanges({ before, written, current: written, which: [0] }), { ok: true, text: before });
    // Its last line changed (it has a break now), so that change cannot be taken back.
    assert.equal(revertChanges({ before, written, current: 'one\nTWO\nthree\n', which: [0] }).ok, false);
    // A restored line without a break that now has lines after it gets one.
    assert.deepEqual(revertChanges({ before: 'a\nb', written: 'a\nb\nc\n', current: 'a\nb\nc\n', which: [0] }), { ok: true, text: 'a\nb' });
  });

  test('CRLF files keep their line endings', () => {
    const before = 'a\r\nb\r\nc\r\n';
    const written = 'a\r\nB\r\nc\r\n';
    const current = 'z\r\na\r\nB\r\nc\r\n';
    assert.deepEqual(revertChanges({ before, written, current, which: [0] }), { ok: true, text: 'z\r\na\r\nb\r\nc\r\n' });
  });

  test('a file the edit created, taken back whole, is empty', () => {
    assert.deepEqual(revertChanges({ before: '', written: 'x\ny\n', current: 'x\ny\n', which: [0] }), { ok: true, text: '' });
  });
});
