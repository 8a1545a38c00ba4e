// Hosted sessions remembered across restarts: a private file in Patchbay's home, read back as
// written, and one that cannot be trusted or read is set aside with a warning, never used.
import assert from 'node:assert/strict';
import { chmod, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { HOSTED_FILE, HostedStore, MAX_RECORDS, MAX_REVIEWS, type HostedRecord } from '../../src/rpc/hosted-store.ts';
import { tempDir } from '../peers/wait.ts';

const record = (n: number, more: Partial<HostedRecord> = {}): HostedRecord => ({
  id: `pi-${n.toString(16).padStart(8, '0')}`,
  cwd: '/work/proj',
  args: ['-e', '/ext.ts'],
  model: 'fake/fake-1',
  sessionFile: `/home/u/.pi/agent/sessions/--work-proj--/s${n}.jsonl`,
  sessionName: null,
  startedAt: 1000 + n,
  endedAt: null,
  exit: null,
  reviews: {},
  ...more,
});

test('sessions put in the store are there, as put, for the next Patchbay; the file is private', async (t) => {
  const dir = await tempDir('hosted-store');
  t.after(() => dir.cleanup());
  const store = await HostedStore.open(dir.path, () => {});
  store.put(record(1));
  store.put(record(2, { sessionName: 'Refactor', reviews: { call_1: 'd3' } }));
  store.put(record(1, { exit: 'pi stopped (exit code 0)', endedAt: 5000 }));
  store.remove(record(3).id);
  await store.close();
  assert.equal((await stat(join(dir.path, HOSTED_FILE))).mode & 0o777, 0o600);

  const again = await HostedStore.open(dir.path, () => {});
  assert.deepEqual(again.list(), [record(1, { exit: 'pi stopped (exit code 0)', endedAt: 5000 }), record(2, { sessionName: 'Refactor', reviews: { call_1: 'd3' } })]);
  again.remove(record(1).id);
  await again.close();
  assert.deepEqual((await HostedStore.open(dir.path, () => {})).list().map((r) => r.id), [record(2).id]);
});

test('the store keeps the newest sessions and the newest reviews of each, within its limits', async (t) => {
  const dir = await tempDir('hosted-store-cap');
  t.after(() => dir.cleanup());
  const store = await HostedStore.open(dir.path, () => {});
  for (let n = 1; n <= MAX_RECORDS + 5; n++) store.put(record(n));
  const reviews = Object.fromEntries(Array.from({ length: MAX_REVIEWS + 10 }, (_, i) => [`call_${i}`, `d${i}`]));
  store.put(record(9999, { reviews }));
  await store.close();
  const list = (await HostedStore.open(dir.path, () => {})).list();
  assert.equal(list.length, MAX_RECORDS);
  assert.equal(list[0]!.id, record(7).id, 'the oldest went first');
  const kept = Object.keys(list.at(-1)!.reviews);
  assert.equal(kept.length, MAX_REVIEWS);
  assert.equal(kept[0], 'call_10');
});

test('a store file that others could write, or that does not parse, is set aside and said so; nothing of it is used', async (t) => {
  const dir = await tempDir('hosted-store-bad');
  t.after(() => dir.cleanup());
  const path = join(dir.path, HOSTED_FILE);
  await writeFile(path, JSON.stringify({ version: 1, sessions: [record(1, { args: ['-e', '/planted.ts'] })] }), { mode: 0o666 });
  await chmod(path, 0o666);
  const logs: string[] = [];
  const loose = await HostedStore.open(dir.path, (m) => logs.push(m));
  assert.deepEqual(loose.list(), []);
  assert.match(loose.warnings[0] ?? '', /could not be used \(its mode is 666, not 600\); moved to .*unreadable-\d+-[0-9a-f]+, so no earlier session is listed/);
  assert.equal(logs.length, 1);

  await writeFile(path, '{"version":1,"sessions":[{"id":"x"}]', { mode: 0o600 });
  const broken = await HostedStore.open(dir.path, () => {});
  assert.deepEqual(broken.list(), []);
  assert.equal(broken.warnings.length, 1);
  assert.equal((await readdir(dir.path)).filter((n) => n.includes('unreadable')).length, 2, 'both set aside, none lost');
  broken.put(record(4));
  await broken.close();
  assert.match(await readFile(path, 'utf8'), /pi-00000004/);
});
