// The whole chain a review goes through, in this process: the real hub behind the headless
// control server, a fake editor, a fake pi that writes the file when told FILE_SAVED (as
// pi-ide does), and the built UI in Debian's Chromium. `restart()` stops Patchbay and starts
// it again on the same home, as a person quitting and reopening it would.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { createHub } from '../../src/hub.ts';
import type { Hub } from '../../src/hub.ts';
import type { HubOptions } from '../../src/options.ts';
import { FakeEditor } from '../peers/fake-editor.ts';
import { FakePiClient } from '../peers/fake-pi.ts';
import { tempDir, waitFor } from '../peers/wait.ts';
import type { TempDir } from '../peers/wait.ts';
import type { Page } from 'playwright-core';
import { openUi, SHOTS } from './chromium.ts';
import type { UiSession } from './chromium.ts';
import { isolatedOptions } from '../peers/hub-options.ts';

export interface LiveReview {
  /** The folder the agent works in. */
  project: string;
  hub: Hub;
  editor: FakeEditor;
  pi: FakePiClient;
  ui: UiSession;
  /** Stops Patchbay (and the agent's connection with it), starts it again, opens a new page at `hash`. */
  restart(hash?: string): Promise<void>;
  close(): Promise<void>;
}

async function startHub(options: HubOptions, project: string): Promise<Hub> {
  // The fake pi runs in this process, whose cwd is not the project: name its folder here.
  const hub = await createHub(options, {
    lookupPeer: async () => ({ pid: process.pid, cwd: project, command: 'pi (fake)', startedAt: null }),
  });
  await waitFor(async () => (await hub.call('snapshot', undefined)).editors.length === 1, { message: 'the editor discovered' });
  return hub;
}

async function connectPi(hub: Hub, options: HubOptions, project: string): Promise<FakePiClient> {
  const pi = await FakePiClient.connect({ cwd: project, lockDir: options.piLockDir });
  await waitFor(async () => (await hub.call('snapshot', undefined)).sessions.length === 1, { message: 'the pi session' });
  return pi;
}

export async function startLiveReview(name: string): Promise<LiveReview> {
  const tmp: TempDir = await tempDir(name);
  const project = join(tmp.path, 'project');
  await mkdir(project);
  const options = isolatedOptions(tmp.path, { pollMs: 100 });
  await mkdir(options.piLockDir, { recursive: true });
  const editor = await FakeEditor.start({ lockDir: options.piLockDir, workspaceFolders: [project], pingIntervalMs: 0 });
  const hub = await startHub(options, project);
  const pi = await connectPi(hub, options, project);
  const ui = await openUi(hub, options);
  await ui.page.getByRole('heading', { name: /Review inbox/ }).waitFor({ timeout: 10_000 });

  const live: LiveReview = {
    project,
    hub,
    editor,
    pi,
    ui,
    async restart(hash = '') {
      await live.ui.close();
      await live.pi.close();
      await live.hub.close('restarting');
      live.hub = await startHub(options, project);
      live.pi = await connectPi(live.hub, options, project);
      live.ui = await openUi(live.hub, options, hash);
      await live.ui.page.getByRole('heading', { name: /Review inbox/ }).waitFor({ timeout: 10_000 });
    },
    async close() {
      await live.ui.close();
      await live.pi.close();
      await live.hub.close('test over');
      await editor.stop();
      await tmp.cleanup();
    },
  };
  return live;
}

export const SIZES = [
  { width: 1280, height: 800 },
  { width: 800, height: 600 },
] as const;

/**
 * Screenshots of the page as it is, at 1280×800 and 800×600, light and dark, into
 * test-results/ui/<name>-<w>x<h>-<scheme>.png; leaves the page at 1280×800, light.
 * `ready` waits for what must show at that size (the diff re-lays itself out when narrow).
 */
export async function shootEverySize(page: Page, name: string, ready: (width: number) => Promise<void> = async () => {}): Promise<void> {
  await mkdir(SHOTS, { recursive: true });
  for (const size of SIZES) {
    await page.setViewportSize(size);
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await ready(size.width);
      await page.screenshot({ path: join(SHOTS, `${name}-${size.width}x${size.height}-${colorScheme}.png`) });
    }
  }
  await page.setViewportSize(SIZES[0]);
  await page.emulateMedia({ colorScheme: 'light' });
  await ready(SIZES[0].width);
}
