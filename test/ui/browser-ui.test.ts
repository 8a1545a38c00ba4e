// The renderer in Debian's Chromium against the headless face: a real hub and control
// server in this process, a fake editor and a fake pi client, the built UI in a browser.
// Screenshots of every view go to test-results/ui/ (look at them).
import assert from 'node:assert/strict';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createHub } from '../../src/hub.ts';
import type { Hub } from '../../src/hub.ts';
import { buildIfStale } from '../../src/cli/start.ts';
import { FakeEditor } from '../peers/fake-editor.ts';
import { FakePiClient } from '../peers/fake-pi.ts';
import type { WriteOutcome } from '../peers/fake-pi.ts';
import { tempDir, waitFor, withTimeout, WAIT_MS } from '../peers/wait.ts';
import type { TempDir } from '../peers/wait.ts';
import { openUi, SHOTS, skipWithoutChromium, type UiSession } from './chromium.ts';
import { isolatedOptions } from '../peers/hub-options.ts';
import type { HubOptions } from '../../src/options.ts';


const skip = skipWithoutChromium;

describe('the browser UI against the headless daemon', { skip }, () => {
  let tmp: TempDir;
  let project: string;
  let piSettingsFile: string;
  let options: HubOptions;
  let hub: Hub;
  let editor: FakeEditor;
  let pi: FakePiClient;
  let ui: UiSession;
  let page: Page;

  const snapshot = () => hub.call('snapshot', undefined);
  const shot = async (name: string): Promise<void> => {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  };
  // Page-side code is passed as text: this file is type-checked without the DOM library.
  const go = async (hash: string): Promise<void> => {
    await page.evaluate(`window.location.hash = ${JSON.stringify(hash)}`);
  };

  before(async () => {
    assert.ok(buildIfStale('browser', process.env), 'the renderer builds');
    await mkdir(SHOTS, { recursive: true });
    tmp = await tempDir('ui');
    project = join(tmp.path, 'project');
    await mkdir(project);
    piSettingsFile = join(tmp.path, 'agent', 'settings.json');
    options = isolatedOptions(tmp.path, { piSettingsFile, pollMs: 100 });
    await mkdir(options.piLockDir, { recursive: true });
    editor = await FakeEditor.start({ lockDir: options.piLockDir, workspaceFolders: [project], pingIntervalMs: 0 });
    // The fake pi runs in this process, whose cwd is not the project: name its folder here.
    hub = await createHub(options, {
      lookupPeer: async () => ({ pid: process.pid, cwd: project, command: 'pi (fake)', startedAt: null }),
    });
    await waitFor(async () => (await snapshot()).editors.length === 1, { message: 'the editor discovered' });
    pi = await FakePiClient.connect({ cwd: project, lockDir: options.piLockDir });
    await waitFor(async () => (await snapshot()).sessions[0]?.reason === 'cwd', { message: 'the session bound to the editor' });

    ui = await openUi(hub, options);
    page = ui.page;
    await page.getByRole('heading', { name: /Review inbox/ }).waitFor({ timeout: 10_000 });
  });

  after(async () => {
    await ui?.close();
    await pi?.close();
    await hub?.close('test over');
    await editor?.stop();
    await tmp?.cleanup();
  });

  test('a proposed edit shows in the inbox, and Accept with an edit saves the edited text', async () => {
    const file = join(project, 'notes.txt');
    await writeFile(file, 'one\ntwo\nthree\n');
    const outcome = pi.write(file, 'one\n2\nthree\nfour\n');
    await page.getByRole('button', { name: /notes\.txt/ }).waitFor();
    await page.getByRole('heading', { name: 'Review inbox (1)' }).waitFor();
    assert.equal(await page.title(), '(1) Review — Patchbay');
    const proposed = page.getByRole('textbox', { name: /proposed contents/ });
    await proposed.waitFor();
    await shot('review');

    await proposed.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('five\n');
    await page.getByText('Edited by you: Accept saves your version').waitFor();
    await editor.waitForDiff(); // offered to the editor and to the page each over its own socket
    assert.equal(editor.diffs.size, 1, 'the bound editor shows the diff too');
    await page.getByRole('button', { name: 'Accept', exact: true }).click();
    await page.getByRole('button', { name: 'Send now' }).click(); // the few seconds to undo, skipped
    const result: WriteOutcome = await withTimeout(outcome, WAIT_MS, 'the agent hearing the decision');
    assert.equal(result.outcome, 'saved');
    assert.equal(await readFile(file, 'utf8'), 'one\n2\nthree\nfour\nfive\n');
    await waitFor(() => editor.diffs.size === 0, { message: "the editor's tab closed: the first decision wins" });
    await page.getByRole('heading', { name: 'Review inbox (0)' }).waitFor();
    await page.getByText('Recent decisions (1)').waitFor();
  });

  test('Reject (by its shortcut) tells the agent DIFF_REJECTED and leaves the file alone', async () => {
    const file = join(project, 'keep.txt');
    await writeFile(file, 'original\n');
    const outcome = pi.write(file, 'replaced\n');
    await page.getByRole('button', { name: /keep\.txt/ }).waitFor();
    await page.getByRole('textbox', { name: /proposed contents/ }).waitFor();
    await page.getByRole('heading', { name: 'Review inbox (1)' }).click(); // focus outside the editor
    await page.keyboard.press('r');
    await page.getByRole('button', { name: 'Send now' }).click();
    const result = await withTimeout(outcome, WAIT_MS, 'the agent hearing the rejection');
    assert.equal(result.outcome, 'rejected');
    assert.equal(result.outcome === 'rejected' && result.answer, 'DIFF_REJECTED');
    assert.equal(await readFile(file, 'utf8'), 'original\n');
  });

  test('a new file shows as new, and the view fits 800×600', async () => {
    await page.setViewportSize({ width: 800, height: 600 });
    const outcome = pi.write(join(project, 'src', 'fresh.ts'), 'export const fresh = true;\n');
    await page.getByText('New file: it does not exist on disk yet').waitFor();
    await shot('review-new-file-800x600');
    const overflow = await page.evaluate('document.documentElement.scrollWidth > window.innerWidth');
    assert.equal(overflow, false, 'no horizontal scrolling at 800×600');
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await page.getByRole('button', { name: 'Send now' }).click();
    assert.equal((await withTimeout(outcome, WAIT_MS, 'the rejection')).outcome, 'rejected');
    await page.setViewportSize({ width: 1100, height: 720 });
  });

  test('rebinding a session in the pairing view moves its traffic; Automatic gives it back to the rules', async () => {
    await go('#/pairing');
    const select = page.getByLabel('Editor for this session');
    await select.waitFor();
    await shot('pairing');
    const sessionId = (await snapshot()).sessions[0]!.id;

    const editorId = (await snapshot()).editors[0]!.id;
    assert.equal(await select.inputValue(), 'automatic', 'bound by the rules, so "Automatic"');
    assert.equal((await snapshot()).sessions[0]?.editorId, editorId, 'bound to the editor whose folder holds the session');
    await select.selectOption({ label: 'Patchbay review' });
    await waitFor(async () => (await snapshot()).sessions[0]?.editorId === null, { message: 'the session unbound' });
    assert.equal((await snapshot()).sessions[0]?.reason, 'manual');
    const before = editor.received.length;
    const diagnosticsSince = () =>
      editor.received.slice(before).filter((r) => (r.msg.params as { name?: string } | undefined)?.name === 'getDiagnostics').length;
    await pi.turn();
    // Patchbay may reopen its own link to the editor meanwhile; only the agent's call matters.
    assert.equal(diagnosticsSince(), 0, 'unbound: getDiagnostics does not reach the editor');

    await select.selectOption({ value: editorId });
    await waitFor(async () => (await snapshot()).sessions[0]?.editorId === editorId, { message: 'the session bound again' });
    await waitFor(async () => (await select.inputValue()) === editorId, { message: 'the person’s choice shows' });
    await pi.turn();
    await waitFor(
      () => editor.received.slice(before).some((r) => (r.msg.params as { name?: string } | undefined)?.name === 'getDiagnostics'),
      { message: 'getDiagnostics at the editor' },
    );

    await select.selectOption('automatic');
    await waitFor(async () => (await snapshot()).sessions[0]?.reason === 'cwd', { message: 'the rules bind the session again' });
    assert.equal((await snapshot()).sessions[0]?.editorId, editorId);

    await go(`#/traffic/${sessionId}`);
    await page.getByRole('table').getByText('getDiagnostics').first().waitFor();
    await shot('traffic');
  });

  test('an editor with no token (Emacs) shows as unauthenticated, and another tool’s lockfile as another protocol’s', async (t) => {
    const elsewhere = join(tmp.path, 'elisp');
    await mkdir(elsewhere);
    const emacs = await FakeEditor.start({ lockDir: options.claudeLockDir, workspaceFolders: [elsewhere], emacs: true, pingIntervalMs: 0 });
    t.after(() => emacs.stop());
    const theirs = join(options.piLockDir, '51234.lock');
    await writeFile(theirs, JSON.stringify({ protocol: 'pi-ide', version: 1, port: 51234, pid: process.pid, workspaces: [elsewhere], ide: 'VS Code', token: 't' }));
    t.after(() => rm(theirs, { force: true }));
    await waitFor(async () => (await snapshot()).editors.some((e) => e.ideName === 'Emacs' && e.alive), { message: 'Emacs discovered' });
    await go('#/pairing');
    const card = page.getByRole('article', { name: /^Editor Emacs/ });
    await card.getByText('unauthenticated', { exact: true }).waitFor();
    await card.getByText(/any program of any user on this machine can reach it/).waitFor();
    await page.getByRole('heading', { name: 'Other tools’ lockfiles (1)' }).waitFor();
    await page.getByText('Pi IDE Protocol v1 (VS Code, pid').waitFor();
    assert.equal(await page.getByText('51234.lock').count(), 1, 'listed once, not among the unused ones too');
    await shot('pairing-unauthenticated');
  });

  test('turning pi autoconnect off in the settings writes pi’s settings file', async () => {
    await go('#/settings');
    const global = page.getByLabel('Global', { exact: true });
    await global.waitFor();
    await assert.doesNotReject(waitFor(async () => !(await global.isDisabled()), { message: 'the global value loaded' }));
    await global.selectOption('off');
    const written = await waitFor(
      async () => {
        const text = await readFile(piSettingsFile, 'utf8').catch(() => '');
        return text.includes('autoconnect') && (JSON.parse(text) as { 'pi-ide'?: { autoconnect?: boolean } });
      },
      { message: `${piSettingsFile} written` },
    );
    assert.equal(written['pi-ide']?.autoconnect, false);
    // The project has no setting of its own, so the global one now rules it too.
    const projectRow = page.locator('.autoconnect-row', { has: page.getByLabel(project, { exact: true }) });
    await projectRow.getByText('effective: off', { exact: true }).waitFor();
    await shot('settings');
    await page.getByLabel('For all editors').selectOption('fake/smart');
    await waitFor(async () => (await snapshot()).settings.suggestionModel === 'fake/smart', { message: 'the model choice saved' });
    await page.evaluate(`document.querySelector('.app-main').scrollTo(0, 1e6)`);
    await shot('settings-models');
    await page.setViewportSize({ width: 800, height: 600 });
    await shot('settings-800x600');
    await page.setViewportSize({ width: 1100, height: 720 });
  });

  test('the dark theme follows the OS, diff editor included', async () => {
    const file = join(project, 'dark.txt');
    await writeFile(file, 'alpha\nbeta\n');
    const outcome = pi.write(file, 'alpha\nBETA\ngamma\n');
    await go('#/review');
    await page.getByRole('textbox', { name: /proposed contents/ }).waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    const background = await page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    assert.equal(background, 'rgb(27, 29, 33)');
    await page.locator('.cm-editor.cm-focused, .cm-editor').first().waitFor();
    await shot('review-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('button', { name: 'Reject', exact: true }).click();
    await page.getByRole('button', { name: 'Send now' }).click();
    assert.equal((await withTimeout(outcome, WAIT_MS, 'the rejection')).outcome, 'rejected');
  });

  test('the page logged no errors', () => {
    assert.deepEqual(ui.consoleErrors, []);
  });
});
