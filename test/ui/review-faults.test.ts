// What a new user's pass over the review found (issue 29), each fixed and checked in Chromium
// against the real hub: the keys come back with Esc from a select; side by side stays level in a
// deletion-heavy hunk; a decision on its way is the same everywhere; a change's bar counts the
// person's typing; ages move; the unified view numbers deleted lines; Claude Code's diffs are
// named for what they are; suggestions follow the folder.
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pendingCount } from '../../electron/shared/diff-notifications.ts';
import { formatStatus } from '../../src/cli/format.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { startHarness } from '../relay/harness.ts';
import { waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';
import { openUi, skipWithoutChromium } from './chromium.ts';
import { shootEverySize, startLiveReview, type LiveReview } from './live-review.ts';
import { DISK, PROPOSAL } from './review-fixtures.ts';

describe('the review faults a new user found', { skip: skipWithoutChromium }, () => {
  let live: LiveReview;
  const page = () => live.ui.page;
  /** A pending diff of `name` (disk → proposal), opened; resolves with what pi heard, when it does. */
  const propose = async (name: string, disk: string, proposal: string) => {
    const path = join(live.project, name);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, disk);
    const outcome = live.pi.write(path, proposal);
    const item = page().getByRole('button', { name: new RegExp(name.split('/').pop()!.replace('.', '\\.')) }).first();
    await item.waitFor();
    await item.click();
    await page().locator(`#diff-title[title="${path}"]`).waitFor();
    await page().locator('.cm-change-bar').first().waitFor();
    return { path, outcome };
  };
  const decideInHub = async (path: string): Promise<void> => {
    const diff = (await live.hub.call('snapshot', undefined)).diffs.find((d) => d.path === path && d.status === 'pending');
    if (diff) await live.hub.call('diffs.reject', { id: diff.id });
  };

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    live = await startLiveReview('ui-faults');
    await page().setViewportSize({ width: 1280, height: 800 });
  });
  after(async () => {
    await live?.close();
  });

  test('Esc gives the keys back from the Layout select: n moves to the next change without a mouse click', async () => {
    const { path } = await propose('keys.ts', DISK, PROPOSAL);
    await page().getByLabel('Layout').focus();
    await page().getByText('Keys are off while you type · Esc').waitFor();
    await page().keyboard.press('n');
    assert.equal(await page().locator('.change-position').innerText(), 'Change 1 of 3', 'n is a key of the select while it has the focus');
    await page().keyboard.press('Escape');
    await waitFor(async () => (await page().getByText('Keys are off while you type').count()) === 0, { message: 'the keys back' });
    await page().keyboard.press('n');
    assert.equal(await page().locator('.change-position').innerText(), 'Change 2 of 3');
    // A checkbox takes no typing: the keys stay on after a click on it.
    await page().getByRole('checkbox', { name: 'Wrap lines' }).click();
    await page().keyboard.press('n');
    assert.equal(await page().locator('.change-position').innerText(), 'Change 3 of 3');
    await page().getByRole('checkbox', { name: 'Wrap lines' }).click();
    await decideInHub(path);
  });

  test('side by side, a deletion-heavy hunk (200 lines down to 20) leaves both panes level, bars and lines', async () => {
    const block = (n: number) => Array.from({ length: n }, (_, i) => `  kept line ${i} of the block;`);
    const gap = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `const ${tag}${i} = ${i};`);
    const kept = block(200);
    const disk = [...gap('a', 5), ...kept, ...gap('b', 12), ''].join('\n');
    const proposal = [...gap('a', 5), ...kept.filter((_, i) => i % 10 === 0), ...gap('b', 12), ''].join('\n');
    const { path } = await propose('deletions.ts', disk, proposal);
    await page().getByLabel('Layout').selectOption('split');
    await page().locator('.merge-editor[data-layout="split"] .cm-merge-a .cm-change-bar').first().waitFor();
    const offsets = async (): Promise<number[]> =>
      (await page().evaluate(`(() => {
        const tops = (side) => {
          const out = new Map();
          for (const l of document.querySelectorAll('.cm-merge-' + side + ' .cm-line')) out.set(l.textContent, Math.round(l.getBoundingClientRect().top));
          return out;
        };
        const a = tops('a');
        const b = tops('b');
        const shared = [...a.keys()].filter((t) => b.has(t) && /kept line \\d+0 |const b/.test(t));
        const bars = (side) => new Map([...document.querySelectorAll('.cm-merge-' + side + ' .cm-change-bar')].map((x) => [x.dataset.change, Math.round(x.getBoundingClientRect().top)]));
        const barsA = bars('a');
        const barsB = bars('b');
        const both = [...barsA.keys()].filter((n) => barsB.has(n));
        return [...shared.map((t) => a.get(t) - b.get(t)), ...both.map((n) => barsA.get(n) - barsB.get(n))];
      })()`)) as number[];
    for (const scroll of [0, 1200, 2400, 3600]) {
      await page().locator('.merge-editor').evaluate((el, y) => (el.scrollTop = y), scroll);
      await page().waitForTimeout(150);
      const seen = await offsets();
      assert.ok(seen.length > 0, `lines on both sides at scroll ${scroll}`);
      assert.deepEqual(
        seen.filter((d) => d !== 0),
        [],
        `both sides level at scroll ${scroll}`,
      );
    }
    await page().locator('.merge-editor').evaluate((el) => (el.scrollTop = 600));
    await shootEverySize(page(), 'review-deletion-heavy', async () => {
      await page().locator('.cm-change-bar').first().waitFor();
    });
    await page().getByLabel('Layout').selectOption('auto');
    await decideInHub(path);
  });

  test('a decision on its way to the agent is the same in the badge, the inbox, the CLI and the hub; Undo brings it back', async () => {
    const { path, outcome } = await propose('grace.ts', DISK, PROPOSAL);
    const badge = page().getByRole('navigation', { name: 'Views' }).locator('.nav-badge.count');
    await badge.waitFor();
    assert.match(await badge.innerText(), /^1\b/, 'one edit waits');
    await page().getByRole('heading', { name: /Review inbox/ }).click();
    await page().keyboard.press('a');
    await page().getByText(/^Accepting grace\.ts in \d s: the agent hears it then\.$/).waitFor();
    await badge.waitFor({ state: 'detached' });
    await page().getByRole('heading', { name: 'Review inbox (0)' }).waitFor();
    // The page shows its own request at once; the hub has it once the call crosses the socket.
    const snapshot = await waitFor(async () => {
      const s = await live.hub.call('snapshot', undefined);
      return s.diffs.find((d) => d.path === path)?.deciding !== undefined && s;
    }, { message: 'the decision held by the hub' });
    const diff = snapshot.diffs.find((d) => d.path === path)!;
    assert.equal(diff.deciding?.outcome, 'accept', 'the hub holds the decision');
    assert.equal(pendingCount(snapshot), 0, "the tray's count");
    assert.match(formatStatus(snapshot, '127.0.0.1'), /Pending diffs: 0 \(and 1 decided, on its way to the agent\)/);
    await page().getByRole('button', { name: 'Undo' }).click();
    await page().getByRole('heading', { name: 'Review inbox (1)' }).waitFor();
    await badge.waitFor();
    // Taken back on the page at once; in the hub once the call crosses the socket.
    await waitFor(async () => (await live.hub.call('snapshot', undefined)).diffs.find((d) => d.path === path)?.deciding === undefined, {
      message: 'the decision taken back in the hub',
    });
    assert.equal((await live.hub.call('snapshot', undefined)).diffs.find((d) => d.path === path)?.status, 'pending');
    // Decided again, in another tab that then closes: the hub still sends it.
    const other = await page().context().newPage();
    await other.goto(page().url());
    await other.getByRole('button', { name: /grace\.ts/ }).first().click();
    await other.locator('.cm-change-bar').first().waitFor();
    await other.getByRole('button', { name: 'Accept', exact: true }).click();
    await other.getByText(/^Accepting grace\.ts in/).waitFor();
    await other.close();
    // The 5 s to undo, then the send.
    assert.equal((await withTimeout(outcome, 5000 + WAIT_MS, 'the decision sent by the hub')).outcome, 'saved');
  });

  test("a change's bar counts the lines the person typed into it, as the top does", async () => {
    const { path } = await propose('typed-bar.ts', DISK, PROPOSAL);
    const bar = page().getByRole('group', { name: 'Change 2 of 3' });
    assert.equal(await bar.locator('.cm-change-count').innerText(), '+1 −3');
    await page().locator('.cm-merge-b .cm-line', { hasText: 'return items.reduce' }).click();
    await page().keyboard.press('End');
    await page().keyboard.type('\n  // and one more line');
    await page().locator('.diff-toolbar .change-counts', { hasText: '+7 −4 lines' }).waitFor();
    assert.equal(await bar.locator('.cm-change-count').innerText(), '+2 −3');
    await page().keyboard.press('Escape');
    await decideInHub(path);
  });

  test('relative ages move on by the second while they count seconds', async () => {
    const { path } = await propose('ages.ts', DISK, PROPOSAL);
    const age = page().getByRole('button', { name: /ages\.ts/ }).locator('.diff-sub');
    const first = await age.innerText();
    // Polled from here: the page's CSP (script-src 'self') refuses waitForFunction's string.
    await waitFor(async () => (await age.innerText()) !== first, { message: 'the age moved on' });
    await decideInHub(path);
  });

  test('the unified layout numbers deleted lines as on disk, level with them', async () => {
    const { path } = await propose('unified.ts', DISK, PROPOSAL);
    await page().getByLabel('Layout').selectOption('unified');
    await page().locator('.merge-editor[data-layout="unified"] .cm-deletedLineNumbers').first().waitFor();
    const rows = (await page().evaluate(`(() => {
      const numbers = [...document.querySelectorAll('.cm-deletedLineNumbers > div')];
      const lines = [...document.querySelectorAll('.cm-deletedChunk .cm-deletedLine')];
      return numbers.map((n, i) => [n.textContent, Math.round(n.getBoundingClientRect().top - lines[i].getBoundingClientRect().top)]);
    })()`)) as [string, number][];
    // Change 1 deletes line 1, change 2 lines 15–17 of the file on disk.
    assert.deepEqual(
      rows.map(([n]) => n),
      ['1', '15', '16', '17'],
    );
    assert.deepEqual(
      rows.map(([, d]) => d),
      [0, 0, 0, 0],
      'each number beside its line',
    );
    await shootEverySize(page(), 'review-unified-deleted-numbers', async () => {
      await page().locator('.cm-deletedLineNumbers').first().waitFor();
    });
    await page().getByLabel('Layout').selectOption('auto');
    await decideInHub(path);
  });

  test("suggestions follow the folder: with the pi bound to Patchbay's review in Pairing, its editor's getSuggestions still reaches it", async () => {
    await page().evaluate("window.location.hash = '#/pairing'");
    await page().getByLabel('Editor for this session').selectOption({ label: 'Patchbay review' });
    await waitFor(async () => (await live.hub.call('snapshot', undefined)).sessions[0]!.editorId === null, { message: 'bound to Patchbay' });
    const answer = await live.editor.getSuggestions({ filePath: join(live.project, 'a.ts'), cursorBefore: 'let x = ', cursorAfter: '' });
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    await page().getByLabel('Editor for this session').selectOption({ index: 0 });
    await page().evaluate("window.location.hash = '#/review'");
  });
});

test("Claude Code's diffs are named for what they are (edit, or write for a new file), not \"other\"", { skip: skipWithoutChromium }, async (t) => {
  assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
  const h = await startHarness();
  t.after(() => h.close());
  const folder = await h.folder('claude');
  await writeFile(join(folder, 'a.txt'), 'one\n');
  const claude = await h.claude(folder);
  void claude.openDiff(join(folder, 'a.txt'), 'two\n');
  void claude.openDiff(join(folder, 'b.txt'), 'new\n');
  await waitFor(async () => (await h.hub.call('snapshot', undefined)).diffs.length === 2, { message: 'two diffs' });
  const ui = await openUi(h.hub, h.options);
  t.after(() => ui.close());
  await ui.page.getByRole('button', { name: /a\.txt/ }).click();
  await ui.page.getByText(/^edit from claude/).waitFor();
  await ui.page.getByRole('button', { name: /b\.txt/ }).click();
  await ui.page.getByText(/^write from claude/).waitFor();
});
