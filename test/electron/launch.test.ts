// The real desktop app, when an Electron binary is installed (skipped otherwise: the npm
// package cannot fetch its binary without internet). Isolated in a temp home and lock dirs.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { _electron } from 'playwright-core';
import type { ElectronApplication, Page } from 'playwright-core';
import { buildIfStale, detectElectron } from '../../src/cli/start.ts';
import { tempDir } from '../peers/wait.ts';
import type { TempDir } from '../peers/wait.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const electron = detectElectron(() => createRequire(import.meta.url)('electron'), existsSync);
const headlessLinux = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
const skip = !electron.found ? `no Electron binary: ${electron.reason}` : headlessLinux ? 'no display (run under xvfb-run)' : false;

describe('the desktop app', { skip }, () => {
  let tmp: TempDir;
  let app: ElectronApplication;
  let window: Page;

  before(async () => {
    assert.ok(electron.found);
    assert.ok(buildIfStale('desktop', process.env), 'the app builds');
    tmp = await tempDir('electron');
    await mkdir(join(tmp.path, 'pi-ide'));
    app = await _electron.launch({
      executablePath: electron.binary,
      // Chromium refuses to run as root with its sandbox; the renderer sandbox flag stays on.
      args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), ROOT],
      cwd: ROOT,
      env: {
        ...process.env,
        PATCHBAY_HOME: join(tmp.path, 'home'),
        PI_IDE_LOCK_DIR: join(tmp.path, 'pi-ide'),
        CLAUDE_CONFIG_DIR: join(tmp.path, 'claude'),
        PI_CODING_AGENT_DIR: join(tmp.path, 'agent'),
        PATCHBAY_SCAN_PROCESSES: '0',
      },
    });
    window = await app.firstWindow();
  });

  after(async () => {
    await app?.close();
    await tmp?.cleanup();
  });

  test('opens its main window on the pairing view', async () => {
    await window.getByRole('heading', { name: /Agents connected/ }).waitFor({ timeout: 15_000 });
    assert.match(window.url(), /^file:.*\/out\/renderer\/index\.html#\/pairing$/);
  });

  test('the page sees window.patchbay with invoke and subscribe, and no Node', async () => {
    const shape = await window.evaluate(
      `({ keys: Object.keys(window.patchbay).sort(), require: typeof require, process: typeof process, ipc: typeof window.ipcRenderer })`,
    );
    assert.deepEqual(shape, { keys: ['invoke', 'subscribe'], require: 'undefined', process: 'undefined', ipc: 'undefined' });
    const snapshot = (await window.evaluate(`window.patchbay.invoke('snapshot')`)) as { ok: true; result: { pid: number } };
    assert.equal(typeof snapshot.result.pid, 'number');
    const refused = (await window.evaluate(`window.patchbay.invoke('setPaused', { paused: 'no' })`)) as { ok: false; error: { code: string } };
    assert.equal(refused.error.code, 'invalid', 'an error keeps its code across IPC');
    await assert.rejects(window.evaluate(`window.patchbay.invoke('no.such.method', {})`), /unknown method/);
  });

  test('the page can neither open windows nor navigate away', async () => {
    await window.evaluate(`window.open('https://example.com/')`);
    await window.evaluate(`window.location.href = 'https://example.com/'`);
    await window.getByRole('heading', { name: /Agents connected/ }).waitFor();
    assert.equal(app.windows().length, 1);
    assert.match(window.url(), /^file:/);
  });
});
