import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VIEWS, parseRoute, routeHash } from '../../renderer/src/app/route.ts';

test('a hosted pi session can be opened straight from the URL', () => {
  assert.deepEqual(parseRoute('#/sessions/h-1'), { view: 'sessions', id: 'h-1' });
  assert.deepEqual(parseRoute(routeHash({ view: 'sessions', id: 'a/b c' })), { view: 'sessions', id: 'a/b c' });
  assert.deepEqual(parseRoute('#/sessions'), { view: 'sessions', id: null });
});

test('the Sessions view has its own number key, distinct from the other views', () => {
  assert.equal(VIEWS.find((v) => v.view === 'sessions')?.key, '5');
  const keys = VIEWS.map((v) => v.key);
  assert.equal(new Set(keys).size, keys.length);
});
