// Per-change review through the whole chain: the real hub behind the control server, a fake
// pi that writes the file when told FILE_SAVED, the built UI in Debian's Chromium. What lands
// on disk is checked byte for byte. Screenshots of each state, light and dark, at 1280×800 and
// 800×600, go to test-results/ui/review-*.png (look at them).
import assert from 'node:assert/strict';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { buildIfStale } from '../../src/cli/start.ts';
import type { WriteOutcome } from '../peers/fake-pi.ts';
import { withTimeout } from '../peers/wait.ts';
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
    await page().locator('#diff-title', { hasText: file }).waitFor();
    // Only the changes in view are drawn: the first is.
    await page().getByRole('group', { name: 'Change 1 of 3' }).waitFor();
    return { file, outcome };
  };
  const layoutShown = (width: number) => (width < 1000 ? 'unified' : 'split');
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

  test('rejecting the middle of three changes and accepting writes exactly changes 1 and 3', async () => {
    const { file, outcome } = await propose('src/inventory.ts');
    const proposal = page().getByRole('textbox', { name: /proposed contents/ });
    assert.ok((await proposal.locator('.tok-keyword').count()) > 0, 'TypeScript keywords are highlighted');
    assert.ok((await proposal.locator('.tok-string').count()) > 0, 'strings are highlighted');
    assert.equal(await position(), 'Change 1 of 3');
    assert.equal(await page().locator('.diff-toolbar .change-counts').textContent(), '+6 −4 lines');
    await shootEverySize(page(), 'review-three-changes', diffReady);

    await page().getByRole('button', { name: 'Reject change 2 of 3' }).click();
    assert.equal(await page().getByRole('button', { name: 'Reject change 2 of 3' }).getAttribute('aria-pressed'), 'true');
    assert.equal(await position(), 'Change 3 of 3 · 1 rejected', 'the review moves on to the next change');
    assert.equal(await page().locator('#accept-outcome').innerText(), 'Accept writes 2 of 3 changes.');
    await shootEverySize(page(), 'review-change-rejected', diffReady);

    await page().getByRole('button', { name: 'Accept', exact: true }).click();
    const result = await withTimeout(outcome, 5000, 'pi hearing the decision');
    assert.equal(result.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1, 3));
    const notice = page().getByRole('status').filter({ hasText: 'Accepted' });
    assert.equal(await notice.locator('.notice-text').innerText(), 'Accepted src/inventory.ts (2 of 3 changes): written by pi.');
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
    assert.equal((await withTimeout(outcome, 5000, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1));
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
    assert.equal(await position(), 'Change 2 of 3 · 1 accepted, 1 rejected');
    await page().getByRole('button', { name: 'Accept', exact: true }).click();
    assert.equal((await withTimeout(outcome, 5000, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1, 2));
    await page().setViewportSize({ width: 1280, height: 800 });
  });

  test('history opened after a restart shows what was decided', async () => {
    const { file, outcome } = await propose('src/kept.ts');
    await page().getByRole('button', { name: 'Reject change 2 of 3' }).click();
    await page().getByRole('button', { name: 'Accept', exact: true }).click();
    assert.equal((await withTimeout(outcome, 5000, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), withChanges(1, 3));

    await live.restart();
    await page().setViewportSize({ width: 1280, height: 800 });
    await page().getByRole('button', { name: /accepted kept\.ts/ }).click();
    await page().getByText(/accepted in Patchbay, edited/).waitFor();
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

    // Change 41 is current: accept it; every other but the first is rejected.
    await page().keyboard.press('y');
    for (let n = 2; n <= 40; n++) {
      await page().getByRole('button', { name: `Reject change ${n} of 41` }).dispatchEvent('click');
    }
    assert.match(await position(), /1 accepted, 39 rejected/);
    await page().getByRole('button', { name: 'Accept', exact: true }).click();
    assert.equal((await withTimeout(outcome, 5000, 'pi hearing the decision')).outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), bigWithChanges([1, 41]));
  });

  test('the page logged no errors', () => {
    assert.deepEqual(live.ui.consoleErrors, []);
  });
});
