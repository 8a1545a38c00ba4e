// Per-change review through the whole chain: the real hub behind the control server, a fake
// pi that writes the file when told FILE_SAVED, the built UI in Debian's Chromium. What lands
// on disk is checked byte for byte. Screenshots of each state, light and dark, at 1280×800 and
// 800×600, go to test-results/ui/review-*.png (look at them).
import assert from 'node:assert/strict';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { unifiedDiff } from '../../src/cli/commands.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import type { WriteOutcome } from '../peers/fake-pi.ts';
import { waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';
import { skipWithoutChromium } from './chromium.ts';
import { shootEverySize, startLiveReview } from './live-review.ts';
import type { LiveReview } from './live-review.ts';
import { BIG_CHANGED_LINES, BIG_DISK, BIG_PROPOSAL, DISK, PROPOSAL, bigWithChanges, withChanges } from './review-fixtures.ts';

describe('reviewing an edit change by change', { skip: skipWithoutChromium }, () => {
  let live: LiveReview;
  const page = (): Page => live.ui.page;

  /** A file on disk and the fake pi proposing PROPOSAL for it; resolves when pi has the answer. */
  const propose = async (relative: string): Promise<{ file: string; outcome: Promise<WriteOutcome> }> => {
    const file = join(live.project, relative);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, DISK);
    const outcome = live.pi.write(file, PROPOSAL);
    const item = page().locator('.diff-item', { hasText: basename(file) });
    await item.waitFor();
    await item.click();
    await page().locator(`#diff-title[title="${file}"]`).waitFor();
    // Only the changes in view are drawn: the first is.
    await page().getByRole('group', { name: 'Change 1 of 3' }).waitFor();
    return { file, outcome };
  };
  const layoutShown = (width: number) => (width < 1000 ? 'unified' : 'split');
  /** The decision waits a few seconds for Undo: send it at once. */
  const sendNow = async (): Promise<void> => {
    await page().getByRole('button', { name: 'Send now' }).first().click();
  };
  /** The diff laid out for the window's width, its change bars drawn. */
  const diffReady = async (width: number): Promise<void> => {
    await page().locator(`.merge-editor[data-layout="${layoutShown(width)}"] .cm-change-bar`).first().waitFor();
  };
  const position = () => page().locator('.change-position').innerText();

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    live = await startLiveReview('ui-review');
    await page().setViewportSize({ width: 1280, height: 800 });
  });

  after(async () => {
    await live?.close();
  });

  test('rejecting the middle of three changes, taking the others and applying writes exactly changes 1 and 3, and pi hears which it did not get', async () => {
    const { file, outcome } = await propose('src/inventory.ts');
    const proposal = page().getByRole('textbox', { name: /proposed contents/ });
    // The language loads after the text is drawn: its highlighting lands a moment later.
    await proposal.locator('.tok-keyword').first().waitFor(); // TypeScript keywords are highlighted
    await proposal.locator('.tok-string').first().waitFor(); // and strings
    assert.equal(await position(), 'Change 1 of 3');
    assert.equal(await page().locator('.diff-toolbar .change-counts').textContent(), '+6 −4 lines');
    assert.equal(await page().locator('#diff-title').innerText(), 'src/inventory.ts', 'the title is relative to the project');
    await shootEverySize(page(), 'review-three-changes', diffReady);

    await page().getByRole('button', { name: 'Reject change 2 of 3' }).click();
    assert.equal(await page().getByRole('button', { name: 'Reject change 2 of 3' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await position(), 'Change 3 of 3 · 1 rejected', 'the review moves on to the next change');
    // One action takes the rest: the two undecided changes count as taken if the person chooses it.
    const apply = page().getByRole('button', { name: 'Apply 2 of 3 changes' });
    assert.equal(await apply.isDisabled(), false, 'one enabled action takes the rest');
    assert.match(await page().locator('#decision-note').innerText(), /The 2 undecided changes are taken as proposed\.$/);
    assert.equal(await page().locator('.diff-toolbar .change-counts').textContent(), '+5 −1 lines', 'the counts follow the rejection');
    await shootEverySize(page(), 'review-change-rejected', diffReady);

    await page().getByRole('button', { name: 'Accept change 1 of 3' }).click();
    await page().getByRole('button', { name: 'Accept change 3 of 3' }).click();
    const applyAll = page().getByRole('button', { name: 'Apply 2 of 3 changes' });
    // Polled from here: the page's CSP (script-src 'self') refuses waitForFunction's string once it polls.
    await waitFor(async () => (await page().evaluate<string | undefined>('document.activeElement?.textContent')) === 'Apply 2 of 3 changes', { message: 'Apply has the focus' });
    assert.equal(await applyAll.isDisabled(), false);
    await page().getByRole('textbox', { name: 'Reason for the agent (optional)' }).fill('keep the loop, it is clearer');
    await shootEverySize(page(), 'review-all-decided', diffReady);
    await applyAll.click();
    await page().getByText(/^Applying 2 of 3 changes to src\/inventory\.ts in \d s: the agent hears it then\.$/).waitFor();
    await shootEverySize(page(), 'review-waiting-to-send');
    await sendNow();
    const result = await withTimeout(outcome, WAIT_MS, 'pi hearing the decision');
    assert.equal(result.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1, 3));
    assert.deepEqual(result.said, [
      'Patchbay: accepted 2 of 3 changes of your edit to ' +
        file +
        '; change 2 (line 15 of your proposal) rejected: the file keeps its original lines there. The file now differs from your proposal: read ' +
        file +
        ' again before you change it further. Their reason: "keep the loop, it is clearer".',
    ]);
    const notice = page().getByRole('status').filter({ hasText: 'Accepted' });
    assert.equal(
      await notice.locator('.notice-text').innerText(),
      'Accepted src/inventory.ts (2 of 3 changes): written by pi. pi was told which changes it did not get. Your reason went with it.',
    );
    await page().getByRole('button', { name: /accepted inventory\.ts in Patchbay, 2 of 3 changes/ }).waitFor();
    await shootEverySize(page(), 'review-decided-notice');
  });

  test('accepting one change alone by its keys (y, x, x, then a) writes only that change', async () => {
    const { file, outcome } = await propose('lib/store.ts');
    await page().getByRole('heading', { name: /Review inbox/ }).click(); // keys act outside the editor
    await page().keyboard.press('y');
    assert.equal(await page().getByRole('button', { name: 'Accept change 1 of 3' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await position(), 'Change 2 of 3 · 1 accepted');
    await page().keyboard.press('x');
    await page().keyboard.press('x');
    assert.equal(await position(), 'Change 3 of 3 · 1 accepted, 2 rejected');
    await page().keyboard.press('a');
    await sendNow();
    assert.equal((await withTimeout(outcome, WAIT_MS, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1));
  });

  test('typing in the proposal recounts its +/− lines, and the page says keys are off while typing', async () => {
    const { file, outcome } = await propose('src/typed.ts');
    assert.equal(await page().locator('.diff-toolbar .change-counts').textContent(), '+6 −4 lines');
    const proposal = page().getByRole('textbox', { name: /proposed contents/ });
    await proposal.click();
    await page().keyboard.press('Control+Home');
    await page().keyboard.type('// typed by hand\n');
    await page().getByText('Keys are off while you type · Esc').waitFor();
    await page().locator('.diff-toolbar .change-counts', { hasText: '+7 −4 lines' }).waitFor();
    await page().getByText('Edited by you: Accept saves your version').waitFor();
    await page().keyboard.press('Escape');
    await waitFor(async () => (await page().getByText('Keys are off while you type').count()) === 0, { message: 'the note gone' });
    await page().keyboard.press('a');
    await sendNow();
    const result = await withTimeout(outcome, WAIT_MS, 'pi hearing the decision');
    assert.equal(result.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), `// typed by hand\n${PROPOSAL}`);
  });

  test('typing discarded because the edit was decided in the editor is said, and the text can be recovered', async () => {
    const { file, outcome } = await propose('src/elsewhere.ts');
    const proposal = page().getByRole('textbox', { name: /proposed contents/ });
    await proposal.click();
    await page().keyboard.press('Control+Home');
    await page().keyboard.type('// my careful fix\n');
    await page().getByText('Edited by you: Accept saves your version').waitFor();
    const offered = await live.editor.waitForDiff();
    live.editor.decide(offered.tabName, 'saved', PROPOSAL);
    assert.equal((await withTimeout(outcome, WAIT_MS, 'pi hearing the editor')).outcome, 'saved');
    const note = page().getByRole('alert').filter({ hasText: 'Your typing in elsewhere.ts was not used' });
    await note.waitFor();
    assert.match(await note.innerText(), /the edit was accepted in Neovim · project before you decided here .* Your text is kept\./);
    await shootEverySize(page(), 'review-discarded-typing');
    await note.getByRole('button', { name: 'Show your text' }).click();
    const kept = page().getByRole('textbox', { name: `Your text for ${file}` });
    assert.equal(await kept.inputValue(), `// my careful fix\n${PROPOSAL}`);
    await page().getByRole('button', { name: 'Close' }).click();
    await page().reload();
    await page().getByRole('alert').filter({ hasText: 'Your typing in elsewhere.ts was not used' }).waitFor();
    await page().getByRole('button', { name: 'Dismiss the note about elsewhere.ts' }).click();
    assert.equal(await page().getByText(/Your typing in elsewhere\.ts/).count(), 0);
  });

  test('a reject waits a few seconds: u takes it back unheard; sent with a reason, pi receives the reason', async () => {
    const { file, outcome } = await propose('src/undo.ts');
    let heard = false;
    void outcome.then(() => (heard = true));
    await page().getByRole('heading', { name: /Review inbox/ }).click();
    await page().keyboard.press('r');
    await page().getByText(/^Rejecting src\/undo\.ts in \d s/).waitFor();
    assert.equal(await page().locator('.diff-item', { hasText: 'undo.ts' }).count(), 0, 'it leaves the list while it waits');
    await page().keyboard.press('u');
    await page().locator('#diff-title', { hasText: 'src/undo.ts' }).waitFor();
    assert.equal(await page().getByText(/^Rejecting src\/undo\.ts/).count(), 0);
    await new Promise((resolve) => setTimeout(resolve, 5500));
    assert.equal(heard, false, 'the agent never heard the reject that was taken back');

    await page().getByRole('textbox', { name: 'Reason for the agent (optional)' }).fill('wrong file');
    const sentAt = Date.now();
    await page().getByRole('button', { name: 'Reject', exact: true }).click();
    const result = await withTimeout(outcome, 5000 + WAIT_MS, 'pi hearing the reject'); // the 5 s to undo, then the send
    assert.ok(Date.now() - sentAt >= 4000, 'the agent hears it once the time to undo is over');
    assert.equal(result.outcome, 'rejected');
    assert.deepEqual(result.said, [`Patchbay: the person rejected your edit of ${file}; the file is unchanged. Their reason: "wrong file".`]);
    assert.equal(await readFile(file, 'utf8'), DISK, 'nothing was written');
  });

  test('Reject all over more than one edit asks first', async () => {
    const first = await propose('src/all-1.ts');
    const file2 = join(live.project, 'src/all-2.ts');
    await writeFile(file2, DISK);
    const second = live.pi.write(file2, PROPOSAL);
    await page().locator('.diff-item', { hasText: 'all-2.ts' }).waitFor();
    await page().getByRole('button', { name: 'Reject all' }).click();
    const dialog = page().getByRole('dialog', { name: 'Reject 2 edits?' });
    await dialog.waitFor();
    await shootEverySize(page(), 'review-reject-all-confirm');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page().locator('.diff-item').count(), 2, 'cancel keeps both');
    await page().getByRole('button', { name: 'Reject all' }).click();
    await page().getByRole('dialog', { name: 'Reject 2 edits?' }).getByRole('button', { name: 'Reject 2 edits' }).click();
    await sendNow();
    assert.equal((await withTimeout(first.outcome, WAIT_MS, 'the first reject')).outcome, 'rejected');
    assert.equal((await withTimeout(second, WAIT_MS, 'the second reject')).outcome, 'rejected');
  });

  test('a rejected change comes back on its own, in the unified view a narrow window gets', async () => {
    await page().setViewportSize({ width: 800, height: 600 });
    const { file, outcome } = await propose('src/narrow.ts');
    await diffReady(800);
    assert.equal(await page().locator('.merge-editor').getAttribute('data-layout'), 'unified', 'narrow: unified by default');
    await page().getByRole('button', { name: 'Reject change 1 of 3' }).click();
    // The window shows only the top of the file: the toolbar brings the last change into view.
    await page().getByRole('button', { name: 'Next change' }).click();
    await page().getByRole('button', { name: 'Reject change 3 of 3' }).click();
    assert.equal(await position(), 'Change 2 of 3 · 2 rejected');
    await shootEverySize(page(), 'review-unified-rejections', diffReady);
    await page().setViewportSize({ width: 800, height: 600 });
    await diffReady(800);
    await page().getByRole('button', { name: 'Previous change' }).click();
    await page().getByRole('button', { name: 'Accept change 1 of 3' }).click();
    await page().getByRole('button', { name: 'Accept change 2 of 3' }).click();
    assert.equal(await position(), 'Change 2 of 3 · 2 accepted, 1 rejected');
    await page().getByRole('button', { name: 'Apply 2 of 3 changes' }).click();
    await sendNow();
    assert.equal((await withTimeout(outcome, WAIT_MS, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1, 2));
    await page().setViewportSize({ width: 1280, height: 800 });
  });

  test('history opened after a restart shows what was decided', async () => {
    const { file, outcome } = await propose('src/kept.ts');
    await page().getByRole('button', { name: 'Reject change 2 of 3' }).click();
    await page().getByRole('button', { name: 'Accept change 1 of 3' }).click();
    await page().getByRole('button', { name: 'Accept change 3 of 3' }).click();
    await page().getByRole('button', { name: 'Apply 2 of 3 changes' }).click();
    await sendNow();
    assert.equal((await withTimeout(outcome, WAIT_MS, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1, 3));

    await live.restart();
    await page().setViewportSize({ width: 1280, height: 800 });
    await page().getByRole('button', { name: /accepted kept\.ts/ }).click();
    await page().getByText(/accepted in Patchbay, 2 of 3 changes/).waitFor();
    assert.equal(await page().getByRole('status').filter({ hasText: 'Accepted' }).count(), 0, "the last Patchbay's notices do not outlive it");
    const written = page().getByRole('textbox', { name: /written/ });
    await written.waitFor();
    assert.match(await written.innerText(), /writeFile/);
    assert.doesNotMatch(await written.innerText(), /reduce/, 'the rejected change is not in what was written');
    await shootEverySize(page(), 'review-history-after-restart', async (width) => {
      await page().locator(`.decided .merge-editor[data-layout="${layoutShown(width)}"]`).waitFor();
    });
  });

  test('a 3000-line file with 41 one-line changes shows exactly those 41 lines, and taking changes 1 and 41 writes exactly them', async (t) => {
    await page().setViewportSize({ width: 1280, height: 800 });
    const file = join(live.project, 'src/big.ts');
    await writeFile(file, BIG_DISK);
    const outcome = live.pi.write(file, BIG_PROPOSAL);
    const item = page().locator('.diff-item', { hasText: 'big.ts' });
    await item.waitFor();
    const started = performance.now();
    await item.click();
    await page().getByRole('group', { name: 'Change 1 of 41' }).waitFor();
    const openMs = performance.now() - started;
    assert.equal(await position(), 'Change 1 of 41');
    assert.equal(await page().locator('.diff-toolbar .change-counts').textContent(), '+41 −41 lines');
    /** Every line painted as changed, on both sides, is one of the agent's changed lines. */
    const paintedLines = async (): Promise<string[]> => page().locator('.merge-editor .cm-changedLine').allInnerTexts();
    const assertOnlyChangedLinesPainted = async (when: string): Promise<void> => {
      const painted = await paintedLines();
      assert.ok(painted.length >= 2, `${when}: a change is painted on both sides`);
      for (const line of painted) {
        const step = /^export function step(\d+)\(input: string\): string \{( \/\/ reviewed change \d+)?$/.exec(line)?.[1];
        assert.ok(step !== undefined && BIG_CHANGED_LINES.includes(Number(step)), `${when}: only changed lines are painted, not ${JSON.stringify(line)}`);
      }
    };
    await assertOnlyChangedLinesPainted('opened');
    await shootEverySize(page(), 'review-big-file', diffReady);

    // n walks the 41 changes; each shows its own line and nothing else as changed.
    const steps: number[] = [];
    for (let n = 2; n <= 41; n++) {
      const before = performance.now();
      await page().keyboard.press('n');
      await page().locator('.change-position', { hasText: new RegExp(`^Change ${n} of 41`) }).waitFor();
      await page().locator('.cm-change-bar.is-current').first().waitFor();
      steps.push(performance.now() - before);
      if (n % 10 === 0 || n === 41) await assertOnlyChangedLinesPainted(`at change ${n}`);
    }
    const perStep = steps.reduce((a, b) => a + b, 0) / steps.length;
    t.diagnostic(`big file: opened in ${openMs.toFixed(0)} ms (a click on it to its first change drawn); n took ${perStep.toFixed(1)} ms on average, ${Math.max(...steps).toFixed(0)} ms at most`);
    console.log(`# big file: opened in ${openMs.toFixed(0)} ms; n took ${perStep.toFixed(1)} ms on average, ${Math.max(...steps).toFixed(0)} ms at most`);

    // Change 41 is current: accept it; every other but the first is rejected, then the first taken.
    await page().keyboard.press('y');
    for (let n = 2; n <= 40; n++) {
      await page().getByRole('button', { name: `Reject change ${n} of 41` }).dispatchEvent('click');
    }
    assert.match(await position(), /1 accepted, 39 rejected/);
    await page().getByRole('button', { name: 'Accept change 1 of 41' }).dispatchEvent('click');
    await page().getByRole('button', { name: 'Apply 2 of 41 changes' }).click();
    await sendNow();
    assert.equal((await withTimeout(outcome, WAIT_MS, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), bigWithChanges([1, 41]));
  });

  test('a file on disk that could not be read (a symlink into /proc) is shown as such, not as an empty file', { skip: process.platform !== 'linux' }, async () => {
    const file = join(live.project, 'environ.txt');
    await symlink('/proc/self/environ', file);
    const outcome = live.pi.write(file, 'HOME=/nowhere\n');
    await page().locator('.diff-item', { hasText: 'environ.txt' }).click();
    await page().locator(`#diff-title[title="${file}"]`).waitFor();
    const why = `it is a kernel file (/proc/${process.pid}/environ)`;
    await page().getByText(`The file on disk could not be read (${why}); only the proposal is shown`).waitFor();
    assert.equal(await page().locator('.diff-item', { hasText: 'environ.txt' }).locator('.diff-sub').innerText().then((t) => t.includes('unreadable on disk')), true);
    assert.equal(await page().getByText('On disk', { exact: true }).count(), 0, 'no empty "on disk" side');
    const [pending] = (await live.hub.call('snapshot', undefined)).diffs.filter((d) => d.path === file);
    assert.equal(pending?.unreadable, why);
    const { patch } = await unifiedDiff(await live.hub.call('diffs.get', { id: pending!.id }));
    assert.match(patch, new RegExp(`^--- .*environ\\.txt\\s+on disk \\(could not be read: it is a kernel file`, 'm'));
    await page().getByRole('button', { name: 'Reject', exact: true }).click();
    await sendNow();
    assert.equal((await withTimeout(outcome, WAIT_MS, 'pi hearing the decision')).outcome, 'rejected');
  });

  test('the page logged no errors', () => {
    assert.deepEqual(live.ui.consoleErrors, []);
  });
});
