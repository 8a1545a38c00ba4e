// Every state of the views around the review inbox, in light and dark, at 1280×800 and
// 800×600, against the fake hub: screenshots to look at (test-results/ui/screens/), each
// checked for horizontal scrolling, which none of these views should need.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { EditorView, SessionView, TrafficEntry } from '../../src/api/types.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { tempDir, type TempDir } from '../peers/wait.ts';
import { NOW, createFakeHub, hostedView, idleHostedDetail, type FakeHub } from '../web/fake-hub.ts';
import { SHOTS, openUi, skipWithoutChromium, type UiSession } from './chromium.ts';
import { shootEverySize } from './live-review.ts';

const DIR = join(SHOTS, 'screens');
const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;
const SCHEMES = ['light', 'dark'] as const;

const otherEditor: EditorView = {
  id: 'ed-code-site',
  ideName: 'VS Code',
  workspaceFolders: ['/work/site'],
  port: 41001,
  pid: 5001,
  dialect: 'claude',
  authenticated: true,
  alive: true,
  lockfile: '/home/u/.claude/ide/.patchbay/41001.lock',
  focusedAt: NOW - 30_000,
};

const claudeSession: SessionView = {
  id: 's2',
  kind: 'claude',
  dialect: 'claude',
  clientName: 'claude-code',
  pid: 6100,
  cwd: '/work/proj/api',
  command: 'claude',
  connectedAt: NOW - 120_000,
  lastActiveAt: NOW - 5000,
  editorId: otherEditor.id,
  reason: 'manual',
  automaticEditorId: 'nvim-proj',
  manualEditorId: otherEditor.id,
  pendingDiffs: 0,
  identity: 'known',
};

function traffic(): TrafficEntry[] {
  const big = JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'openDiff', arguments: { old_file_path: '/work/proj/a.txt', new_file_path: '/work/proj/a.txt', new_file_contents: 'x'.repeat(5000), tab_name: 'pi-edit:1' } },
  });
  const at = Date.now() - 4000;
  return [
    { at, dir: 'in', editorId: null, method: 'initialize', tool: null, id: 1, bytes: 120, preview: '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","clientInfo":{"name":"pi-ide"}}}' },
    { at: at + 2, dir: 'out', editorId: null, method: null, tool: null, id: 1, bytes: 96, preview: '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2024-11-05","serverInfo":{"name":"Patchbay"}}}' },
    { at: at + 500, dir: 'in', editorId: null, method: 'tools/call', tool: 'getDiagnostics', id: 2, bytes: 88, preview: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"getDiagnostics","arguments":{}}}' },
    { at: at + 501, dir: 'up', editorId: 'nvim-proj', method: 'tools/call', tool: 'getDiagnostics', id: 'p-1', bytes: 92, preview: '{"jsonrpc":"2.0","id":"p-1","method":"tools/call","params":{"name":"getDiagnostics","arguments":{}}}' },
    { at: at + 540, dir: 'down', editorId: 'nvim-proj', method: null, tool: null, id: 'p-1', bytes: 70, preview: '{"jsonrpc":"2.0","id":"p-1","result":{"content":[{"type":"text","text":"{}"}]}}' },
    { at: at + 541, dir: 'out', editorId: null, method: null, tool: null, id: 2, bytes: 66, preview: '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"{}"}]}}' },
    { at: at + 900, dir: 'in', editorId: null, method: 'tools/call', tool: 'openDiff', id: 7, bytes: Buffer.byteLength(big), preview: `${big.slice(0, 400)}…` },
    { at: at + 950, dir: 'down', editorId: 'nvim-proj', method: 'selection_changed', tool: null, id: null, bytes: 210, preview: '{"jsonrpc":"2.0","method":"selection_changed","params":{"text":"","filePath":"/work/proj/a.txt","selection":{"start":{"line":3,"character":0},"end":{"line":3,"character":0},"isEmpty":true}}}' },
    { at: at + 1000, dir: 'in', editorId: null, method: 'tools/call', tool: 'getCurrentSelection', id: '3f9c2a71-5b7e-4c1d-9a0e-7d2b8f6e4c13', bytes: 140, preview: '{"jsonrpc":"2.0","id":"3f9c2a71-5b7e-4c1d-9a0e-7d2b8f6e4c13","method":"tools/call","params":{"name":"getCurrentSelection","arguments":{}}}' },
    { at: at + 900 + 156_372, dir: 'out', editorId: null, method: null, tool: null, id: 7, bytes: 5120, preview: '{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"FILE_SAVED"},{"type":"text","text":"x"}]}}' },
  ];
}

/** A hosted pi mid-turn: a write waiting for review, an edit already decided, stats with context. */
function hostedSession(hub: FakeHub): void {
  const detail = idleHostedDetail({ id: 'h1', cwd: '/work/proj', pid: 9100, model: 'fake/smart', startedAt: NOW - 60_000 });
  Object.assign(detail, {
    status: 'streaming',
    sessionId: 's1',
    stats: {
      userMessages: 2,
      assistantMessages: 3,
      toolCalls: 2,
      tokens: { input: 15_200, output: 820, cacheRead: 0, cacheWrite: 0, total: 16_020 },
      cost: 0.0312,
      contextUsage: { tokens: 16_020, contextWindow: 128_000, percent: 12.5 },
    },
    transcript: [
      { kind: 'user', text: 'Rename the greeting and add a notes file.', at: NOW - 50_000 },
      { kind: 'assistant', text: 'I will change the greeting, then write the notes.', thinking: 'Two edits.', at: NOW - 49_000, done: true },
      {
        kind: 'tool', toolCallId: 'c-edit', name: 'edit', at: NOW - 48_000, done: true, isError: false,
        args: { path: 'src/greet.ts', edits: [{ oldText: "export function greet() {\n  return 'hello';\n}", newText: "export function greet(name: string) {\n  return `hello, ${name}`;\n}" }] },
        output: 'Successfully replaced 1 block in src/greet.ts.',
      },
      {
        kind: 'tool', toolCallId: 'c-write', name: 'write', at: NOW - 40_000, done: false, isError: false,
        args: { path: 'NOTES.md', content: '# Notes\n\n- greet takes a name now\n- callers updated\n' },
        output: '',
      },
    ],
  });
  hub.hosted.set('h1', detail);
  hub.state.diffs.push({
    id: 'dw', sessionId: 's1', editorId: null, tool: 'write', path: '/work/proj/NOTES.md', tabName: 'pi-write:c-write', status: 'pending',
    createdAt: NOW - 39_000, isNew: true, tooLarge: false, inEditor: false,
  });
  hub.state.hosted = [hostedView(detail)];
}

describe('screens of every view but the review inbox, light and dark, large and small', { skip: skipWithoutChromium }, () => {
  let tmp: TempDir;
  let hub: FakeHub;
  let ui: UiSession;
  let page: Page;

  const push = (): void => hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
  const go = (hash: string) => page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
  /** Every size and scheme of the state on screen now. */
  const shoot = async (name: string, scroll?: () => Promise<void>): Promise<void> => {
    for (const scheme of SCHEMES) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const size of SIZES) {
        await page.setViewportSize(size);
        await scroll?.();
        const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
        assert.equal(overflow, false, `${name}: no horizontal scrolling at ${size.width}×${size.height}`);
        await page.screenshot({ path: join(DIR, `${name}-${scheme}-${size.width}x${size.height}.png`) });
      }
    }
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize(SIZES[0]);
  };

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    await mkdir(DIR, { recursive: true });
    tmp = await tempDir('ui-screens');
    hub = createFakeHub();
    hub.state.warnings = [];
    hub.state.editors.push(otherEditor);
    hub.state.sessions.push(claudeSession);
    // The same frames at every poll, as a real session's log keeps them (new times would be new rows).
    const frames = traffic();
    hub.handlers.traffic = () => structuredClone(frames);
    hostedSession(hub);
    ui = await openUi(hub, { home: join(tmp.path, 'home'), version: 'test' }, '#/pairing');
    page = ui.page;
    await page.getByRole('heading', { name: /Agents connected/ }).waitFor();
  });

  after(async () => {
    await ui?.close();
    await tmp?.cleanup();
  });

  test('pairing: an automatic session, one sent to an editor outside its folder', async () => {
    const card = page.getByRole('article', { name: 'Session Claude Code · api' });
    await card.getByText(/do not contain \/work\/proj\/api/).waitFor();
    const picker = page.getByRole('article', { name: 'Session pi · proj' }).getByLabel('Editor for this session');
    assert.equal(await picker.inputValue(), 'automatic', 'a session the rules bound shows "Automatic"');
    await shoot('pairing');
    const bound = await hub.callAfter('bind', () => picker.selectOption({ label: 'VS Code · site (not this folder)' }));
    assert.deepEqual(bound, { sessionId: 's1', editorId: otherEditor.id });
    const unpinned = await hub.callAfter('unpin', () => card.getByLabel('Editor for this session').selectOption('automatic'));
    assert.deepEqual(unpinned, { sessionId: 's2' });

    // Paused: said in the header with Resume, and no session reads "no editor matches".
    const paused = await hub.callAfter('setPaused', () => page.getByRole('button', { name: 'Pause routing' }).click());
    assert.deepEqual(paused, { paused: true });
    hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
    await page.locator('.status-pill', { hasText: 'Routing paused: every edit is reviewed here' }).waitFor();
    assert.equal(await page.getByText('no editor matches').count(), 0);
    await page.getByText(/routing is paused; your choice, .* comes back on Resume/).waitFor();
    await shoot('pairing-paused');
    const resumed = await hub.callAfter('setPaused', () => page.locator('.status-pill').getByRole('button', { name: 'Resume' }).click());
    assert.deepEqual(resumed, { paused: false });
    hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
    await page.getByRole('button', { name: 'Pause routing' }).waitFor();
  });

  test('traffic: frames with directions explained, one opened and copied', async () => {
    await go('#/traffic/s1');
    const table = page.getByRole('table');
    await table.getByText('openDiff').first().waitFor();
    await page.getByRole('button', { name: /Show the tools\/call openDiff frame/ }).click();
    await page.getByText(/The start of a 5\.\d KiB frame/).waitFor();
    const frame = page.getByLabel('Frame', { exact: true });
    assert.match(await frame.innerText(), /^\{\n {2}"jsonrpc": "2\.0",\n {2}"id": 7,/);
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByRole('status').getByText('Copied').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), await frame.innerText(), 'Copy takes the frame as shown');
    await shoot('traffic-frame-open');

    // A filter on openDiff keeps its answer, which says what it answers and how long it took.
    await page.getByRole('button', { name: /Hide the tools\/call openDiff frame/ }).click();
    await page.getByLabel('Filter').fill('openDiff');
    const rows = page.getByRole('row');
    await page.getByText('↳ tools/call openDiff').waitFor();
    assert.equal(await rows.count(), 3, 'the header, the call, and its answer');
    assert.match(await rows.nth(2).innerText(), /P→\s[^]*reply to\s+↳ tools\/call openDiff\s+7\s+5\.0 KiB/);
    assert.match(await rows.nth(1).innerText(), /2 min 36 s/);
    await page.getByLabel('Filter').fill('');
    const uuid = page.getByRole('cell', { name: '3f9c2a7…' });
    assert.equal(await uuid.getAttribute('title'), '3f9c2a71-5b7e-4c1d-9a0e-7d2b8f6e4c13', 'a long id is shortened, whole on hover');
    await shootEverySize(page, 'traffic');
  });

  test('settings: every section, and the end of the page', async () => {
    await go('#/settings');
    await page.getByRole('heading', { name: 'Hosted pi sessions' }).waitFor();
    await shoot('settings');
    await shoot('settings-end', () => page.evaluate(`document.querySelector('.app-main').scrollTo(0, 1e6)`).then(() => undefined));
  });

  test('sessions: a write waiting for review, an edit as its change, stats in words', async () => {
    await go('#/sessions/h1');
    await page.getByRole('link', { name: 'Review this edit' }).waitFor();
    await page.getByRole('region', { name: 'Stats' }).getByText('2 prompts · 2 tool calls · 16k tokens ($0.03) · context 13% of 128k').waitFor();
    await shoot('sessions-waiting-for-review');
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('dialog', { name: 'Stop this pi session?' }).waitFor();
    await shoot('sessions-stop-confirm');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  test('the shortcuts list', async () => {
    await page.getByRole('button', { name: 'Shortcuts' }).click();
    await page.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    await shoot('shortcuts');
    await page.keyboard.press('Escape');
  });

  test('empty pairing and traffic say what to do next', async () => {
    hub.state.sessions = [];
    hub.state.editors = [];
    hub.state.idleAgents = [];
    hub.state.invalidLockfiles = [];
    hub.state.diffs = [];
    hub.state.hosted = [];
    push();
    await go('#/pairing');
    await page.getByText(/No editor found\. Open your project/).waitFor();
    await shoot('pairing-empty');
    await go('#/traffic');
    await page.getByText(/No agent session is connected\. Frames show here/).waitFor();
    await shoot('traffic-empty');
  });

  test('the page logged no errors', () => {
    assert.deepEqual(ui.consoleErrors, []);
  });
});
