import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRoute, routeHash } from '../../renderer/src/app/route.ts';
import { REVIEW_SHORTCUTS, reviewCommandFor } from '../../renderer/src/review/shortcuts.ts';

test('window routes survive a round trip through the hash', () => {
  for (const route of [
    { view: 'review', id: null },
    { view: 'review', id: 'diff/7 ü' },
    { view: 'traffic', id: 's1' },
    { view: 'settings', id: null },
  ] as const) {
    assert.deepEqual(parseRoute(routeHash(route)), route);
  }
  assert.deepEqual(parseRoute(''), { view: 'review', id: null });
  assert.deepEqual(parseRoute('#/nonsense/3'), { view: 'review', id: null });
  assert.deepEqual(parseRoute('#/pairing/'), { view: 'pairing', id: null });
});

const key = (k: string, more: Partial<Parameters<typeof reviewCommandFor>[0]> = {}) =>
  reviewCommandFor({ key: k, ctrlKey: false, metaKey: false, altKey: false, inEditableTarget: false, ...more });

test('review shortcuts act only outside text fields and without modifiers', () => {
  assert.equal(key('a'), 'accept');
  assert.equal(key('r'), 'reject');
  assert.equal(key('j'), 'nextDiff');
  assert.equal(key('k'), 'previousDiff');
  assert.equal(key('n'), 'nextChange');
  assert.equal(key('a', { inEditableTarget: true }), null, 'typing "a" in the diff editor must not accept');
  assert.equal(key('a', { ctrlKey: true }), null, 'Ctrl+A selects all');
  assert.equal(key('r', { metaKey: true }), null, 'Cmd+R reloads');
  assert.equal(key('y'), 'acceptChange');
  assert.equal(key('x'), 'rejectChange');
  assert.equal(key('x', { inEditableTarget: true }), null, 'typing "x" in the diff editor must not reject a change');
  assert.equal(key('q'), null);
});

test('every review shortcut has a distinct key and a legend label', () => {
  const keys = REVIEW_SHORTCUTS.map((s) => s.key);
  assert.equal(new Set(keys).size, keys.length);
  assert.ok(REVIEW_SHORTCUTS.every((s) => s.label.length > 0));
});
