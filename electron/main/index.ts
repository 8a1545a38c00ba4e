// The desktop shell's composition root: one instance, the hub, the tray, the windows, IPC.
// Like src/cli/main.ts it is an entry point, so it reads process.env and hands values down.
import { app, dialog, ipcMain, nativeTheme } from 'electron';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Snapshot } from '../../src/api/types.ts';
import { resolveOptions } from '../../src/options.ts';
import { outliveOutputReaders, processStopSignals } from '../../src/lifecycle/stop-signals.ts';
import { connectShellHub, type ShellHub } from '../../src/web/shell-hub.ts';
import { DiffNotifications } from '../shared/diff-notifications.ts';
import { electronNotifier, electronTrayDeps, windowBoundsStore } from './electron-services.ts';
import { handle, hubCallHandler, sendEvent } from './ipc-main.ts';
import { HIDDEN_ARG, LoginItemService } from './login-item.ts';
import { pendingCount } from '../shared/diff-notifications.ts';
import type { MenuAction } from './menu-model.ts';
import { quitPrompt } from './quit-prompt.ts';
import { enforceSandbox, lockDownSession } from './security.ts';
import { TrayService } from './tray-service.ts';
import { isTrustedSender } from './trusted-sender.ts';
import { WindowManager } from './windows.ts';

const RENDERER_DIR = join(import.meta.dirname, '../renderer');
const PRELOAD = join(import.meta.dirname, '../preload/index.cjs');
/**
 * Set by `electron-vite dev`. Whatever page it names is trusted with IPC, so it counts only
 * for an unpackaged app and a loopback address.
 */
const DEV_SERVER_URL = devServerUrl(process.env.ELECTRON_RENDERER_URL);
const APP_URL = DEV_SERVER_URL ?? pathToFileURL(join(RENDERER_DIR, 'index.html')).href;

function devServerUrl(value: string | undefined): string | undefined {
  if (value === undefined || app.isPackaged) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) return url.href;
  } catch {
    // reported below
  }
  console.error(`patchbay: ignoring ELECTRON_RENDERER_URL=${value}: only a loopback http:// dev server is allowed`);
  return undefined;
}

function resourcesDir(): string {
  return app.isPackaged ? process.resourcesPath : join(app.getAppPath(), 'resources');
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function loginItemService(): LoginItemService {
  const configHome = process.env.XDG_CONFIG_HOME || join(app.getPath('home'), '.config');
  const launchCommand = process.env.APPIMAGE
    ? [process.env.APPIMAGE]
    : app.isPackaged
      ? [process.execPath]
      : [process.execPath, app.getAppPath()];
  return new LoginItemService({
    platform: process.platform,
    setLoginItemSettings: (settings) => app.setLoginItemSettings(settings),
    autostartFile: join(configHome, 'autostart', 'patchbay.desktop'),
    writeFile: (path, text) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text, { mode: 0o644 });
    },
    removeFile: (path) => rmSync(path, { force: true }),
    launchCommand,
  });
}

async function start(): Promise<void> {
  lockDownSession(DEV_SERVER_URL);
  const home = process.env.PATCHBAY_HOME || app.getPath('userData');
  let hub: ShellHub;
  try {
    hub = await connectShellHub(resolveOptions(process.env, { home }), {
      // Without a daemon running, the app starts one (it stops it on Quit): its own Electron
      // binary as node on the bundled CLI. The daemon then owns the agents' connections and
      // keeps them through a restart of its core; this process only shows it.
      daemon: {
        command: [process.execPath, join(app.getAppPath(), app.isPackaged ? 'out/cli/patchbay.mjs' : 'src/cli/bin.mjs')],
        env: { ...process.env, PATCHBAY_HOME: home, ELECTRON_RUN_AS_NODE: '1' },
      },
      log: (line) => console.error(`patchbay: ${line}`),
    });
  } catch (err) {
    dialog.showErrorBox('Patchbay could not start', message(err));
    app.exit(1);
    return;
  }
  console.error(`patchbay: desktop app on ${hub.description}`);

  const windows = new WindowManager({
    appUrl: APP_URL,
    preload: PRELOAD,
    bounds: windowBoundsStore(home),
    icon: join(resourcesDir(), 'icon.png'),
  });
  const unhandle = handle(ipcMain, 'hub:call', (sender) => isTrustedSender(sender, { appUrl: APP_URL, windowIds: windows.trustedIds }), hubCallHandler(hub));

  const runCommand = (what: string, command: Promise<unknown>): void => {
    command.catch((err) => dialog.showErrorBox(`Patchbay could not ${what}`, message(err)));
  };
  const act = (action: MenuAction): void => {
    switch (action.kind) {
      case 'bind':
        return runCommand('rebind the session', hub.call('bind', { sessionId: action.sessionId, editorId: action.editorId }));
      case 'unpin':
        return runCommand('let the rules bind the session', hub.call('unpin', { sessionId: action.sessionId }));
      case 'setPaused':
        return runCommand(action.paused ? 'pause routing' : 'resume routing', hub.call('setPaused', { paused: action.paused }));
      case 'restart':
        // As `patchbay restart`: the core restarts under the daemon; agents and editors stay connected.
        return runCommand("restart Patchbay's core", hub.call('restart', undefined));
      case 'openReview':
        return windows.open('review');
      case 'openMain':
        return windows.open('main');
      case 'openSettings':
        return windows.open('settings');
      case 'quit':
        return app.quit();
    }
  };

  const tray = new TrayService(electronTrayDeps(join(resourcesDir(), 'tray'), act));
  const notifications = new DiffNotifications(electronNotifier(), (diffId) => windows.open('review', diffId));
  const loginItem = loginItemService();
  let latest: Snapshot | null = null;
  const onSnapshot = (snapshot: Snapshot): void => {
    latest = snapshot;
    tray.update(snapshot);
    notifications.update(snapshot);
    app.setBadgeCount(pendingCount(snapshot));
    try {
      loginItem.apply(snapshot.settings.launchAtLogin);
    } catch (err) {
      console.error(`patchbay: could not change launch at login: ${message(err)}`);
    }
  };
  const unsubscribe = hub.subscribe((event) => {
    windows.forEachContents((contents) => sendEvent(contents, 'hub:event', event));
    if (event.type === 'snapshot') onSnapshot(event.snapshot);
  });
  // The snapshot that follows a reconnect restores the menu.
  const unwatch = hub.onConnection((lost) => {
    if (lost !== null) tray.reconnecting(lost);
  });
  onSnapshot(await hub.call('snapshot', undefined));
  nativeTheme.on('updated', () => tray.themeChanged());

  app.on('second-instance', () => windows.open('main'));
  app.on('activate', () => windows.open('main'));
  // Closing the last window leaves Patchbay in the tray; only Quit stops it.
  app.on('window-all-closed', () => {});

  let quitting: 'no' | 'closing' | 'done' = 'no';
  let askFirst = true;
  const stopBySignal = (): void => {
    askFirst = false;
    app.quit();
  };
  // A closed terminal (SIGHUP) or a lost log reader must not end the app before its clean stop.
  for (const signal of processStopSignals()) process.on(signal, stopBySignal);
  outliveOutputReaders();
  app.on('before-quit', (event) => {
    if (quitting === 'done') return;
    event.preventDefault();
    if (quitting === 'closing') return;
    const working = latest === null ? 0 : (latest.hosted ?? []).filter((h) => h.status === 'streaming').length;
    const prompt = hub.owned && askFirst && latest !== null ? quitPrompt(pendingCount(latest), working) : null;
    if (prompt !== null && dialog.showMessageBoxSync({ type: 'warning', ...prompt }) !== 0) return;
    quitting = 'closing';
    unsubscribe();
    unwatch();
    unhandle();
    notifications.close();
    tray.close();
    hub
      .close('Patchbay is quitting')
      .catch((err) => console.error(`patchbay: while closing: ${message(err)}`))
      .finally(() => {
        quitting = 'done';
        app.quit();
      });
  });

  const pending = latest === null ? 0 : pendingCount(latest);
  if (!process.argv.includes(HIDDEN_ARG)) windows.open(pending > 0 ? 'review' : 'main');
}

enforceSandbox();
if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.whenReady().then(start, (err) => {
    console.error(`patchbay: ${message(err)}`);
    app.exit(1);
  });
}
