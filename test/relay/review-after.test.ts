// Review after: in a folder whose edits are reviewed after, an agent's edit is answered at once
// and written; the person keeps it, or undoes some or all of its changes later, in the file as it
// is then (later edits stay), and the agent hears of it.
import assert from 'node:assert/strict';
import { readFile, readdir, writeFile, stat, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { HubError } from '../../src/api/types.ts';
import { HISTORY_DIR } from '../../src/review/history.ts';
import { waitFor } from '../peers/wait.ts';
import { DISK, PROPOSAL, withChanges } from '../ui/review-fixtures.ts';
import { startHarness, type Harness } from './harness.ts';

async function afterFolder(h: Harness, name: string): Promise<string> {
  const folder = await h.folder(name);
  const view = await h.hub.call('reviewMode.set', { project: folder, value: 'after' });
  assert.equal(view.effective, 'after');
  return folder;
}

async function applied(h: Harness, count: number) {
  return waitFor(async () => {
    const list = (await h.hub.call('snapshot', undefined)).diffs.filter((d) => d.status === 'applied');
    return list.length === count && list;
  });
}

async function refusal(promise: Promise<unknown>): Promise<HubError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof HubError) return err;
    throw err;
  }
  assert.fail('expected a refusal');
}

describe('review after', () => {
  test('an edit is answered at once, written by the agent, and listed as applied with its changes numbered as diffs show numbers them', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'inventory');
    const file = join(folder, 'inventory.ts');
    await writeFile(file, DISK);
    const pi = await h.pi(folder);
    const started = Date.now();
    const outcome = await pi.write(file, PROPOSAL);
    assert.ok(Date.now() - started < 1000, 'nobody was involved');
    assert.equal(outcome.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), PROPOSAL);
    const [edit] = await applied(h, 1);
    assert.equal(edit!.path, file);
    assert.deepEqual(
      edit!.changes!.map((c) => c.number),
      [1, 2, 3],
    );
    const detail = await h.hub.call('diffs.get', { id: edit!.id });
    assert.equal(detail.status, 'applied');
    assert.equal(detail.oldContents, DISK);
    assert.equal(detail.finalContents, PROPOSAL);
    const record = (await h.hub.call('snapshot', undefined)).history.find((r) => r.id === edit!.id);
    assert.equal(record?.status, 'applied');
    assert.equal(record?.by, 'review-after');
  });

  test('undo of one change reverts it in the file as it is now: a later edit elsewhere stays, and pi hears of it at its next turn', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'later');
    const file = join(folder, 'inventory.ts');
    await writeFile(file, DISK);
    const pi = await h.pi(folder);
    await pi.write(file, PROPOSAL);
    const [edit] = await applied(h, 1);
    // A later edit by the agent, to other lines, also applied at once.
    const later = PROPOSAL.replace('export function names', '// Names, in order.\nexport function names');
    await pi.write(file, later);
    await applied(h, 2);

    const record = await h.hub.call('diffs.undo', { id: edit!.id, changes: [2] });
    assert.deepEqual(record.undone, [2]);
    assert.equal(record.status, 'applied', 'changes 1 and 3 still wait for review');
    const expected = withChanges(1, 3).replace('export function names', '// Names, in order.\nexport function names');
    assert.equal(await readFile(file, 'utf8'), expected);
    assert.equal(record.afterwards?.heard, 'diagnostics');
    const told = (await pi.diagnosticsForModel()).join('\n');
    assert.match(told, /the person undid change 2 of 3 of your edit of .*inventory\.ts/);
    assert.match(told, /Read .*inventory\.ts again/);

    const kept = await h.hub.call('diffs.keep', { id: edit!.id });
    assert.equal(kept.status, 'kept');
    assert.deepEqual(kept.undone, [2]);
    const listed = (await h.hub.call('snapshot', undefined)).diffs.map((d) => d.id);
    assert.ok(!listed.includes(edit!.id), 'a kept edit no longer waits');
  });

  test('where a change to undo was edited since, undo refuses naming it and the file stays byte for byte', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'conflict');
    const file = join(folder, 'inventory.ts');
    await writeFile(file, DISK);
    const pi = await h.pi(folder);
    await pi.write(file, PROPOSAL);
    const [edit] = await applied(h, 1);
    const touched = PROPOSAL.replace('return items.reduce((sum, item) => sum + item.count, 0);', 'return items.reduce((s, i) => s + i.count, 0);');
    await writeFile(file, touched);
    const before = await stat(file);

    const err = await refusal(h.hub.call('diffs.undo', { id: edit!.id }));
    assert.equal(err.code, 'conflict');
    assert.match(err.message, /change 2 of 3/);
    assert.match(err.message, /changed since/);
    assert.doesNotMatch(err.message, /change [13] of 3/);
    assert.equal(await readFile(file, 'utf8'), touched, 'nothing was undone, not even changes 1 and 3');
    assert.equal((await stat(file)).mtimeMs, before.mtimeMs);
    assert.equal((await h.hub.call('snapshot', undefined)).history.find((r) => r.id === edit!.id)?.status, 'applied');

    // The changes whose lines are intact can still be undone.
    await h.hub.call('diffs.undo', { id: edit!.id, changes: [1, 3] });
    assert.equal(await readFile(file, 'utf8'), touched.replace("import { readFile, writeFile } from 'node:fs/promises';", "import { readFile } from 'node:fs/promises';").replace(/\n\nexport async function save[\s\S]*$/, '\n'));
  });

  test('the undone file keeps its mode, and undo of every change gives the file it was', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'mode');
    const file = join(folder, 'run.sh');
    await writeFile(file, '#!/bin/sh\necho one\n');
    await chmod(file, 0o750);
    const pi = await h.pi(folder);
    await pi.write(file, '#!/bin/sh\necho two\n');
    const [edit] = await applied(h, 1);
    const record = await h.hub.call('diffs.undo', { id: edit!.id });
    assert.equal(record.status, 'undone');
    assert.equal(await readFile(file, 'utf8'), '#!/bin/sh\necho one\n');
    assert.equal((await stat(file)).mode & 0o777, 0o750);
    assert.deepEqual((await readdir(folder)).sort(), ['run.sh'], 'no temp file left');
    const again = await refusal(h.hub.call('diffs.undo', { id: edit!.id }));
    assert.match(again.message, /undone already/);
  });

  test('a file the agent created and the person undid is removed', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'created');
    const file = join(folder, 'new.txt');
    const pi = await h.pi(folder);
    await pi.write(file, 'brand new\n');
    const [edit] = await applied(h, 1);
    assert.equal(edit!.isNew, true);
    await h.hub.call('diffs.undo', { id: edit!.id });
    assert.deepEqual(await readdir(folder), []);
  });

  test('Undo all of a turn takes back a file edited twice, newest first; if one edit cannot be, none is', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'turn');
    const a = join(folder, 'a.txt');
    const b = join(folder, 'b.txt');
    await writeFile(a, 'x\n');
    await writeFile(b, 'one\n');
    const pi = await h.pi(folder);
    await pi.write(a, 'y\n');
    await pi.write(a, 'z\n');
    await pi.write(b, 'two\n');
    const edits = await applied(h, 3);
    assert.equal(new Set(edits.map((e) => e.turn?.key)).size, 1, 'one turn');

    await writeFile(b, 'three\n');
    const err = await refusal(h.hub.call('diffs.undoAll', { ids: edits.map((e) => e.id) }));
    assert.match(err.message, /b\.txt/);
    assert.equal(await readFile(a, 'utf8'), 'z\n', 'a.txt untouched: all or nothing');

    await writeFile(b, 'two\n');
    const records = await h.hub.call('diffs.undoAll', { ids: edits.map((e) => e.id) });
    assert.deepEqual(records.map((r) => r.status), ['undone', 'undone', 'undone']);
    assert.equal(await readFile(a, 'utf8'), 'x\n');
    assert.equal(await readFile(b, 'utf8'), 'one\n');
  });

  test('an edit accepted in a review before can be undone later, from the history', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await h.folder('before');
    const file = join(folder, 'inventory.ts');
    await writeFile(file, DISK);
    const pi = await h.pi(folder);
    const writing = pi.write(file, PROPOSAL);
    const [pending] = await waitFor(async () => {
      const diffs = (await h.hub.call('snapshot', undefined)).diffs;
      return diffs.length === 1 && diffs;
    });
    await h.hub.call('diffs.accept', { id: pending!.id });
    await writing;
    await writeFile(file, `// header\n${PROPOSAL}`);
    const record = await h.hub.call('diffs.undo', { id: pending!.id, changes: [3] });
    assert.equal(record.status, 'accepted');
    assert.deepEqual(record.undone, [3]);
    assert.equal(await readFile(file, 'utf8'), `// header\n${withChanges(1, 2)}`);
    const keep = await refusal(h.hub.call('diffs.keep', { id: pending!.id }));
    assert.match(keep.message, /only an applied edit/);
  });

  test('applied edits survive a restart, and one whose listing a crash cut off is found again', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'restart');
    const file = join(folder, 'a.txt');
    await writeFile(file, 'one\n');
    const pi = await h.pi(folder);
    await pi.write(file, 'two\n');
    const [edit] = await applied(h, 1);
    await h.hub.close();
    // A crash between the contents file and the index: the index lists nothing.
    const index = join(h.options.home, HISTORY_DIR, 'index.json');
    await writeFile(index, JSON.stringify({ version: 1, entries: [] }));
    const { createHub } = await import('../../src/hub.ts');
    const again = await createHub(h.options, {});
    try {
      const snapshot = await again.call('snapshot', undefined);
      const found = snapshot.diffs.find((d) => d.id === edit!.id);
      assert.equal(found?.status, 'applied');
      assert.equal((await again.call('diffs.get', { id: edit!.id })).oldContents, 'one\n');
      await again.call('diffs.undo', { id: edit!.id });
      assert.equal(await readFile(file, 'utf8'), 'one\n');
    } finally {
      await again.close();
    }
  });

  test('a file over the review cap is reviewed before all the same, saying why', async (t) => {
    const h = await startHarness({ maxReviewFileBytes: 1024 });
    t.after(() => h.close());
    const folder = await afterFolder(h, 'big');
    const file = join(folder, 'big.txt');
    await writeFile(file, 'x'.repeat(4096));
    const pi = await h.pi(folder);
    const writing = pi.write(file, 'small\n');
    const [pending] = await waitFor(async () => {
      const diffs = (await h.hub.call('snapshot', undefined)).diffs;
      return diffs.length === 1 && diffs;
    });
    assert.equal(pending!.status, 'pending');
    assert.match(pending!.reviewedBefore ?? '', /larger than the review cap/);
    await h.hub.call('diffs.reject', { id: pending!.id });
    assert.equal((await writing).outcome, 'rejected');
  });

  test("Claude Code's edits are grouped by its prompts: closeAllDiffTabs, sent at every prompt, starts the next turn", async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await afterFolder(h, 'claude-turns');
    const claude = await h.claude(folder);
    assert.equal((await claude.openDiff(join(folder, 'a.txt'), 'one\n')).outcome, 'accepted');
    await claude.prompt();
    assert.equal((await claude.openDiff(join(folder, 'b.txt'), 'two\n')).outcome, 'accepted');
    const edits = await applied(h, 2);
    assert.deepEqual(
      edits.map((e) => e.turn?.label),
      ['prompt 1', 'prompt 2'],
    );
    assert.notEqual(edits[0]!.turn?.key, edits[1]!.turn?.key);
  });

  test('a note on a line reaches Claude Code in its tool result, quoting the line', async (t) => {
    const h = await startHarness();
    t.after(() => h.close());
    const folder = await h.folder('claude-notes');
    const file = join(folder, 'a.ts');
    await writeFile(file, 'one\ntwo\n');
    const claude = await h.claude(folder);
    const answering = claude.callTool('openDiff', { old_file_path: file, new_file_path: file, new_file_contents: 'one\nTWO\n', tab_name: '✻ [Claude Code] a.ts (abc123) ⧉' });
    const [pending] = await waitFor(async () => {
      const diffs = (await h.hub.call('snapshot', undefined)).diffs;
      return diffs.length === 1 && diffs;
    });
    await h.hub.call('diffs.accept', { id: pending!.id, notes: [{ line: 2, text: 'shout less' }] });
    const texts = ((await answering).result as { content: { text: string }[] }).content.map((c) => c.text);
    assert.equal(texts[0], 'FILE_SAVED');
    assert.equal(texts[2], `Patchbay: the person accepted your edit of ${file} as proposed. Their note on ${file}: line 2 ("TWO"): "shout less".`);
  });
});
