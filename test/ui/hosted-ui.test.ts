// The Sessions view (hosted pi) in Debian's Chromium against the headless face. The hub is
// an in-memory HubApi whose hosted pi is scripted by the test: it keeps a transcript the way
// the hub does and emits the raw pi RPC events (`{type:'pi'}`) a real pi would, so the view
// is driven over the real control server and WebSocket. Screenshots: test-results/ui/hosted-*.png.
import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { HubError } from '../../src/api/types.ts';
import type { DialogAnswer, HostedDetail, HostedDialog, HostedView, HubMethod, TranscriptItem } from '../../src/api/types.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { createHub } from '../../src/hub.ts';
import type { Hub } from '../../src/hub.ts';
import { TSX_LOADER } from '../peers/spawn.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import type { TempDir } from '../peers/wait.ts';
import { createFakeHub, hostedView, idleHostedDetail } from '../web/fake-hub.ts';
import type { FakeHub } from '../web/fake-hub.ts';
import { openUi, SHOTS, skipWithoutChromium, type UiSession } from './chromium.ts';
import { isolatedOptions } from '../peers/hub-options.ts';

/** The core's stand-in for `pi --mode rpc`: answers every command, streams nothing by itself. */
const FAKE_PI_RPC = fileURLToPath(new URL('../peers/fake-pi-rpc.ts', import.meta.url));

/** The little of the DOM these checks use (this file is type-checked without the DOM library). */
interface DomElement {
  matches(selector: string): boolean;
  contains(other: unknown): boolean;
  getBoundingClientRect(): { bottom: number };
}

const skip = skipWithoutChromium;

const MODELS = {
  models: [
    { provider: 'fake', id: 'smart', name: 'Fake Smart', contextWindow: 128000 },
    { provider: 'fake', id: 'fast', name: 'Fake Fast' },
  ],
};

/**
 * One hosted pi as the hub keeps it: commands change it the way the hub would, and the
 * test plays pi's side (`emit`) so each step can be checked in the page.
 */
class ScriptedPi {
  detail: HostedDetail;
  stats: Record<string, unknown> = {
    userMessages: 0,
    tokens: { input: 0, output: 0, total: 0 },
    cost: 0,
  };

  constructor(
    private readonly hub: FakeHub,
    init: { id: string; cwd: string; model: string | null },
  ) {
    this.detail = idleHostedDetail({ id: init.id, cwd: init.cwd, pid: 31337, model: init.model ?? 'fake/smart', startedAt: Date.now() });
  }

  view(): HostedView {
    return hostedView(this.detail);
  }

  /** The hub's state changed in a way the snapshot shows. */
  pushSnapshot(): void {
    this.hub.state.hosted = [this.view()];
    this.hub.emit({ type: 'snapshot', snapshot: structuredClone(this.hub.state) });
  }

  /** pi sends a raw event: the hub folds it into its transcript, then forwards it. */
  emit(event: Record<string, unknown>): void {
    this.fold(event);
    this.hub.emit({ type: 'pi', id: this.detail.id, event });
  }

  private fold(event: Record<string, unknown>): void {
    const t = this.detail.transcript;
    const last = t[t.length - 1];
    const inner = event.assistantMessageEvent as { type: string; delta?: string } | undefined;
    switch (event.type) {
      case 'agent_start':
        this.detail.status = 'streaming';
        this.pushSnapshot();
        return;
      case 'agent_end':
        for (const item of t) if (item.kind === 'assistant') item.done = true;
        return;
      case 'agent_settled':
        this.detail.status = 'idle';
        this.pushSnapshot();
        return;
      case 'message_update': {
        if (inner?.delta === undefined) return;
        let open = last?.kind === 'assistant' && !last.done ? last : undefined;
        if (open === undefined) {
          open = { kind: 'assistant', text: '', thinking: '', at: Date.now(), done: false };
          t.push(open);
        }
        if (inner.type === 'text_delta') open.text += inner.delta;
        if (inner.type === 'thinking_delta') open.thinking += inner.delta;
        return;
      }
      case 'tool_execution_start':
        for (const item of t) if (item.kind === 'assistant') item.done = true;
        t.push({
          kind: 'tool',
          toolCallId: String(event.toolCallId),
          name: String(event.toolName),
          args: event.args,
          output: '',
          isError: false,
          done: false,
          at: Date.now(),
          ...(typeof event.parentToolCallId === 'string' ? { parentToolCallId: event.parentToolCallId } : {}),
        });
        return;
      case 'tool_execution_end': {
        const tool = t.find((i): i is Extract<TranscriptItem, { kind: 'tool' }> => i.kind === 'tool' && i.toolCallId === event.toolCallId);
        const result = event.result as { content: { text: string }[] };
        if (tool) Object.assign(tool, { output: result.content.map((c) => c.text).join(''), isError: event.isError === true, done: true });
        return;
      }
    }
  }

  /** An extension asks the person something (the hub keeps it until it is answered). */
  ask(dialog: HostedDialog): void {
    this.detail.dialogs.push(dialog);
    this.emit({ type: 'extension_ui_request', id: dialog.requestId, method: dialog.method, title: dialog.title });
    this.pushSnapshot();
  }

  /** pi's process ended on its own (the hub keeps the session, exited, with the reason). */
  exit(reason: string): void {
    Object.assign(this.detail, { status: 'exited', exit: reason, pid: null, dialogs: [] });
    this.detail.transcript.push({ kind: 'notice', level: 'error', text: reason, at: Date.now() });
    this.pushSnapshot();
  }

  answer(requestId: string, answer: DialogAnswer): void {
    const at = this.detail.dialogs.findIndex((d) => d.requestId === requestId);
    if (at < 0) throw new HubError(`no dialog "${requestId}" is waiting`, 'not-found');
    this.detail.dialogs.splice(at, 1);
    this.detail.transcript.push({ kind: 'notice', level: 'info', text: `answered: ${JSON.stringify(answer)}`, at: Date.now() });
    this.pushSnapshot();
  }
}

describe('the hosted pi session panel in a browser', { skip }, () => {
  let tmp: TempDir;
  let hub: FakeHub;
  let pi: ScriptedPi | null = null;
  let ui: UiSession;
  let page: Page;
  const folder = '/work/demo-project';

  const shot = async (name: string): Promise<void> => {
    await page.screenshot({ path: join(SHOTS, `hosted-${name}.png`), fullPage: false });
  };
  const callsOf = (method: HubMethod): unknown[] => hub.calls.filter((c) => c.method === method).map((c) => c.params);
  const lastCall = async (method: HubMethod, count: number): Promise<unknown> => {
    await waitFor(() => callsOf(method).length >= count, { message: `${method} call #${count}` });
    return callsOf(method)[count - 1];
  };
  const running = (): ScriptedPi => {
    assert.ok(pi, 'a hosted session was started');
    return pi;
  };
  const transcript = () => page.getByRole('log', { name: 'Transcript' });

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    await mkdir(SHOTS, { recursive: true });
    tmp = await tempDir('hosted-ui');
    hub = createFakeHub();
    hub.state.hosted = [];
    hub.handlers['pi.start'] = ({ cwd, model }) => {
      pi = new ScriptedPi(hub, { id: 'h1', cwd, model: model ?? null });
      pi.pushSnapshot();
      return pi.view();
    };
    hub.handlers['pi.get'] = ({ id }) => {
      if (pi?.detail.id !== id) throw new HubError(`no hosted session "${id}"`, 'not-found');
      return structuredClone({ ...pi.detail, pendingDialogs: pi.detail.dialogs.length });
    };
    hub.handlers['pi.prompt'] = ({ text, streamingBehavior }) => {
      const p = running();
      if (p.detail.status === 'streaming' && streamingBehavior === undefined) {
        throw new HubError('pi is streaming: say steer or followUp', 'conflict');
      }
      p.detail.transcript.push({ kind: 'user', text, at: Date.now() });
      p.stats.userMessages = (p.stats.userMessages as number) + 1;
      return { ran: 'prompt' };
    };
    hub.handlers['pi.abort'] = () => {};
    hub.handlers['pi.state'] = () => ({ isStreaming: running().detail.status === 'streaming' });
    hub.handlers['pi.models'] = () => structuredClone(MODELS);
    hub.handlers['pi.setModel'] = ({ provider, modelId }) => {
      const p = running();
      p.detail.model = `${provider}/${modelId}`;
      p.pushSnapshot();
      return p.view();
    };
    hub.handlers['pi.setThinking'] = ({ level }) => {
      const p = running();
      p.detail.thinkingLevel = level;
      p.pushSnapshot();
      return p.view();
    };
    hub.handlers['pi.stats'] = () => structuredClone(running().stats);
    hub.handlers['pi.answer'] = ({ requestId, answer }) => running().answer(requestId, answer);
    // As the hub does: a stopped session leaves the list (one that exits by itself stays).
    hub.handlers['pi.stop'] = () => {
      running();
      pi = null;
      hub.state.hosted = [];
      hub.emit({ type: 'snapshot', snapshot: structuredClone(hub.state) });
    };

    ui = await openUi(hub, { home: tmp.path, version: '0.1.0' }, '#/sessions');
    page = ui.page;
    await page.getByRole('heading', { name: 'pi sessions (0 running)' }).waitFor({ timeout: 10_000 });
  });

  after(async () => {
    await ui?.close();
    await tmp?.cleanup();
  });

  test('the start form starts pi in the chosen folder with the chosen model and arguments', async () => {
    await shot('empty');
    await page.getByLabel('Folder').fill(folder);
    await page.getByLabel('Model (optional)').fill('fake/smart');
    await page.getByLabel('Extra pi arguments (optional)').fill('--no-session --append-system-prompt "be brief"');
    await page.getByRole('button', { name: 'Start pi session' }).click();
    assert.deepEqual(await lastCall('pi.start', 1), {
      cwd: folder,
      model: 'fake/smart',
      args: ['--no-session', '--append-system-prompt', 'be brief'],
    });
    await page.getByRole('heading', { name: folder }).waitFor();
    await page.getByRole('heading', { name: 'pi sessions (1 running)' }).waitFor();
    await page.waitForURL((url) => url.hash === '#/sessions/h1', { timeout: 5000 }); // the new session is selected
    assert.equal(await page.getByLabel('Model', { exact: true }).inputValue(), 'fake/smart');
  });

  test('a prompt streams its reply, thinking folded, with Steer, Follow up and Abort while pi works', async () => {
    const p = running();
    const prompt = page.getByLabel('Prompt', { exact: true });
    await prompt.fill('Write hello.txt please');
    await page.getByRole('button', { name: 'Send' }).click();
    assert.deepEqual(await lastCall('pi.prompt', 1), { id: 'h1', text: 'Write hello.txt please' });
    await waitFor(async () => (await prompt.inputValue()) === '', { message: 'the prompt box emptied after sending' });

    p.emit({ type: 'agent_start' });
    await page.getByRole('button', { name: 'Abort' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send' }).count(), 0, 'no plain Send while pi works');
    await page.getByRole('button', { name: 'Steer' }).waitFor();
    await page.getByRole('button', { name: 'Follow up' }).waitFor();

    const delta = (type: string, d: string) => p.emit({ type: 'message_update', assistantMessageEvent: { type, delta: d, contentIndex: 0 } });
    delta('thinking_delta', 'The user wants a file. ');
    delta('thinking_delta', 'I will use write.');
    for (const word of ['Sure', ', I', ' will', ' write', ' it.']) delta('text_delta', word);
    await transcript().getByText('Sure, I will write it.').waitFor();
    await transcript().getByText('You').first().waitFor();
    await transcript().getByText('Write hello.txt please').waitFor();
    const thinking = transcript().getByText('I will use write.', { exact: false });
    assert.equal(await thinking.isVisible(), false, 'thinking is folded away by default');
    await transcript().getByText('Thinking', { exact: true }).click();
    await thinking.waitFor({ state: 'visible' });

    // pi-ide sent the write to Patchbay's inbox: the card says it waits there and links to it.
    p.detail.sessionId = 's1';
    p.pushSnapshot();
    hub.state.diffs.push({
      id: 'dw1',
      sessionId: 's1',
      editorId: null,
      tool: 'write',
      path: `${folder}/hello.txt`,
      tabName: 'pi-write:call_1',
      status: 'pending',
      createdAt: Date.now(),
      isNew: true,
      tooLarge: false,
      inEditor: false,
    });
    p.emit({ type: 'tool_execution_start', toolCallId: 'call_1', toolName: 'write', args: { path: 'hello.txt', content: 'hello\n' } });
    const tool = transcript().getByRole('article', { name: 'Tool write' });
    await tool.getByText('hello.txt').first().waitFor();
    p.pushSnapshot();
    await tool.getByText('waiting for review', { exact: true }).waitFor();
    const reviewLink = tool.getByRole('link', { name: 'Review this edit' });
    assert.equal(await reviewLink.getAttribute('href'), '#/review/dw1');
    const change = tool.getByLabel('New contents (1 line)');
    assert.equal((await change.innerText()).trim(), '+hello', 'the write shows as the file it makes, not as JSON');
    await shot('tool-waiting-for-review');
    hub.state.diffs.find((d) => d.id === 'dw1')!.status = 'accepted';
    hub.state.history.unshift({
      id: 'dw1', sessionId: 's1', path: `${folder}/hello.txt`, outcome: 'accepted', status: 'accepted', by: 'patchbay', at: Date.now(), edited: false, tool: 'write', editorId: null, agent: 'pi-ide',
    });
    p.pushSnapshot();
    await tool.getByText('Accepted in Patchbay').waitFor();
    await tool.getByText('running', { exact: true }).waitFor();
    p.emit({
      type: 'tool_execution_end',
      toolCallId: 'call_1',
      toolName: 'write',
      result: { content: [{ type: 'text', text: 'Successfully wrote 6 bytes to hello.txt' }] },
      isError: false,
    });
    await tool.getByText('Successfully wrote 6 bytes to hello.txt').waitFor();
    await tool.getByText('done', { exact: true }).waitFor();
    assert.equal(await tool.getByText('Arguments').count(), 0, 'no raw JSON for a write');
    // pi 1.6: a codemode script's own calls come with the script's id as their parent.
    p.emit({ type: 'tool_execution_start', toolCallId: 'call_2', toolName: 'codemode', args: { code: 'await tools.write({ path: "b.txt", content: "b" })' } });
    p.emit({ type: 'tool_execution_start', toolCallId: 'call_2/1', toolName: 'write', args: { path: 'b.txt', content: 'b\n' }, parentToolCallId: 'call_2' });
    const nested = transcript().getByRole('article', { name: 'Tool write, called by codemode' });
    await nested.getByText('codemode →').waitFor();
    assert.match((await nested.getAttribute('class')) ?? '', /\bnested\b/, 'set in under the script');
    assert.equal((await nested.getByLabel('New contents (1 line)').innerText()).trim(), '+b');
    await shot('streaming');

    await prompt.fill('Also add a newline at the end');
    await page.getByRole('button', { name: 'Steer' }).click();
    assert.deepEqual(await lastCall('pi.prompt', 2), { id: 'h1', text: 'Also add a newline at the end', streamingBehavior: 'steer' });
    await prompt.fill('Then list the folder');
    await prompt.press('Alt+Enter');
    assert.deepEqual(await lastCall('pi.prompt', 3), { id: 'h1', text: 'Then list the folder', streamingBehavior: 'followUp' });

    await page.getByRole('button', { name: 'Abort' }).click();
    assert.deepEqual(await lastCall('pi.abort', 1), { id: 'h1' });
    p.stats = { userMessages: 3, toolCalls: 1, tokens: { input: 1200, output: 345, total: 1545 }, cost: 0.42 };
    p.emit({ type: 'agent_end', messages: [] });
    p.emit({ type: 'agent_settled' });
    await page.getByRole('button', { name: 'Send' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Abort' }).count(), 0);
    // The counters in words, not a wall of raw numbers.
    await page.getByRole('region', { name: 'Stats' }).getByText('3 prompts · 1 tool call · 1.5k tokens ($0.42)').waitFor();
  });

  test('the thinking-level and model pickers change pi’s settings', async () => {
    await page.getByLabel('Thinking level').selectOption('high');
    assert.deepEqual(await lastCall('pi.setThinking', 1), { id: 'h1', level: 'high' });
    await page.getByLabel('Model', { exact: true }).selectOption({ label: 'Fake Fast (fake/fast)' });
    assert.deepEqual(await lastCall('pi.setModel', 1), { id: 'h1', provider: 'fake', modelId: 'fast' });
    await page.getByRole('list', { name: 'Hosted sessions' }).getByText('fake/fast').waitFor();
    assert.equal(await page.getByLabel('Thinking level').inputValue(), 'high');
  });

  test('an extension’s select dialog is a real modal dialog, answered with the chosen option by keyboard', async () => {
    const p = running();
    running().detail.statusLines = { 'pi-ide': 'IDE: Patchbay review' };
    p.ask({
      requestId: 'ui-1',
      method: 'select',
      title: 'Allow pi to write hello.txt?',
      message: 'The extension guards writes outside src/.',
      options: ['Allow once', 'Always allow', 'Deny'],
      expiresAt: Date.now() + 30_000,
    });
    const dialog = page.getByRole('dialog', { name: 'Allow pi to write hello.txt?' });
    await dialog.waitFor();
    await page.getByRole('link', { name: /Sessions.*1 question from pi waiting/ }).waitFor();
    assert.equal(await dialog.evaluate((el) => (el as unknown as DomElement).matches(':modal')), true, 'opened with showModal');
    await dialog.getByText(/\d+ s left/).waitFor();
    await page.getByRole('list', { name: 'Status lines' }).getByText('IDE: Patchbay review').waitFor();
    const focusInside = (): Promise<boolean> => dialog.evaluate((el) =>
        (el as unknown as DomElement).contains((globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement),
      );
    assert.equal(await focusInside(), true, 'focus moved into the dialog');
    // The page behind is inert: Tab cycles through the dialog's controls only.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      assert.equal(await focusInside(), true, `focus still in the dialog after ${i + 1} Tab presses`);
    }
    await shot('dialog');
    await dialog.getByRole('button', { name: 'Allow once' }).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastCall('pi.answer', 1), { id: 'h1', requestId: 'ui-1', answer: { value: 'Always allow' } });
    await dialog.waitFor({ state: 'detached' });
  });

  test('Esc cancels a confirm dialog; an input dialog sends its text', async () => {
    const p = running();
    p.ask({ requestId: 'ui-2', method: 'confirm', title: 'Run the tests now?', expiresAt: null });
    const confirm = page.getByRole('dialog', { name: 'Run the tests now?' });
    await confirm.getByRole('button', { name: 'Yes' }).waitFor();
    await confirm.getByRole('button', { name: 'No' }).waitFor();
    assert.equal(await confirm.getByText(/s left/).count(), 0, 'no countdown without a timeout');
    await page.keyboard.press('Escape');
    assert.deepEqual(await lastCall('pi.answer', 2), { id: 'h1', requestId: 'ui-2', answer: { cancelled: true } });
    await confirm.waitFor({ state: 'detached' });

    p.ask({ requestId: 'ui-3', method: 'input', title: 'Name the branch', placeholder: 'feature/…', prefill: 'feature/', expiresAt: null });
    const input = page.getByRole('dialog', { name: 'Name the branch' }).getByLabel('Answer');
    await input.waitFor();
    await input.press('End');
    await page.keyboard.type('hello');
    await page.keyboard.press('Enter');
    assert.deepEqual(await lastCall('pi.answer', 3), { id: 'h1', requestId: 'ui-3', answer: { value: 'feature/hello' } });
    await transcript().getByText('answered: {"value":"feature/hello"}').waitFor();
  });

  test('the view fits 800×600 and follows the dark theme', async () => {
    await page.setViewportSize({ width: 800, height: 600 });
    await page.getByRole('button', { name: 'Send' }).waitFor();
    const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
    assert.equal(overflow, false, 'no horizontal scrolling at 800×600');
    const promptBottom = await page
      .getByLabel('Prompt', { exact: true })
      .evaluate((el) => (el as unknown as DomElement).getBoundingClientRect().bottom);
    assert.ok(promptBottom <= 600, `the prompt box is on screen without scrolling the page (its bottom at ${promptBottom}px)`);
    await shot('800x600');
    await page.emulateMedia({ colorScheme: 'dark' });
    running().ask({ requestId: 'ui-4', method: 'editor', title: 'Edit the commit message', prefill: 'Add hello.txt\n', expiresAt: Date.now() + 300_000 });
    await page.getByRole('dialog', { name: 'Edit the commit message' }).getByLabel('Text').waitFor();
    await shot('dark-editor-dialog');
    await page.getByRole('dialog', { name: 'Edit the commit message' }).getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(await lastCall('pi.answer', 4), { id: 'h1', requestId: 'ui-4', answer: { cancelled: true } });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1100, height: 720 });
  });

  test('a pi whose pi-ide is not at the door says “connecting to review…”; a prompt waits for it; one without pi-ide says its edits are not reviewed', async () => {
    const p = running();
    p.detail.review = 'connecting';
    p.pushSnapshot();
    await page.getByRole('status').getByText(/^Connecting to review… Prompts wait until pi-ide/).waitFor();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const plain = hub.handlers['pi.prompt'];
    hub.handlers['pi.prompt'] = async (params) => {
      await held; // as the hub holds it until pi-ide arrives
      return plain(params);
    };
    const prompt = page.getByLabel('Prompt', { exact: true });
    await prompt.fill('Edit notes.txt');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.prompt-box').getByRole('status').getByText('connecting to review…').waitFor();
    await shot('connecting-to-review');
    assert.equal(await prompt.inputValue(), 'Edit notes.txt', 'kept until pi took it');
    p.detail.review = 'reviewed';
    p.pushSnapshot();
    release();
    await waitFor(async () => (await prompt.inputValue()) === '', { message: 'the prompt sent once pi-ide arrived' });
    await page.locator('.hosted-heading').getByText('edits reviewed').waitFor();
    hub.handlers['pi.prompt'] = plain;

    p.detail.review = 'unreviewed';
    p.pushSnapshot();
    await page.getByText('This pi has no pi-ide: its edits are written without review.').waitFor();
    p.detail.review = 'reviewed';
    p.pushSnapshot();
  });

  test('when pi exits by itself, the reason shows and only the transcript stays', async () => {
    running().exit('pi exited with code 1: fatal: something broke');
    await page.locator('.warning-text', { hasText: 'pi exited with code 1: fatal: something broke' }).waitFor();
    // The exit event and the snapshot that says "exited" arrive separately.
    await page.getByRole('heading', { name: 'pi sessions (0 running)' }).waitFor();
    await page.getByRole('button', { name: 'Stop', exact: true }).waitFor({ state: 'detached' });
    for (const name of ['Stop', 'Send', 'Abort']) assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `no ${name}`);
    assert.equal(await page.getByLabel('Prompt', { exact: true }).count(), 0);
    assert.equal(await page.getByLabel('Thinking level').count(), 0, 'nothing to configure on an exited pi');
    await transcript().getByText('Sure, I will write it.').waitFor();
    await page.getByRole('heading', { name: 'pi sessions (0 running)' }).waitFor();
    await page.getByRole('list', { name: 'Hosted sessions' }).getByText('exited').waitFor();
    await shot('exited');
  });

  test('the page logged no errors', () => {
    assert.deepEqual(ui.consoleErrors, []);
  });
});

describe('the hosted pi session panel against the real hub', { skip }, () => {
  let tmp: TempDir;
  let project: string;
  let hub: Hub;
  let ui: UiSession;
  let page: Page;
  const hosted = async () => (await hub.call('snapshot', undefined)).hosted;

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    tmp = await tempDir('hosted-ui-hub');
    project = join(tmp.path, 'project');
    await mkdir(project);
    const options = isolatedOptions(tmp.path, {
      pollMs: 100,
      piCommand: [process.execPath, '--import', TSX_LOADER, FAKE_PI_RPC],
      // The fake pi saves its sessions under the test's own agent dir.
      piEnv: { PI_CODING_AGENT_DIR: join(tmp.path, 'agent') },
      piStopGraceMs: 500,
    });
    await mkdir(options.piLockDir, { recursive: true });
    hub = await createHub(options);
    ui = await openUi(hub, options, '#/sessions');
    page = ui.page;
    await page.getByRole('heading', { name: 'pi sessions (0 running)' }).waitFor({ timeout: 10_000 });
  });

  after(async () => {
    await ui?.close();
    await hub?.close('test over');
    await tmp?.cleanup();
  });

  test('a folder that does not exist is refused with the hub’s reason', async () => {
    await page.getByLabel('Folder').fill(join(tmp.path, 'nowhere'));
    await page.getByRole('button', { name: 'Start pi session' }).click();
    await page.getByRole('alert').getByText(/no such folder/).waitFor();
    assert.deepEqual(await hosted(), []);
  });

  test('the form starts pi in the folder; a prompt reaches it; Stop, once confirmed, ends it and keeps the transcript', async () => {
    await page.getByLabel('Folder').fill(project);
    await page.getByRole('button', { name: 'Start pi session' }).click();
    await page.getByRole('heading', { name: project }).waitFor();
    const [view] = await waitFor(async () => {
      const list = await hosted();
      return list[0]?.status === 'idle' && list;
    }, { message: 'the hosted pi idle' });
    assert.equal(view?.cwd, project);
    assert.ok(typeof view?.pid === 'number', 'pi runs as its own process');
    await page.waitForURL((url) => url.hash === `#/sessions/${view!.id}`, { timeout: 5000 });
    await page.getByRole('list', { name: 'Hosted sessions' }).getByText('idle').waitFor();

    const prompt = page.getByLabel('Prompt', { exact: true });
    // The fake pi writes the records a prompt "emit [...]" names: here, a reply.
    const reply = [
      { type: 'agent_start' },
      { type: 'message_update', assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: 'hello from pi' } },
      { type: 'agent_end', messages: [] },
      { type: 'agent_settled' },
    ];
    await prompt.fill(`emit ${JSON.stringify(reply)}`);
    await page.getByRole('button', { name: 'Send' }).click();
    // The prompt box empties only once the hub has handed the prompt to pi and pi took it.
    await waitFor(async () => (await prompt.inputValue()) === '', { message: 'the prompt accepted' });
    await page.screenshot({ path: join(SHOTS, 'hosted-real-hub.png') });

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    const ask = page.getByRole('dialog', { name: 'Stop this pi session?' });
    await ask.waitFor();
    await page.keyboard.press('Escape');
    await ask.waitFor({ state: 'detached' });
    assert.notEqual((await hosted())[0]?.status, 'exited', 'Esc answers "no": pi still runs');

    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.screenshot({ path: join(SHOTS, 'hosted-stop-confirm.png') });
    await ask.getByRole('button', { name: 'Stop pi' }).click();
    await page.getByRole('heading', { name: 'pi sessions (0 running)' }).waitFor();
    await page.getByRole('log', { name: 'Transcript' }).getByText('hello from pi').waitFor();
    await page.getByRole('log', { name: 'Transcript' }).getByText(/^pi stopped/).waitFor();
    assert.equal((await hosted())[0]?.status, 'exited', 'the stopped session stays listed, its transcript readable');
    await page.screenshot({ path: join(SHOTS, 'hosted-stopped.png') });
    await page.getByRole('button', { name: 'Remove from list' }).click();
    await page.getByText('No hosted pi session.', { exact: false }).waitFor();
    assert.deepEqual(await hosted(), [], 'removed: the session leaves the list');
    await waitFor(
      () => {
        try {
          process.kill(view!.pid!, 0);
          return false;
        } catch {
          return true;
        }
      },
      { message: `pi (pid ${view!.pid}) gone` },
    );
  });

  test('a stopped session is resumed with its conversation read back from pi; Fork… goes on from before a prompt', async () => {
    await page.getByLabel('Folder').fill(project);
    await page.getByRole('button', { name: 'Start pi session' }).click();
    const log = page.getByRole('log', { name: 'Transcript' });
    const prompt = page.getByLabel('Prompt', { exact: true });
    await prompt.waitFor();
    for (const text of ['hello there', 'second thoughts']) {
      await prompt.fill(text);
      await prompt.press('Enter');
      await log.getByText(`You said: ${text}`).waitFor();
    }
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('dialog', { name: 'Stop this pi session?' }).getByRole('button', { name: 'Stop pi' }).click();
    await page.getByRole('button', { name: 'Resume', exact: true }).click();
    // This stand-in pi has no pi-ide, and says so again once resumed.
    await page.getByText('This pi has no pi-ide: its edits are written without review.').waitFor();
    await log.getByText(/^Resumed /).waitFor();
    await log.getByText('You said: hello there').waitFor();
    // The transcript read back may show before the hub's view of pi settles on idle.
    const [view] = await waitFor(async () => {
      const running = (await hosted()).filter((h) => h.status !== 'exited');
      return running[0]?.status === 'idle' && running;
    }, { message: 'the resumed session idle' });
    assert.equal(view?.status, 'idle', 'the same session runs again');

    await page.getByRole('button', { name: 'Fork…' }).click();
    await page.getByRole('dialog', { name: 'Fork from an earlier prompt' }).getByRole('button', { name: 'second thoughts' }).click();
    await waitFor(async () => (await prompt.inputValue()) === 'second thoughts', { message: 'the prompt back in the box' });
    await log.getByText('You said: second thoughts').waitFor({ state: 'detached' });
    await log.getByText('You said: hello there').waitFor();
    await page.screenshot({ path: join(SHOTS, 'hosted-real-hub-forked.png') });
    await page.getByRole('button', { name: 'Stop', exact: true }).click();
    await page.getByRole('dialog', { name: 'Stop this pi session?' }).getByRole('button', { name: 'Stop pi' }).click();
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();
  });

  test('the page logged no errors', () => {
    assert.deepEqual(ui.consoleErrors, []);
  });
});
