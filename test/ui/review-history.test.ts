// The review's history and layout against a fake hub: a page opened on a Patchbay that already
// holds decisions (as after a restart), a decision made in the editor, the layout toggle.
// Screenshots: test-results/ui/review-history-*.png.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { DecisionRecord, DiffDetail } from '../../src/api/types.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import type { TempDir } from '../peers/wait.ts';
import { createFakeHub, NOW } from '../web/fake-hub.ts';
import type { FakeHub } from '../web/fake-hub.ts';
import { openUi, skipWithoutChromium } from './chromium.ts';
import type { UiSession } from './chromium.ts';
import { shootEverySize } from './live-review.ts';
import { DISK, PROPOSAL, withChanges } from './review-fixtures.ts';

const PATH = '/work/proj/src/inventory.ts';

/** What `diffs.get` answers for a decided diff. */
function decided(record: DecisionRecord, contents: Pick<DiffDetail, 'oldContents' | 'newContents' | 'finalContents' | 'contentsNotKept'>): DiffDetail {
  return {
    id: record.id,
    sessionId: record.sessionId,
    editorId: record.editorId,
    tool: record.tool,
    path: record.path,
    tabName: `pi-${record.tool}:${record.id}`,
    status: record.outcome,
    createdAt: record.at - 30_000,
    isNew: false,
    tooLarge: false,
    inEditor: false,
    decision: record,
    ...contents,
  };
}

/** A Patchbay that decided inventory.ts earlier: change 2 rejected in Patchbay, then accepted. */
function hubWithHistory(): FakeHub {
  const hub = createFakeHub();
  const record: DecisionRecord = {
    id: 'd9',
    sessionId: 's0',
    path: PATH,
    outcome: 'accepted',
    status: 'accepted',
    by: 'patchbay',
    at: NOW - 60_000,
    edited: false,
    changes: { total: 3, accepted: [1, 3], rejected: [2] },
    told: 'Patchbay: accepted 2 of 3 changes of your edit to /work/proj/src/inventory.ts; change 2 (line 15 of your proposal) rejected: the file keeps its original lines there.',
    tool: 'edit',
    editorId: 'nvim-proj',
    agent: 'pi-ide',
  };
  hub.state.history.push(record);
  hub.details.set('d9', decided(record, { oldContents: DISK, newContents: PROPOSAL, finalContents: withChanges(1, 3) }));
  // One whose contents the history did not keep (as the hub answers): only the decision is known.
  const { changes: _changes, told: _told, ...plain } = record;
  const old: DecisionRecord = { ...plain, id: 'd3', path: '/work/proj/src/old.ts', outcome: 'rejected', status: 'rejected', at: NOW - 3_600_000 };
  hub.state.history.push(old);
  hub.details.set('d3', decided(old, { oldContents: null, newContents: '', finalContents: null, contentsNotKept: 'too large to keep in the history' }));
  return hub;
}

describe('the review history and layout', { skip: skipWithoutChromium }, () => {
  let tmp: TempDir;
  let hub: FakeHub;
  let ui: UiSession;
  let page: Page;

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    tmp = await tempDir('ui-history');
    hub = hubWithHistory();
    ui = await openUi(hub, { home: join(tmp.path, 'home'), version: 'test' });
    page = ui.page;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('heading', { name: /Review inbox/ }).waitFor();
  });

  after(async () => {
    await ui?.close();
    await tmp?.cleanup();
  });

  test('a decision from before opens read-only: what was written, what was proposed, and the edits', async () => {
    await page.getByText('Recent decisions (2)').click();
    await page.getByRole('button', { name: /accepted inventory\.ts in Patchbay, 2 of 3 changes/ }).click();
    const facts = page.locator('.decided .diff-header .meta').first();
    await facts.waitFor();
    assert.match(await facts.innerText(), /^accepted in Patchbay, 2 of 3 changes at \d\d:\d\d:\d\d · edit from pi · offered to Neovim · proj$/);
    assert.match(await page.locator('.decided .told').innerText(), /^pi was told: Patchbay: accepted 2 of 3 changes/);
    assert.match(page.url(), /#\/review\/history%2Fd9$/);

    const written = page.getByRole('textbox', { name: `${PATH}: written` });
    await written.waitFor();
    assert.match(await written.innerText(), /writeFile/);
    assert.doesNotMatch(await written.innerText(), /reduce/, 'the rejected change was not written');
    assert.equal(await written.getAttribute('contenteditable'), 'false', 'nothing in the history can be edited');
    assert.equal(await page.getByRole('button', { name: /^(Accept|Reject) change/ }).count(), 0, 'no per-change decisions in the history');
    assert.equal(await page.getByRole('button', { name: 'Accept', exact: true }).count(), 0);
    assert.equal(await page.locator('.change-position').innerText(), 'Change 1 of 2');
    await shootEverySize(page, 'review-history', async (width) => {
      await page.locator(`.decided .merge-editor[data-layout="${width < 1000 ? 'unified' : 'split'}"] .cm-change-bar`).first().waitFor();
    });

    await page.getByLabel('On disk → proposed').check();
    const proposed = page.getByRole('textbox', { name: `${PATH}: proposed` });
    await proposed.waitFor();
    assert.match(await proposed.innerText(), /reduce/);
    assert.equal(await page.locator('.change-position').innerText(), 'Change 1 of 3');

    await page.getByLabel('Proposed → written (the edits)').check();
    await page.getByRole('textbox', { name: `${PATH}: written` }).waitFor();
    assert.equal(await page.locator('.change-position').innerText(), 'Change 1 of 1', 'the edits: change 2 put back');

    await page.getByRole('button', { name: 'Back to the inbox' }).click();
    await page.locator('#diff-title[title="/work/proj/a.txt"]').waitFor(); // the oldest waiting edit
    assert.notEqual(await page.locator('details.history').getAttribute('open'), null, 'the history stays open to pick another');
  });

  test('a decision whose contents were not kept says why, with who decided it and where', async () => {
    await page.getByRole('button', { name: /rejected old\.ts in Patchbay/ }).click();
    const facts = page.locator('.decided .diff-header .meta');
    await facts.waitFor();
    assert.match(await facts.innerText(), /^rejected in Patchbay at \d\d:\d\d:\d\d · edit from pi · offered to Neovim · proj$/);
    await page.getByText('What was proposed and written is not kept: too large to keep in the history.').waitFor();
    assert.equal(await page.locator('.decided .merge-editor').count(), 0, 'no diff of contents that are not there');
    assert.equal(await page.locator('.decided .diff-toolbar').count(), 0);
    await shootEverySize(page, 'review-history-not-kept');
    await page.getByRole('button', { name: 'Back to the inbox' }).click();
    await page.locator('#diff-title[title="/work/proj/a.txt"]').waitFor(); // the oldest waiting edit
  });

  test('the layout toggle (v) is remembered across a reload, and soft wrap is on', async () => {
    await page.getByRole('button', { name: /a\.txt/ }).click();
    await page.locator('.merge-editor[data-layout="split"] .cm-mergeView').waitFor();
    assert.ok(await page.getByLabel('Wrap lines').isChecked());
    await waitFor(async () => (await page.locator('.cm-lineWrapping').count()) === 2, { message: 'both sides wrapping' });
    await page.getByRole('heading', { name: /Review inbox/ }).click();
    await page.keyboard.press('v');
    await page.locator('.merge-editor[data-layout="unified"]').waitFor();
    assert.equal(await page.getByLabel('Layout').inputValue(), 'unified');
    await page.reload();
    await page.locator('.merge-editor[data-layout="unified"] .cm-editor').waitFor();
    await page.getByLabel('Layout').selectOption('auto');
    await page.locator('.merge-editor[data-layout="split"]').waitFor();
  });

  test('a decision made in the editor is told too, and opens from the notice', async () => {
    const record: DecisionRecord = {
      id: 'd1',
      sessionId: 's1',
      path: '/work/proj/a.txt',
      outcome: 'accepted',
      status: 'accepted',
      by: 'editor',
      at: NOW,
      edited: false,
      tool: 'edit',
      editorId: 'nvim-proj',
      agent: 'pi-ide',
    };
    const detail = hub.details.get('d1')!;
    Object.assign(detail, { status: 'accepted', decision: record, finalContents: detail.newContents });
    hub.state.diffs = hub.state.diffs.filter((d) => d.id !== 'd1');
    hub.state.history.unshift(record);
    hub.emit({ type: 'diffDecided', record });
    hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
    const notice = page.getByRole('status').filter({ hasText: 'Accepted' });
    await notice.waitFor();
    assert.equal(await notice.locator('.notice-text').innerText(), 'Accepted a.txt in Neovim · proj: written by pi.');
    await notice.getByRole('button', { name: 'Show what was decided' }).click();
    await page.getByRole('textbox', { name: '/work/proj/a.txt: written' }).waitFor();
    await page.getByRole('button', { name: 'Dismiss this notice' }).click();
    await waitFor(async () => (await page.locator('.decision-notice .notice-text').count()) === 0, { message: 'the notice dismissed' });
  });

  test('accepting some changes here: the notice says which, even when the hub’s event comes before its answer', async () => {
    const summary = { ...hub.state.diffs[0]!, id: 'd7', path: PATH, isNew: false, inEditor: false };
    hub.state.diffs.push(summary);
    hub.details.set('d7', { ...summary, oldContents: DISK, newContents: PROPOSAL, decision: null, finalContents: null });
    const waiting = hub.state.diffs.filter((d) => d.status === 'pending').length;
    hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
    // Selected once the page knows it (the title counts what waits).
    // Polled from here: the page's CSP (script-src 'self') refuses waitForFunction's string once it polls.
    await waitFor(async () => (await page.title()).startsWith(`(${waiting}) `), { message: 'the title counts the new edit' });
    await page.evaluate(`window.location.hash = '#/review/d7'`);
    await page.getByRole('group', { name: 'Change 1 of 3' }).waitFor();
    await page.getByRole('button', { name: 'Reject change 2 of 3' }).click();
    // The hub tells every window first and answers this one later (as it may over the socket).
    let answer: () => void = () => {};
    const accept = hub.handlers['diffs.accept'];
    hub.handlers['diffs.accept'] = async (params) => {
      const record = await accept(params);
      await new Promise<void>((resolve) => (answer = resolve));
      return record;
    };
    await page.getByRole('button', { name: 'Accept change 1 of 3' }).click();
    await page.getByRole('button', { name: 'Accept change 3 of 3' }).click();
    await page.getByRole('button', { name: 'Apply 2 of 3 changes' }).click();
    await page.getByRole('button', { name: 'Send now' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'Accepted' });
    await notice.waitFor();
    assert.match(await notice.locator('.notice-text').innerText(), /^Accepted \S*inventory\.ts \(2 of 3 changes\)/, 'the note, before the answer came');
    answer();
    hub.handlers['diffs.accept'] = accept;
  });

  test('the page logged no errors', () => {
    assert.deepEqual(ui.consoleErrors, []);
  });
});
