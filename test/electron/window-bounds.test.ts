import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRect, restoreBounds } from '../../electron/main/window-bounds.ts';

const laptop = { x: 0, y: 25, width: 1440, height: 875 };
const monitor = { x: 1440, y: 0, width: 2560, height: 1440 };
const size = { width: 1200, height: 800 };

test('a window reopens where it was when that place is still on a screen', () => {
  const saved = { x: 1600, y: 100, width: 1000, height: 700 };
  assert.deepEqual(restoreBounds(saved, [laptop, monitor], size), saved);
});

test('a window whose monitor was unplugged reopens centred on the primary screen', () => {
  const saved = { x: 2000, y: 200, width: 1000, height: 700 };
  assert.deepEqual(restoreBounds(saved, [laptop], size), { x: 220, y: 113, width: 1000, height: 700 });
});

test('a window hanging off the edge is pulled fully onto its screen', () => {
  assert.deepEqual(restoreBounds({ x: 1000, y: -50, width: 1000, height: 700 }, [laptop], size), { x: 440, y: 25, width: 1000, height: 700 });
});

test('a window larger than the screen shrinks to it', () => {
  assert.deepEqual(restoreBounds({ x: 0, y: 25, width: 3000, height: 2000 }, [laptop], size), laptop);
});

test('the first time, a window opens centred at its default size', () => {
  assert.deepEqual(restoreBounds(undefined, [laptop, monitor], size), { x: 120, y: 63, width: 1200, height: 800 });
  assert.deepEqual(restoreBounds(undefined, [], size), { x: 0, y: 0, ...size });
});

test('stored bounds that are not a rectangle count as none', () => {
  assert.deepEqual(parseRect({ x: 1.4, y: 2, width: 300, height: 200 }), { x: 1, y: 2, width: 300, height: 200 });
  for (const bad of [null, 'x', { x: 1, y: 2, width: 0, height: 5 }, { x: 1, y: 2, width: '300', height: 200 }, { x: NaN, y: 0, width: 1, height: 1 }]) {
    assert.equal(parseRect(bad), undefined, JSON.stringify(bad));
  }
});
