// What one agent can make Patchbay hold or read (issue 17, holes 5, 6 and 11): diffs naming
// kernel files or relative paths, names of megabytes, and more pending bytes than the budget
// are rejected as DIFF_REJECTED with a reason the agent sees — never as an error (pi-ide
// writes the file unreviewed on an error), and never held.
import assert from 'node:assert/strict';
import { symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import type { HubOptions } from '../../src/options.ts';
import type { FakePiClient } from '../peers/fake-pi.ts';
import { waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';
import { startHarness, type Harness } from './harness.ts';

async function harness(t: TestContext, overrides: Partial<HubOptions> = {}): Promise<Harness> {
  const h = await startHarness(overrides);
  t.after(() => h.close());
  return h;
}

interface Args {
  old_file_path: string;
  new_file_path: string;
  new_file_contents: string;
  tab_name: string;
}

/** The answer to one openDiff, as its text items; a diff held for review instead times out here. */
async function propose(pi: FakePiClient, args: Args): Promise<string[]> {
  const response = await withTimeout(pi.rpc.call('tools/call', { name: 'openDiff', arguments: args }), WAIT_MS, `an answer to openDiff ${args.tab_name.slice(0, 40)}`);
  assert.equal(response.error, undefined, 'never an error: pi-ide would write the file unreviewed');
  return ((response.result as { content: { text: string }[] }).content ?? []).map((c) => c.text);
}

async function pendingCount(h: Harness): Promise<number> {
  return (await h.hub.call('snapshot', undefined)).diffs.length;
}

test('an openDiff naming a relative path, a NUL or a file in /proc or /sys is rejected saying why, and held nowhere', async (t) => {
  const h = await harness(t);
  const folder = await h.folder('paths');
  const pi = await h.pi(folder);
  const good = join(folder, 'a.ts');
  const cases: [Partial<Args>, RegExp][] = [
    [{ old_file_path: 'src/a.ts', new_file_path: 'src/a.ts' }, /"new_file_path" must be an absolute path \(got "src\/a.ts"\)/],
    [{ old_file_path: '', new_file_path: 'a.ts' }, /"new_file_path" must be an absolute path/],
    [{ old_file_path: 'src/a.ts' }, /"old_file_path" must be an absolute path/],
    [{ new_file_path: `${folder}/a\0.ts` }, /"new_file_path" contains a NUL character/],
    [{ old_file_path: '/proc/self/environ', new_file_path: '/proc/self/environ' }, /"new_file_path" names a kernel file .*\/proc and \/sys are not reviewed/],
    [{ old_file_path: '/proc/self/pagemap' }, /"old_file_path" names a kernel file/],
    [{ old_file_path: '/sys/kernel/notes', new_file_path: '/sys/kernel/notes' }, /"new_file_path" names a kernel file/],
    [{ old_file_path: `${folder}/../../../../../../../proc/self/environ` }, /"old_file_path" names a kernel file/],
  ];
  let n = 0;
  for (const [over, reason] of cases) {
    const tab = `pi-write:${++n}`;
    const texts = await propose(pi, { old_file_path: good, new_file_path: good, new_file_contents: 'x\n', tab_name: tab, ...over });
    assert.equal(texts[0], 'DIFF_REJECTED', JSON.stringify(over));
    assert.equal(texts[1], tab, 'the tab name, as a rejection carries it');
    assert.match(texts[2] ?? '', reason);
  }
  const snapshot = await h.hub.call('snapshot', undefined);
  assert.equal(snapshot.diffs.length, 0, 'nothing pending');
  assert.equal(snapshot.history.length, 0, 'nothing in the history');
});

test('a diff whose file is a symlink into /proc is reviewed without the daemon’s environment as its old side', async (t) => {
  const h = await harness(t);
  const folder = await h.folder('environ');
  const pi = await h.pi(folder);
  const link = join(folder, 'notes.txt');
  await symlink('/proc/self/environ', link);
  const writing = pi.write(link, 'mine\n');
  const [pending] = await waitFor(async () => {
    const { diffs } = await h.hub.call('snapshot', undefined);
    return diffs.length === 1 && diffs;
  });
  const detail = await h.hub.call('diffs.get', { id: pending!.id });
  assert.equal(detail.oldContents, null);
  assert.equal(detail.newContents, 'mine\n');
  await h.hub.call('diffs.reject', { id: pending!.id });
  assert.equal((await writing).outcome, 'rejected');
});

test('a tab name or path of megabytes is rejected saying so, and nothing grows the history', async (t) => {
  const h = await harness(t);
  const folder = await h.folder('names');
  const pi = await h.pi(folder);
  const good = join(folder, 'a.ts');
  // 4 MiB names arrive in frames big enough to be read lazily; 100 KiB ones in ordinary frames.
  for (const size of [4 * 1024 * 1024, 100 * 1024]) {
    const tab = `pi-write:${'t'.repeat(size)}`;
    const byTab = await propose(pi, { old_file_path: good, new_file_path: good, new_file_contents: 'x\n', tab_name: tab });
    assert.equal(byTab[0], 'DIFF_REJECTED');
    assert.ok(byTab[1]!.length <= 1024, 'the name is not echoed back whole');
    assert.match(byTab[2] ?? '', /"tab_name" is longer than 1024 bytes/);
    const long = join(folder, 'p'.repeat(size));
    const byPath = await propose(pi, { old_file_path: long, new_file_path: long, new_file_contents: 'x\n', tab_name: 'pi-write:2' });
    assert.equal(byPath[0], 'DIFF_REJECTED');
    assert.match(byPath[2] ?? '', /"(new|old)_file_path" is longer than 4096 bytes/);
  }
  const snapshot = await h.hub.call('snapshot', undefined);
  assert.equal(snapshot.diffs.length, 0);
  assert.equal(snapshot.history.length, 0);
});

test('pending diffs share one budget across sessions: over it a diff is rejected saying so, and fits again once others are decided', async (t) => {
  // A diff holds its request's bytes and the text parsed from them: ~340 KiB for these 150 KiB.
  const h = await harness(t, { maxPendingDiffBytes: 700 * 1024 });
  const folder = await h.folder('budget');
  const [first, second] = [await h.pi(folder), await h.pi(folder)];
  const contents = 'const x = "a";\n'.repeat(10 * 1024); // 150 KiB
  const holding = first.write(join(folder, 'one.ts'), contents);
  await waitFor(async () => (await pendingCount(h)) === 1, { message: 'the first diff pending' });
  const refused = await propose(second, { old_file_path: join(folder, 'two.ts'), new_file_path: join(folder, 'two.ts'), new_file_contents: `${contents}${contents}`, tab_name: 'pi-write:9' });
  assert.equal(refused[0], 'DIFF_REJECTED');
  assert.match(refused[2] ?? '', /already wait for review .* over the 0\.7 MiB Patchbay holds at once; decide some and try again/);
  assert.equal(await pendingCount(h), 1, 'the refused diff is not held');
  const [pending] = (await h.hub.call('snapshot', undefined)).diffs;
  await h.hub.call('diffs.reject', { id: pending!.id });
  assert.equal((await holding).outcome, 'rejected');
  const retry = second.write(join(folder, 'two.ts'), `${contents}x`);
  await waitFor(async () => (await pendingCount(h)) === 1, { message: 'the retried diff pending' });
  const [again] = (await h.hub.call('snapshot', undefined)).diffs;
  await h.hub.call('diffs.accept', { id: again!.id });
  assert.equal((await retry).outcome, 'saved');
});

test('an original that would take the budget past its limit is not read: the diff is shown as too large to compare', async (t) => {
  const h = await harness(t, { maxPendingDiffBytes: 300 * 1024 });
  const folder = await h.folder('original');
  const pi = await h.pi(folder);
  const path = join(folder, 'big.ts');
  await writeFile(path, 'y'.repeat(250 * 1024));
  // The request holds 100 KiB: the 250 KiB original would take the total past 300 KiB.
  const writing = pi.write(path, 'z'.repeat(100 * 1024));
  const [pending] = await waitFor(async () => {
    const { diffs } = await h.hub.call('snapshot', undefined);
    return diffs.length === 1 && diffs[0]!.tooLarge && diffs;
  });
  assert.equal((await h.hub.call('diffs.get', { id: pending!.id })).oldContents, null);
  await h.hub.call('diffs.reject', { id: pending!.id });
  assert.equal((await writing).outcome, 'rejected');
});
