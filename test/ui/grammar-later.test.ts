// A diff is drawn before its file type's grammar has arrived (a cold page would otherwise show
// nothing while the grammar is fetched and compiled); the highlighting follows once it is in,
// side by side and unified, where the deleted lines are drawn again to get it too.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { openFakeUi, skipWithoutChromium } from './chromium.ts';
import { waitFor } from '../peers/wait.ts';

const OLD = 'export const limit = 1;\nexport function twice(n: number): number {\n  return n * 2;\n}\n';
const NEW = 'export let limit = 2;\nexport function twice(n: number): number {\n  return n * 2;\n}\n';

/** Holds back the TypeScript grammar's chunks (each names the dialect) until the returned function is called. */
async function holdGrammar(page: Page): Promise<{ held: () => number; release: () => void }> {
  let release = (): void => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = 0;
  // Routing turns the browser's cache off: every chunk passes through here.
  await page.context().route('**/assets/*.js', async (route) => {
    const response = await route.fetch();
    const body = await response.text();
    if (body.includes('typescriptLanguage')) {
      held += 1;
      await released;
    }
    await route.fulfill({ response, body });
  });
  return { held: () => held, release };
}

for (const { layout, width } of [
  { layout: 'split', width: 1280 },
  { layout: 'unified', width: 700 },
] as const) {
  test(`a .ts diff shows before its grammar arrives, and is highlighted once it does (${layout})`, { skip: skipWithoutChromium }, async (t) => {
    const { ui, hub } = await openFakeUi(t, `ui-grammar-${layout}`);
    const summary = hub.state.diffs[0]!;
    summary.path = '/work/proj/limits.ts';
    hub.details.set('d1', { ...hub.details.get('d1')!, path: summary.path, oldContents: OLD, newContents: NEW });
    const origin = new URL(ui.page.url()).origin;
    const tab = await ui.page.context().newPage();
    await ui.page.close();
    await tab.setViewportSize({ width, height: 800 });
    const grammar = await holdGrammar(tab);

    await tab.goto(`${origin}/#/review/d1`);
    const editor = tab.locator(`.merge-editor[data-layout="${layout}"]`);
    await editor.locator('.cm-line', { hasText: 'export let limit = 2;' }).waitFor();
    // The page may draw the diff before it even asks for the grammar (a loaded machine): it must ask, and wait.
    await waitFor(() => grammar.held() > 0, { timeoutMs: 10_000, message: 'the grammar was asked for and held' });
    assert.equal(await editor.locator('.tok-keyword').count(), 0, 'nothing is highlighted while the grammar is held');

    grammar.release();
    await editor.locator('.cm-line .tok-keyword', { hasText: 'let' }).first().waitFor();
    // The deleted line (`const`) is highlighted too: in the left pane, or unified in its deleted stretch.
    const deleted = layout === 'split' ? editor.locator('.cm-merge-a .tok-keyword', { hasText: 'const' }) : editor.locator('.cm-deletedChunk .tok-keyword', { hasText: 'const' });
    await deleted.first().waitFor();
    assert.equal(await editor.locator('.cm-editor').count(), layout === 'split' ? 2 : 1, 'one editor per side, none left over from the first build');
  });
}
