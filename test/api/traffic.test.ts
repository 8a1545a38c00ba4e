import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TrafficEntry } from '../../src/api/types.ts';
import { busiestSession, byteSize, durationText, filterTraffic, methodLabel, requestTimings, rowLabels, shortId } from '../../src/api/traffic.ts';
import type { Direction } from '../../src/api/traffic.ts';

function frame(at: number, dir: Direction, method: string | null, id: string | number | null, editorId: string | null = null, preview = '', tool: string | null = null): TrafficEntry {
  return { at, dir, editorId, method, tool, id, bytes: 10, preview };
}

test('each answered request shows how long it took, per direction and editor', () => {
  const entries = [
    frame(100, 'in', 'tools/call', 1),
    frame(101, 'up', 'tools/call', 7, 'e1'),
    frame(102, 'up', 'tools/call', 7, 'e2'),
    frame(130, 'down', null, 7, 'e2'),
    frame(150, 'down', null, 7, 'e1'),
    frame(151, 'out', null, 1),
    frame(160, 'in', 'notifications/initialized', null),
    frame(170, 'down', 'getSuggestions', 'x', 'e1'),
    frame(190, 'up', null, 'x', 'e1'),
    frame(200, 'out', null, 99),
  ];
  assert.deepEqual([...requestTimings(entries)].sort((a, b) => a[0] - b[0]), [
    [0, 51],
    [1, 49],
    [2, 28],
    [7, 20],
  ]);
});

test('a number id and a string id that look alike are different requests', () => {
  assert.deepEqual([...requestTimings([frame(0, 'in', 'm', 1), frame(5, 'out', null, '1')])], []);
});

test('the filter keeps chosen directions and matches method or frame text', () => {
  const entries = [frame(1, 'in', 'getDiagnostics', 1), frame(2, 'up', 'tools/call', 2, null, '{"name":"openDiff"}'), frame(3, 'out', null, 1)];
  const all = new Set<Direction>(['in', 'out', 'up', 'down']);
  assert.equal(filterTraffic(entries, { text: '', dirs: all }).length, 3);
  assert.deepEqual(filterTraffic(entries, { text: 'OPENDIFF', dirs: all }).map((e) => e.at), [2]);
  assert.deepEqual(filterTraffic(entries, { text: 'diag', dirs: all }).map((e) => e.at), [1, 3], 'with its answer');
  assert.deepEqual(filterTraffic(entries, { text: '', dirs: new Set(['out']) }).map((e) => e.at), [3]);
});

test('sizes read in bytes, KiB, MiB', () => {
  assert.equal(byteSize(512), '512 B');
  assert.equal(byteSize(2048), '2.0 KiB');
  assert.equal(byteSize(10 * 1024 * 1024), '10.0 MiB');
});

test('a tool call is labelled and found by its tool', () => {
  const call = frame(1, 'in', 'tools/call', 1, null, '{}', 'getDiagnostics');
  const entries = [call, frame(2, 'down', 'selection_changed', null), frame(3, 'out', null, 1)];
  assert.deepEqual(entries.map(methodLabel), ['tools/call getDiagnostics', 'selection_changed', '']);
  const all = new Set<Direction>(['in', 'out', 'up', 'down']);
  assert.deepEqual(filterTraffic(entries, { text: 'diagnostics', dirs: all }), [call, entries[2]]);
});

test("an answer says what it answers, and a filter on a request's method keeps its answer", () => {
  const entries = [
    frame(0, 'in', 'tools/call', 7, null, '{"name":"openDiff"}', 'openDiff'),
    frame(5, 'in', 'tools/call', 8, null, '{}', 'getDiagnostics'),
    frame(9, 'out', null, 8),
    frame(156_372, 'out', null, 7),
    frame(156_400, 'out', null, 99),
  ];
  assert.deepEqual(rowLabels(entries), ['tools/call openDiff', 'tools/call getDiagnostics', '↳ tools/call getDiagnostics', '↳ tools/call openDiff', 'reply']);
  const all = new Set<Direction>(['in', 'out', 'up', 'down']);
  assert.deepEqual(filterTraffic(entries, { text: 'openDiff', dirs: all }).map((e) => e.at), [0, 156_372]);
});

test('durations read as people say them; long ids are cut; the busiest session comes first', () => {
  assert.equal(durationText(840), '840 ms');
  assert.equal(durationText(12_400), '12.4 s');
  assert.equal(durationText(156_372), '2 min 36 s');
  assert.equal(durationText(3 * 3_600_000 + 120_000), '3 h 2 min');
  assert.equal(shortId('3f9c2a71-5b7e-4c1d-9a0e-7d2b8f6e4c13'), '3f9c2a7…');
  assert.equal(shortId(12), '12');
  assert.equal(shortId(null), '');
  assert.deepEqual(busiestSession([{ id: 's1', lastActiveAt: 5 }, { id: 's2', lastActiveAt: 9 }, { id: 's3', lastActiveAt: 1 }]), { id: 's2', lastActiveAt: 9 });
  assert.equal(busiestSession([]), null);
});
