// Review at the agent's pace, in the browser against the real hub: edits applied at once are
// listed by the agent's turn, kept or undone (whole, or a change at a time) in the file as it is
// now; an accepted edit is undone from the history; a note on a line reaches the agent; the
// review mode is set in Settings.
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { buildIfStale } from '../../src/cli/start.ts';
import { waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';
import { skipWithoutChromium } from './chromium.ts';
import { shootEverySize, startLiveReview, type LiveReview } from './live-review.ts';
import { DISK, PROPOSAL, withChanges } from './review-fixtures.ts';

describe('reviewing after: keep, undo, notes', { skip: skipWithoutChromium }, () => {
  let live: LiveReview;
  const page = () => live.ui.page;
  const file = (name: string) => join(live.project, name);
  const applied = async (count: number) =>
    waitFor(async () => {
      const list = (await live.hub.call('snapshot', undefined)).diffs.filter((d) => d.status === 'applied');
      return list.length === count && list;
    });

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    live = await startLiveReview('ui-after');
    await page().setViewportSize({ width: 1280, height: 800 });
  });
  after(async () => {
    await live?.close();
  });

  test('the review mode is set for a folder in Settings, and an edit there is written at once and listed to review', async () => {
    await page().evaluate("window.location.hash = '#/settings'");
    await page().getByLabel('Folder', { exact: true }).fill(live.project);
    await page().getByLabel('When edits in this folder are reviewed', { exact: true }).selectOption('after');
    await page().getByRole('button', { name: 'Set' }).click();
    await page().getByLabel(`When edits in ${live.project} are reviewed`).waitFor();
    assert.equal((await live.hub.call('reviewMode.get', { project: live.project })).effective, 'after');

    await mkdir(dirname(file('src/inventory.ts')), { recursive: true });
    await writeFile(file('src/inventory.ts'), DISK);
    const outcome = await withTimeout(live.pi.write(file('src/inventory.ts'), PROPOSAL), WAIT_MS, 'pi answered at once');
    assert.equal(outcome.outcome, 'saved');
    assert.equal(await readFile(file('src/inventory.ts'), 'utf8'), PROPOSAL);
    await page().evaluate("window.location.hash = '#/review'");
    await page().getByRole('heading', { name: 'Applied, to review (1)' }).waitFor();
    await page().getByRole('region', { name: /turn 1: 1 edit to review/ }).waitFor();
    assert.equal(await page().getByRole('link', { name: /Review/ }).locator('.nav-badge').count(), 0, 'nothing waits for a decision');
  });

  test('Undo change 2 of 3 takes that change back in the file as it is now, a later edit elsewhere stays, and Keep keeps the rest', async () => {
    const path = file('src/inventory.ts');
    // The agent goes on: another edit of the same file, elsewhere.
    const later = PROPOSAL.replace('export function names', '// Names, in order.\nexport function names');
    await live.pi.write(path, later);
    await applied(2);
    await page().getByRole('button', { name: /inventory\.ts/ }).first().click();
    await page().getByRole('button', { name: 'Undo change 2 of 3' }).waitFor();
    await shootEverySize(page(), 'review-after-applied', async () => {
      await page().getByRole('button', { name: 'Undo change 1 of 3' }).waitFor();
    });
    await page().getByRole('button', { name: 'Undo change 2 of 3' }).click();
    await page().getByText('undone: the file has its old lines here again').waitFor();
    assert.equal(await readFile(path, 'utf8'), withChanges(1, 3).replace('export function names', '// Names, in order.\nexport function names'));
    assert.equal(await page().getByRole('button', { name: 'Undo change 2 of 3' }).count(), 0, 'an undone change offers no undo');
    await page().getByText(/pi reads at its next diagnostics: Patchbay: the person undid change 2 of 3/).waitFor();
    const told = (await live.pi.diagnosticsForModel()).join('\n');
    assert.match(told, /the person undid change 2 of 3 of your edit of .*inventory\.ts/);
    await shootEverySize(page(), 'review-after-change-undone');

    await page().getByRole('button', { name: 'Keep', exact: true }).click();
    await page().locator('.diff-header .outcome', { hasText: /^kept · change 2 undone$/ }).waitFor();
    assert.equal((await live.hub.call('snapshot', undefined)).diffs.filter((d) => d.status === 'applied').length, 1, 'the later edit still waits');
  });

  test('Undo all of a turn takes every edit back, newest first, after asking; Keep all keeps a turn', async () => {
    const a = file('notes/a.md');
    await mkdir(dirname(a), { recursive: true });
    await writeFile(a, 'one\n');
    await live.pi.write(a, 'two\n');
    await live.pi.write(a, 'three\n');
    const edits = await applied(3);
    const turn = edits.at(-1)!.turn!.label;
    const group = page().getByRole('region', { name: new RegExp(`${turn}: 3 edits to review`) });
    await group.waitFor();
    await group.getByRole('button', { name: 'Undo all' }).click();
    await page().getByRole('dialog', { name: 'Undo 3 edits?' }).getByRole('button', { name: 'Undo 3 edits' }).click();
    await page().getByRole('heading', { name: /Applied, to review/ }).waitFor({ state: 'detached' });
    assert.equal(await readFile(a, 'utf8'), 'one\n');
    // The inventory file's later edit (the comment) is taken back; the kept edit, with its change 2 undone, stays.
    assert.equal(await readFile(file('src/inventory.ts'), 'utf8'), withChanges(1, 3));
    assert.deepEqual(
      (await live.hub.call('snapshot', undefined)).history.filter((r) => edits.some((e) => e.id === r.id)).map((r) => r.status),
      ['undone', 'undone', 'undone'],
    );

    await live.pi.write(a, 'four\n');
    const [kept] = await applied(1);
    await page().getByRole('region', { name: new RegExp(`${kept!.turn!.label}: 1 edit to review`) }).getByRole('button', { name: 'Keep all' }).click();
    await page().getByRole('heading', { name: /Applied, to review/ }).waitFor({ state: 'detached' });
    assert.equal((await live.hub.call('snapshot', undefined)).history.find((r) => r.id === kept!.id)?.status, 'kept');
  });

  test('an edit accepted in a review before is undone later from the history', async () => {
    await live.hub.call('reviewMode.set', { project: live.project, value: null });
    const path = file('lib/store.ts');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, DISK);
    const writing = live.pi.write(path, PROPOSAL);
    const [pending] = await waitFor(async () => {
      const diffs = (await live.hub.call('snapshot', undefined)).diffs.filter((d) => d.status === 'pending');
      return diffs.length === 1 && diffs;
    });
    await live.hub.call('diffs.accept', { id: pending!.id });
    await writing;
    await page().locator('details.history').evaluate((d) => d.setAttribute('open', ''));
    await page().getByRole('button', { name: /accepted store\.ts/ }).click();
    await page().getByRole('button', { name: 'Undo change 3 of 3' }).click();
    await page().locator('.diff-header .outcome', { hasText: /^accepted · change 3 undone$/ }).waitFor();
    assert.equal(await readFile(path, 'utf8'), withChanges(1, 2));
    await page().getByRole('button', { name: 'Undo', exact: true }).click();
    await page().locator('.diff-header .outcome', { hasText: /^undone$/ }).waitFor();
    assert.equal(await readFile(path, 'utf8'), DISK);
  });

  test('a note on a line goes to the agent with the decision, quoting the line, and stays in the history', async () => {
    const path = file('lib/noted.ts');
    await writeFile(path, DISK);
    const writing = live.pi.write(path, PROPOSAL);
    await page().getByRole('button', { name: /noted\.ts/ }).click();
    await page().getByRole('group', { name: 'Change 1 of 3' }).waitFor();
    await page().locator('.cm-merge-b .cm-line', { hasText: 'return items.reduce' }).click();
    await page().getByRole('button', { name: 'Note on line 15' }).click();
    await page().getByLabel('Note on line 15').fill('keep the loop: it is clearer');
    await page().getByRole('button', { name: 'Add note' }).click();
    await page().getByRole('list', { name: 'Notes for the agent' }).getByText('keep the loop: it is clearer').waitFor();
    await shootEverySize(page(), 'review-line-note');
    await page().getByRole('button', { name: 'Accept', exact: true }).click();
    await page().getByRole('button', { name: 'Send now' }).click();
    const outcome = await withTimeout(writing, WAIT_MS, 'pi hearing the decision');
    assert.equal(outcome.outcome, 'saved');
    assert.deepEqual(outcome.outcome === 'saved' && outcome.said, [
      `Patchbay: the person accepted your edit of ${path} as proposed. Their note on ${path}: line 15 ("return items.reduce((sum, item) => sum + item.count, 0);"): "keep the loop: it is clearer".`,
    ]);
    const record = (await live.hub.call('snapshot', undefined)).history.find((r) => r.path === path);
    assert.deepEqual(record?.notes, [{ line: 15, text: 'keep the loop: it is clearer' }]);
  });
});
