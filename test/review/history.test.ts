import assert from 'node:assert/strict';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { DiffDetail } from '../../src/api/types.ts';
import { DiffHistory, HISTORY_DIR } from '../../src/review/history.ts';
import { tempDir } from '../peers/wait.ts';

async function home(t: TestContext): Promise<string> {
  const dir = await tempDir('history');
  t.after(() => dir.cleanup());
  return dir.path;
}

let at = 1000;
function decided(n: number, contents = `proposal ${n}\n`, outcome: 'accepted' | 'rejected' = 'accepted'): DiffDetail {
  const id = `d${n}`;
  return {
    id,
    sessionId: 's1',
    editorId: 'ed-1',
    tool: 'write',
    path: `/w/f${n}.ts`,
    tabName: `pi-write:${n}`,
    status: outcome,
    createdAt: at,
    isNew: false,
    tooLarge: false,
    inEditor: false,
    oldContents: `old ${n}\n`,
    newContents: contents,
    finalContents: outcome === 'accepted' ? `${contents}edited\n` : null,
    decision: { id, sessionId: 's1', path: `/w/f${n}.ts`, outcome, status: outcome, by: 'patchbay', at: at++, edited: outcome === 'accepted', tool: 'write', editorId: 'ed-1', agent: 'pi-ide' },
  };
}

const limits = { entries: 200, bytes: 1024 * 1024, diffChars: 64 * 1024 };
const log = () => {};

test('a decision can be opened with its proposal and what was written, also after a restart', async (t) => {
  const dir = await home(t);
  const first = await DiffHistory.open(dir, limits, log);
  first.add(decided(1));
  first.add(decided(2, 'x "quoted" \\ tab\there ü\n', 'rejected'));
  assert.deepEqual(first.records().map((r) => r.id), ['d2', 'd1'], 'newest first, at once');
  await first.close();

  const again = await DiffHistory.open(dir, limits, log);
  assert.deepEqual(again.records().map((r) => r.id), ['d2', 'd1']);
  assert.equal(again.lastId(), 2);
  const one = await again.detail('d1');
  assert.equal(one!.oldContents, 'old 1\n');
  assert.equal(one!.newContents, 'proposal 1\n');
  assert.equal(one!.finalContents, 'proposal 1\nedited\n');
  assert.equal(one!.status, 'accepted');
  assert.equal(one!.decision!.agent, 'pi-ide');
  const two = await again.detail('d2');
  assert.equal(two!.newContents, 'x "quoted" \\ tab\there ü\n');
  assert.equal(two!.finalContents, null);
  assert.equal(await again.detail('d3'), undefined);
});

test('its files are private: 0600 in a 0700 folder', async (t) => {
  const dir = await home(t);
  const history = await DiffHistory.open(dir, limits, log);
  history.add(decided(1));
  await history.close();
  assert.equal((await stat(join(dir, HISTORY_DIR))).mode & 0o777, 0o700);
  for (const name of await readdir(join(dir, HISTORY_DIR))) {
    assert.equal((await stat(join(dir, HISTORY_DIR, name))).mode & 0o777, 0o600, name);
  }
});

test('only the newest decisions are kept, and the files of the others are removed', async (t) => {
  const dir = await home(t);
  const history = await DiffHistory.open(dir, { ...limits, entries: 3 }, log);
  for (let n = 1; n <= 5; n++) history.add(decided(n));
  await history.close();
  assert.deepEqual(history.records().map((r) => r.id), ['d5', 'd4', 'd3']);
  assert.deepEqual((await readdir(join(dir, HISTORY_DIR))).sort(), ['d3.json', 'd4.json', 'd5.json', 'index.json']);
  assert.equal(history.lastId(), 5);
});

test('over the byte budget the oldest decisions lose their contents first, and say so', async (t) => {
  const dir = await home(t);
  const big = 'y'.repeat(400);
  // The index (~350 bytes an entry) counts too: it and one contents file fit, not two.
  const history = await DiffHistory.open(dir, { entries: 10, bytes: 3000, diffChars: 64 * 1024 }, log);
  for (let n = 1; n <= 3; n++) history.add(decided(n, big));
  history.add(decided(4, 'z'.repeat(5000)));
  await history.close();
  const newest = await history.detail('d4');
  assert.match(newest!.contentsNotKept!, /too large/);
  assert.equal((await history.detail('d3'))!.newContents, big);
  const oldest = await history.detail('d1');
  assert.match(oldest!.contentsNotKept!, /removed to keep the history within its size limit/, 'the oldest lost its contents, and says why');
  assert.equal(oldest!.decision!.id, 'd1', 'its record is still listed');
  assert.equal(history.records().length, 4);
});

test('a diff too big for one entry keeps its decision but not its contents; smaller ones still keep theirs', async (t) => {
  const dir = await home(t);
  const history = await DiffHistory.open(dir, { entries: 10, bytes: 1024 * 1024, diffChars: 1000 }, log);
  history.add(decided(1, 'w'.repeat(600)));
  history.add(decided(2, 'small\n'));
  await history.close();
  const huge = await history.detail('d1');
  assert.match(huge!.contentsNotKept!, /too large/);
  assert.equal(huge!.decision!.outcome, 'accepted');
  assert.equal((await history.detail('d2'))!.newContents, 'small\n');
  assert.deepEqual((await readdir(join(dir, HISTORY_DIR))).sort(), ['d2.json', 'index.json']);
});

test('an unreadable index is set aside with a message, and leftover files are cleared', async (t) => {
  const dir = await home(t);
  const first = await DiffHistory.open(dir, limits, log);
  first.add(decided(1));
  await first.close();
  await writeFile(join(dir, HISTORY_DIR, 'index.json'), '{"version":1,"entries":[{"record":');
  const lines: string[] = [];
  const history = await DiffHistory.open(dir, limits, (line) => lines.push(line));
  await history.close();
  assert.deepEqual(history.records(), []);
  assert.match(lines.join('\n'), /could not be read .* moved to .*index\.json\.unreadable-\d+, starting an empty history/);
  const left = await readdir(join(dir, HISTORY_DIR));
  assert.ok(!left.includes('d1.json'), 'the contents of a decision nobody lists are removed');
  assert.ok(left.some((name) => name.startsWith('index.json.unreadable-')), 'the old index is kept aside');
});

/** A decision whose path is `pathChars` long, as an index entry of an older Patchbay. */
function indexEntry(n: number, pathChars: number): unknown {
  const { decision, tabName, createdAt } = decided(n);
  return { record: { ...decision, path: `/w/${'p'.repeat(pathChars)}` }, tabName, createdAt, isNew: false, tooLarge: false, bytes: 0 };
}

test('the index counts against the byte budget: decisions with long names keep the whole history within it', async (t) => {
  const dir = await home(t);
  const budget = 20_000;
  const history = await DiffHistory.open(dir, { entries: 200, bytes: budget, diffChars: 64 * 1024 }, log);
  for (let n = 1; n <= 30; n++) history.add({ ...decided(n), path: `/w/${'q'.repeat(3900)}${n}`, decision: { ...decided(n).decision!, path: `/w/${'q'.repeat(3900)}${n}` } });
  await history.close();
  const files = await readdir(join(dir, HISTORY_DIR));
  let total = 0;
  for (const name of files) total += (await stat(join(dir, HISTORY_DIR, name))).size;
  assert.ok(total <= budget, `${total} bytes on disk, index included, for a budget of ${budget}`);
  const records = history.records();
  assert.ok(records.length > 0 && records.length < 30, `${records.length} decisions kept`);
  assert.equal(records[0]!.id, 'd30', 'the newest are the ones kept');
});

test('an index over the byte budget (left by an older Patchbay) is set aside at start, and the history works', async (t) => {
  const dir = await home(t);
  await mkdir(join(dir, HISTORY_DIR), { recursive: true });
  const entries = Array.from({ length: 5 }, (_, i) => indexEntry(i + 1, 1024 * 1024));
  await writeFile(join(dir, HISTORY_DIR, 'index.json'), JSON.stringify({ version: 1, entries }));
  const lines: string[] = [];
  const history = await DiffHistory.open(dir, { entries: 200, bytes: 1024 * 1024, diffChars: 64 * 1024 }, (line) => lines.push(line));
  assert.deepEqual(history.records(), []);
  assert.match(lines.join('\n'), /larger than the history's budget of 1048576 bytes\); moved to .*index\.json\.unreadable-\d+/);
  history.add(decided(9));
  await history.close();
  assert.equal((await history.detail('d9'))!.newContents, 'proposal 9\n');
});

test('entries whose names are over their caps are dropped one by one; the others are kept', async (t) => {
  const dir = await home(t);
  await mkdir(join(dir, HISTORY_DIR), { recursive: true });
  await writeFile(join(dir, HISTORY_DIR, 'index.json'), JSON.stringify({ version: 1, entries: [indexEntry(3, 10), indexEntry(2, 5000), indexEntry(1, 10)] }));
  const lines: string[] = [];
  const history = await DiffHistory.open(dir, limits, (line) => lines.push(line));
  await history.close();
  assert.deepEqual(history.records().map((r) => r.id), ['d3', 'd1']);
  assert.match(lines.join('\n'), /1 entry dropped \(a name over its cap/);
  const again = await DiffHistory.open(dir, limits, log);
  assert.deepEqual(again.records().map((r) => r.id), ['d3', 'd1'], 'the trimmed index was written back');
});
