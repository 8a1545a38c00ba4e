// The Electron side of the injectable services: real Tray, Menu, Notification, stores.
import { Menu, Notification, Tray, nativeImage, nativeTheme } from 'electron';
import type { MenuItemConstructorOptions, NativeImage } from 'electron';
import { join } from 'node:path';
import Store from 'electron-store';
import type { Notifier } from '../shared/diff-notifications.ts';
import type { MenuAction } from './menu-model.ts';
import type { TrayDeps } from './tray-service.ts';
import { trayIconFile } from './tray-service.ts';
import type { BoundsStore, WindowKind } from './windows.ts';
import type { Rect } from './window-bounds.ts';

export function electronTrayDeps(iconDir: string, onAction: (action: MenuAction) => void): TrayDeps<NativeImage, Menu> {
  return {
    createTray: (image) => new Tray(image),
    buildMenu: (template) => Menu.buildFromTemplate(template as MenuItemConstructorOptions[]),
    icon: (state) => {
      // nativeImage picks up the @2x file next to it on high-density screens.
      const image = nativeImage.createFromPath(join(iconDir, trayIconFile(process.platform, state)));
      if (image.isEmpty()) console.error(`patchbay: tray icon missing in ${iconDir}`);
      return image;
    },
    isDark: () => nativeTheme.shouldUseDarkColors,
    platform: process.platform,
    onAction,
  };
}

/** Desktop notifications; each is kept referenced until it closes, or its click is lost. */
export function electronNotifier(): Notifier {
  const live = new Set<Notification>();
  return {
    show({ title, body }, onClick) {
      if (!Notification.isSupported()) return;
      const notification = new Notification({ title, body, silent: false });
      live.add(notification);
      notification.on('click', () => onClick());
      notification.on('close', () => live.delete(notification));
      notification.show();
    },
  };
}

/**
 * Window bounds in `<home>/window-state.json` via electron-store, beside config.json: they
 * are the shell's own, not settings the headless daemon shares.
 */
export function windowBoundsStore(home: string): BoundsStore {
  type WindowState = { windows: Partial<Record<WindowKind, Rect>> };
  let store: Store<WindowState> | null;
  try {
    store = new Store<WindowState>({ name: 'window-state', cwd: home, clearInvalidConfig: true, defaults: { windows: {} } });
  } catch (err) {
    console.error(`patchbay: window positions will not be remembered: ${(err as Error).message}`);
    store = null;
  }
  return {
    get: (kind) => store?.get('windows')[kind],
    set: (kind, bounds) => store?.set('windows', { ...store.get('windows'), [kind]: bounds }),
  };
}
