import { test } from 'node:test';
import assert from 'node:assert/strict';
import { layoutFor, NARROW_PANEL_PX, parseChoice, toggled } from '../../renderer/src/review/layout.ts';

test('the diff is unified by default when its area is narrow, side by side when wide', () => {
  assert.equal(layoutFor('auto', 546), 'unified', 'an 800 px window');
  assert.equal(layoutFor('auto', 1010), 'split', 'a 1280 px window');
  assert.equal(layoutFor('auto', NARROW_PANEL_PX), 'split');
  assert.equal(layoutFor('auto', 0), 'split', 'not measured yet');
});

test("the person's choice wins over the width; v shows the other layout, and a second v goes back to automatic", () => {
  assert.equal(layoutFor('split', 400), 'split');
  assert.equal(layoutFor('unified', 1400), 'unified');
  assert.equal(toggled('auto', 'split'), 'unified');
  assert.equal(toggled('auto', 'unified'), 'split');
  assert.equal(toggled('unified', 'split'), 'auto');
  assert.equal(toggled('split', 'unified'), 'auto');
  assert.equal(parseChoice('unified'), 'unified');
  assert.equal(parseChoice(null), 'auto');
  assert.equal(parseChoice('sideways'), 'auto', 'anything unknown in storage means automatic');
});
