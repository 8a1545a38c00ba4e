// The Sessions view as a daily pi client, in Debian's Chromium against the headless face over
// an in-memory hub: replies as markdown with highlighted code, the prompt box as pi's editor
// (Enter sends, / completes commands, images, what pi queued), the session's actions (fork,
// export, name, settings), shell runs, widgets and title, pi's saved sessions and resuming.
// Screenshots: test-results/ui/client-*.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { HostedDetail, HubMethod } from '../../src/api/types.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { tempDir, waitFor, type TempDir } from '../peers/wait.ts';
import { NOW, createFakeHub, hostedView, type FakeHub } from '../web/fake-hub.ts';
import { SHOTS, openUi, skipWithoutChromium, type UiSession } from './chromium.ts';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The little of the DOM these checks use (this file is type-checked without the DOM library). */
interface Box {
  getBoundingClientRect(): { top: number };
}

describe('the Sessions view as a pi client, in a browser', { skip: skipWithoutChromium }, () => {
  let tmp: TempDir;
  let hub: FakeHub;
  let ui: UiSession;
  let page: Page;
  const folder = '/work/demo-project';

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `client-${name}.png`) });
  const callsOf = (method: HubMethod): unknown[] => hub.calls.filter((c) => c.method === method).map((c) => c.params);
  const lastCall = async (method: HubMethod, count: number): Promise<unknown> => {
    await waitFor(() => callsOf(method).length >= count, { message: `${method} call #${count}` });
    return callsOf(method)[count - 1];
  };
  const detail = (): HostedDetail => hub.hosted.get('h1')!;
  /** The hub's copy changed the way a snapshot shows. */
  const push = (): void => {
    hub.state.hosted = [...hub.hosted.values()].map(hostedView);
    hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
  };
  /** A pi event the panel reads the session again after. */
  const piEvent = (event: Record<string, unknown>): void => hub.emit({ type: 'pi', id: 'h1', event });
  const transcript = () => page.getByRole('log', { name: 'Transcript' });
  const prompt = () => page.getByLabel('Prompt', { exact: true });

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    await mkdir(SHOTS, { recursive: true });
    tmp = await tempDir('hosted-ui-client');
    hub = createFakeHub();
    hub.state.hosted = [];
    await hub.call('pi.start', { cwd: folder });
    push();
    ui = await openUi(hub, { home: tmp.path, version: '0.1.0' }, '#/sessions/h1');
    page = ui.page;
    await prompt().waitFor({ timeout: 10_000 });
  });

  after(async () => {
    await ui?.close();
    await tmp?.cleanup();
  });

  test("a reply shows as formatted markdown with its code highlighted; HTML in it stays text", async () => {
    detail().transcript.push(
      { kind: 'user', text: 'Show me', at: NOW },
      {
        kind: 'assistant',
        thinking: '',
        done: true,
        at: NOW,
        text: 'Here is **the plan**, in `src/plan.ts`:\n\n1. read\n2. write\n\n```ts\nconst answer: number = 42; // the one\n```\n\n<img src="x" onerror="alert(1)"> <b>not bold</b> [docs](https://example.org) [bad](javascript:alert(1))',
      },
    );
    piEvent({ type: 'agent_settled' });
    const reply = transcript().getByRole('article', { name: 'pi' });
    await reply.locator('strong', { hasText: 'the plan' }).waitFor();
    await reply.locator('ol li', { hasText: 'write' }).waitFor();
    await reply.locator('code', { hasText: 'src/plan.ts' }).waitFor();
    // Highlighted once TypeScript's grammar has loaded: `const` as a keyword, the comment as one.
    await reply.locator('pre code .tok-keyword', { hasText: 'const' }).waitFor();
    await reply.locator('pre code .tok-comment', { hasText: '// the one' }).waitFor();
    assert.equal(await reply.locator('img').count(), 0, 'no element from the reply’s HTML');
    assert.equal(await reply.locator('b').count(), 0);
    await reply.getByText('<b>not bold</b>', { exact: false }).waitFor();
    assert.equal(await reply.getByRole('link', { name: 'docs' }).getAttribute('target'), '_blank');
    assert.equal(await reply.getByRole('link', { name: 'bad' }).count(), 0, 'a javascript: link is not a link');
    await shot('markdown');
  });

  test('Enter sends, Shift+Enter breaks the line, as in pi’s editor; the keys are shown', async () => {
    await prompt().click();
    await page.keyboard.type('line one');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('line two');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastCall('pi.prompt', 1), { id: 'h1', text: 'line one\nline two' });
    await waitFor(async () => (await prompt().inputValue()) === '', { message: 'the box emptied' });
    const hint = page.locator('.shortcut-hint');
    for (const key of ['Enter', 'Shift+Enter', 'Alt+Enter', 'Tab']) await hint.locator('kbd', { hasText: new RegExp(`^${key.replace('+', '\\+')}$`) }).waitFor();
  });

  test('a / offers pi’s commands and the TUI’s; Tab completes; the command runs as pi’s own and says what it did', async () => {
    await prompt().fill('/');
    const menu = page.getByRole('listbox', { name: 'Commands' });
    await menu.getByRole('option', { name: /\/ide/ }).waitFor();
    await menu.getByRole('option', { name: /\/compact \[instructions\]/ }).waitFor();
    await prompt().press('n');
    await prompt().press('a');
    assert.deepEqual(await menu.getByRole('option').allInnerTexts().then((t) => t.map((x) => x.split(' ')[0])), ['/name']);
    await shot('command-menu');
    await prompt().press('Tab');
    assert.equal(await prompt().inputValue(), '/name ');
    await page.keyboard.type('Parser work');
    hub.handlers['pi.prompt'] = ({ text }) => ({ ran: 'name', name: text.slice('/name '.length) });
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastCall('pi.prompt', 2), { id: 'h1', text: '/name Parser work' });
    await page.getByRole('status').getByText('Named this session “Parser work”.').waitFor();
    await prompt().fill('/zz');
    assert.equal(await menu.count(), 0, 'no menu when nothing matches');
  });

  test('an image attached or pasted goes with the prompt; it can be taken off again', async () => {
    let sent: unknown = null;
    hub.handlers['pi.prompt'] = (params) => {
      sent = params;
      return { ran: 'prompt' };
    };
    await prompt().fill('what is this');
    await page.getByLabel('Attach images').setInputFiles({ name: 'shot.png', mimeType: 'image/png', buffer: Buffer.from(PNG_1PX, 'base64') });
    await page.getByRole('list', { name: 'Images to send' }).getByRole('img', { name: 'shot.png' }).waitFor();
    // Pasted: a second one, then taken off.
    // As the browser delivers a paste of an image: a ClipboardEvent whose data holds the file.
    await page.evaluate(`(() => {
      const bytes = Uint8Array.from(atob(${JSON.stringify(PNG_1PX)}), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
      const box = document.querySelector('.prompt-box textarea');
      box.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
    })()`);
    await page.getByRole('img', { name: 'pasted.png' }).waitFor();
    await page.getByRole('button', { name: 'Remove pasted.png' }).click();
    await shot('image');
    await prompt().press('Enter');
    await waitFor(() => sent !== null, { message: 'the prompt sent' });
    assert.deepEqual(sent, { id: 'h1', text: 'what is this', images: [{ data: PNG_1PX, mimeType: 'image/png' }] });
    await page.getByRole('list', { name: 'Images to send' }).waitFor({ state: 'detached' });
    await page.getByLabel('Attach images').setInputFiles({ name: 'notes.txt', mimeType: 'image/png', buffer: Buffer.from('not an image') });
    await page.getByRole('alert').getByText('notes.txt is not a PNG, JPEG, GIF or WebP image').waitFor();
  });

  test('what pi has queued shows above the box; taken back, it is in the box to edit', async () => {
    detail().queue = { steering: ['use tabs'], followUp: ['then the docs'] };
    piEvent({ type: 'queue_update', steering: ['use tabs'], followUp: ['then the docs'] });
    const queued = page.getByRole('region', { name: 'Queued for pi' });
    await queued.getByText('use tabs').waitFor();
    await queued.getByText('then the docs').waitFor();
    await shot('queue');
    await prompt().fill('my draft');
    await queued.getByRole('button', { name: 'Take back to edit' }).click();
    await waitFor(async () => (await prompt().inputValue()) === 'my draft\n\nuse tabs\n\nthen the docs', { message: 'the queue back in the box' });
    piEvent({ type: 'queue_update', steering: [], followUp: [] });
    await queued.waitFor({ state: 'detached' });
  });

  test('an extension fills the prompt box (set_editor_text)', async () => {
    piEvent({ type: 'extension_ui_request', id: 'e1', method: 'set_editor_text', text: 'Summarise the diff' });
    await waitFor(async () => (await prompt().inputValue()) === 'Summarise the diff', { message: 'the box filled' });
  });

  test('Fork… lists the earlier prompts; the one chosen comes back into the box, pi going on in a new session', async () => {
    await page.getByRole('button', { name: 'Fork…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Fork from an earlier prompt' });
    await dialog.getByRole('button', { name: 'Show me' }).waitFor();
    await shot('fork');
    await dialog.getByRole('button', { name: 'Show me' }).click();
    assert.deepEqual(await lastCall('pi.fork', 1), { id: 'h1', entryId: 'e0' });
    await waitFor(async () => (await prompt().inputValue()) === 'Show me', { message: 'the forked prompt in the box' });
    await page.getByRole('status').getByText(/Forked into a new session/).waitFor();
  });

  test('Export says where the file went; Name… names the session; Settings… switches how pi compacts', async () => {
    await page.getByRole('button', { name: 'Export', exact: true }).click();
    await page.getByRole('status').getByText(`Exported the session to ${folder}/pi-session.html`).waitFor();
    await page.getByRole('button', { name: 'Name…' }).click();
    const naming = page.getByRole('dialog', { name: 'Name this session' });
    await naming.getByLabel('Name').fill('Release notes');
    await naming.getByRole('button', { name: 'Save name' }).click();
    assert.deepEqual(await lastCall('pi.setName', 1), { id: 'h1', name: 'Release notes' });
    push();
    await page.locator('.hosted-heading').getByText('Release notes').waitFor();
    await page.getByRole('list', { name: 'Hosted sessions' }).getByText('Release notes').waitFor();

    await page.getByRole('button', { name: 'Settings…' }).click();
    const settings = page.getByRole('dialog', { name: 'Session settings' });
    // The box shows pi's value: clicked, it changes once the session is read again.
    const compaction = settings.getByLabel(/Compact by itself/);
    await compaction.click();
    assert.deepEqual(await lastCall('pi.setAutoCompaction', 1), { id: 'h1', enabled: false });
    await waitFor(async () => !(await compaction.isChecked()), { message: 'the box follows pi' });
    await settings.getByLabel('Follow-ups are given to pi').selectOption('all');
    assert.deepEqual(await lastCall('pi.setQueueModes', 1), { id: 'h1', followUp: 'all' });
    await shot('settings');
    await settings.getByRole('button', { name: 'Done' }).click();
    await settings.waitFor({ state: 'detached' });
  });

  test("the thinking levels are pi's own for the model", async () => {
    const options = await page.getByLabel('Thinking level').locator('option').allInnerTexts();
    assert.deepEqual(options, ['off', 'minimal', 'low', 'medium', 'high']);
  });

  test('a shell command streams into its card, and can be stopped', async () => {
    detail().transcript.push({ kind: 'bash', requestId: 'pb-9', command: 'npm test', output: '', exitCode: null, cancelled: false, excluded: false, done: false, at: NOW });
    piEvent({ type: 'hosted_bash_start', requestId: 'pb-9', command: 'npm test' });
    const card = transcript().getByRole('article', { name: 'Shell command' });
    await card.getByText('npm test').waitFor();
    piEvent({ type: 'bash_execution_update', id: 'pb-9', delta: 'ok 1 - parses\n' });
    piEvent({ type: 'bash_execution_update', id: 'pb-9', delta: 'ok 2 - prints\n' });
    await card.getByLabel('Shell output').getByText('ok 2 - prints', { exact: false }).waitFor();
    await card.getByRole('button', { name: 'Stop command' }).click();
    assert.deepEqual(await lastCall('pi.abortBash', 1), { id: 'h1' });
    Object.assign(detail().transcript.at(-1)!, { done: true, cancelled: true, output: 'ok 1 - parses\nok 2 - prints\n' });
    piEvent({ type: 'hosted_bash_end', requestId: 'pb-9' });
    await card.getByText('cancelled').waitFor();
  });

  test('widgets sit where pi places them; an extension’s title names the panel; status lines are short', async () => {
    detail().widgets = [
      { key: 'todo', lines: ['1. write the tests', '2. ship'], placement: 'aboveEditor' },
      { key: 'hint', lines: ['tip: /compact keeps it short'], placement: 'belowEditor' },
    ];
    detail().statusLines = { 'pi-ide': 'IDE: Patchbay' };
    detail().title = 'pi — release work';
    push();
    await page.getByRole('heading', { name: 'pi — release work' }).waitFor();
    const top = (locator: ReturnType<Page['locator']>) => locator.evaluate((el) => (el as unknown as Box).getBoundingClientRect().top);
    const above = page.getByLabel('Widget todo');
    const below = page.getByLabel('Widget hint');
    await above.waitFor();
    const box = await top(prompt());
    assert.ok((await top(above)) < box, 'aboveEditor above the box');
    assert.ok((await top(below)) > box, 'belowEditor below it');
    await page.getByRole('list', { name: 'Status lines' }).getByText('IDE: Patchbay').waitFor();
    assert.equal(await page.getByText('widget:todo').count(), 0, 'no raw keys');
    await shot('widgets');
  });

  test("pi's saved sessions are found by a word and opened with their history", async () => {
    hub.savedSessions.push(
      { file: '/home/u/.pi/agent/sessions/--work-app--/a.jsonl', id: 'a', cwd: '/work/app', name: null, firstPrompt: 'Fix the flaky parser test', createdAt: NOW, modifiedAt: Date.now() - 3 * 3_600_000, bytes: 20_480, messages: 6, hostedId: null },
      { file: '/home/u/.pi/agent/sessions/--work-web--/b.jsonl', id: 'b', cwd: '/work/web', name: 'Landing page', firstPrompt: 'Make the hero smaller', createdAt: NOW, modifiedAt: Date.now() - 86_400_000, bytes: 4096, messages: 2, hostedId: null },
    );
    await page.getByText('pi’s saved sessions').click();
    const list = page.getByRole('list', { name: 'Saved sessions' });
    await list.getByText('Landing page').waitFor();
    await list.getByText('yesterday · 2 messages · 4 KiB', { exact: false }).waitFor();
    await page.getByLabel('Find a session').fill('parser');
    await waitFor(async () => (await list.getByRole('button').count()) === 1, { message: 'one match' });
    await shot('saved-sessions');
    await list.getByRole('button', { name: /Fix the flaky parser test/ }).click();
    assert.deepEqual(await lastCall('pi.resume', 1), { sessionFile: '/home/u/.pi/agent/sessions/--work-app--/a.jsonl' });
    push();
    await page.waitForURL((url) => url.hash === '#/sessions/h2', { timeout: 5000 });
    await page.getByRole('heading', { name: '/work/app' }).waitFor();
  });

  test('a stopped session says it can be resumed, and Resume starts it again in place', async () => {
    Object.assign(detail(), { status: 'exited', exit: 'pi stopped (exit code 0)', pid: null, transcript: [] });
    push();
    await page.evaluate(`window.location.hash = '#/sessions/h1'`);
    await page.getByText('Resume this session to see its conversation and go on.').waitFor();
    await page.getByRole('list', { name: 'Hosted sessions' }).getByText('stopped').first().waitFor();
    await shot('stopped-resumable');
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    assert.deepEqual(await lastCall('pi.resume', 2), { id: 'h1' });
    push();
    await prompt().waitFor();
  });

  test('the page logged no errors', () => {
    assert.deepEqual(ui.consoleErrors, []);
  });
});
