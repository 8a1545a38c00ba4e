import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatSummary, formatTable, judge, median, percentile, spreadOf, summarize } from './report.ts';

test('percentiles use the nearest rank of the sorted samples', () => {
  const samples = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
  assert.equal(percentile(samples, 50), 5);
  assert.equal(percentile(samples, 99), 10);
  assert.equal(percentile(samples, 0), 1);
  assert.equal(median([3, 1, 2]), 2);
  assert.throws(() => percentile([], 50), /no samples/);
});

test('each kind of target passes or fails on the right side of its bound', () => {
  const row = (bare: number | null, patchbay: number | null, target: Parameters<typeof judge>[0]['target']) =>
    judge({ metric: 'm', unit: 'ms', bare, patchbay, target });
  assert.equal(row(1, 1.2, { kind: 'ratio-max', max: 1.2 }).pass, true);
  assert.equal(row(1, 1.21, { kind: 'ratio-max', max: 1.2 }).pass, false);
  assert.equal(row(100, 80, { kind: 'ratio-min', min: 0.8 }).pass, true);
  assert.equal(row(100, 79, { kind: 'ratio-min', min: 0.8 }).pass, false);
  assert.equal(row(null, 99, { kind: 'value-max', max: 100 }).pass, true);
  assert.equal(row(50, 151, { kind: 'value-max', max: 150 }).pass, false);
  assert.equal(row(2, 3, { kind: 'ratio-max', max: 2 }).ratio, 1.5);
  assert.equal(row(null, 3, { kind: 'ratio-max', max: 2 }).pass, null, 'no bare value, no ratio to judge');
});

test('the table spells out FAIL and shows a dash where there is no bare relay value', () => {
  const table = formatTable([
    judge({ metric: 'latency p50', unit: 'ms', bare: 0.1, patchbay: 0.2, target: { kind: 'ratio-max', max: 1.2 } }),
    judge({ metric: 'lockfile', unit: 'ms', bare: null, patchbay: 20, target: { kind: 'value-max', max: 100 } }),
  ]);
  const [header, , slow, lockfile] = table.split('\n');
  assert.match(header!, /metric\s+bare relay\s+patchbay\s+ratio\s+target\s+result/);
  assert.match(slow!, /latency p50\s+0\.100 ms\s+0\.200 ms\s+2\.00×\s+≤ 1\.2× bare\s+FAIL$/);
  assert.match(lockfile!, /lockfile\s+—\s+20\.00 ms\s+—\s+≤ 100 ms\s+pass$/);
});

test('over several runs a metric shows each side’s median, the spread of its ratio, and how many runs met it', () => {
  const run = (bare: number, patchbay: number) => [
    judge({ metric: 'p50', unit: 'ms', bare, patchbay, target: { kind: 'ratio-max', max: 1.2 } }),
    judge({ metric: 'lockfile', unit: 'ms', bare: null, patchbay: patchbay * 100, target: { kind: 'value-max', max: 100 } }),
  ];
  const [p50, lockfile] = summarize([run(1, 1.1), run(1, 1.3), run(2, 2.2)]);
  assert.equal(p50!.bare, 1);
  assert.equal(p50!.patchbay, 1.3);
  assert.equal(p50!.ratio, 1.1, 'the median of the runs’ own ratios, not the ratio of the medians');
  assert.equal(p50!.pass, true);
  assert.equal(spreadOf(p50!), '1.10×–1.30×');
  assert.equal(spreadOf(lockfile!), '110.0–220.0 ms');
  const table = formatSummary([p50!, lockfile!]).split('\n');
  assert.match(table[2]!, /^p50\s+1\.000 ms\s+1\.300 ms\s+1\.10×\s+1\.10×–1\.30×\s+≤ 1\.2× bare\s+2\/3$/);
  assert.match(table[3]!, /^lockfile\s+—\s+130\.0 ms\s+—\s+110\.0–220\.0 ms\s+≤ 100 ms\s+0\/3 FAIL$/);
});
