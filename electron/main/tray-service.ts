// The tray icon, its badge and its menu. Takes its Electron parts in the constructor, so the
// logic (what to rebuild, which image, what a click does) runs in tests with fakes.
import type { Snapshot } from '../../src/api/types.ts';
import { menuModel, reconnectingMenu, trayBadge } from './menu-model.ts';
import type { MenuAction, MenuItemModel } from './menu-model.ts';

export interface TrayIconState {
  pending: boolean;
  /** The OS shows dark chrome (ignored on macOS, whose template images adapt by themselves). */
  dark: boolean;
}

/** A structural subset of Electron's MenuItemConstructorOptions. */
export interface MenuTemplateItem {
  label?: string;
  type?: 'normal' | 'separator' | 'submenu' | 'radio';
  enabled?: boolean;
  checked?: boolean;
  submenu?: MenuTemplateItem[];
  click?: () => void;
}

export interface TrayHandle<Image, Menu> {
  setImage(image: Image): void;
  setToolTip(text: string): void;
  setContextMenu(menu: Menu): void;
  setTitle(title: string): void;
  on(event: 'click', listener: () => void): unknown;
  destroy(): void;
}

export interface TrayDeps<Image, Menu> {
  createTray(image: Image): TrayHandle<Image, Menu>;
  buildMenu(template: MenuTemplateItem[]): Menu;
  icon(state: TrayIconState): Image;
  isDark(): boolean;
  platform: NodeJS.Platform;
  onAction(action: MenuAction): void;
}

/** Image file for a state: template images on macOS, light/dark variants elsewhere. */
export function trayIconFile(platform: NodeJS.Platform, state: TrayIconState): string {
  if (platform === 'darwin') return state.pending ? 'trayPendingTemplate.png' : 'trayTemplate.png';
  // "dark" names the theme: a light glyph on a dark panel.
  return `tray-${state.dark ? 'dark' : 'light'}${state.pending ? '-pending' : ''}.png`;
}

export function menuTemplate(items: readonly MenuItemModel[], onAction: (action: MenuAction) => void): MenuTemplateItem[] {
  return items.map((item): MenuTemplateItem => {
    switch (item.kind) {
      case 'text':
        return { label: item.label, enabled: false };
      case 'separator':
        return { type: 'separator' };
      case 'action':
        return { label: item.label, click: () => onAction(item.action) };
      case 'choice':
        return { label: item.label, type: 'radio', checked: item.checked, click: () => onAction(item.action) };
      case 'submenu':
        return { label: item.label, type: 'submenu', submenu: menuTemplate(item.items, onAction) };
    }
  });
}

export class TrayService<Image, Menu> {
  readonly #deps: TrayDeps<Image, Menu>;
  #tray: TrayHandle<Image, Menu> | null;
  #menuKey = '';
  #iconKey = '';
  #pending = 0;

  constructor(deps: TrayDeps<Image, Menu>) {
    this.#deps = deps;
    const state = { pending: false, dark: deps.isDark() };
    this.#iconKey = JSON.stringify(state);
    this.#tray = deps.createTray(deps.icon(state));
    this.#tray.setToolTip('Patchbay');
    // Windows opens menus on right-click only; a left click should do something useful.
    if (deps.platform === 'win32') {
      this.#tray.on('click', () => deps.onAction(this.#pending > 0 ? { kind: 'openReview' } : { kind: 'openMain' }));
    }
  }

  /** Rebuilds the menu only when its content changed: snapshots arrive on every focus change. */
  update(snapshot: Snapshot): void {
    const tray = this.#tray;
    if (tray === null) return;
    this.#setMenu(menuModel(snapshot));
    const badge = trayBadge(snapshot);
    this.#pending = badge.pending;
    tray.setToolTip(badge.tooltip);
    if (this.#deps.platform === 'darwin') tray.setTitle(badge.pending > 0 ? String(badge.pending) : '');
    this.#refreshIcon();
  }

  /** The hub is gone for now: the last snapshot's menu would act on nothing. The next update restores it. */
  reconnecting(why: string): void {
    if (this.#tray === null) return;
    this.#setMenu(reconnectingMenu(why));
    this.#tray.setToolTip('Patchbay — reconnecting');
  }

  #setMenu(model: MenuItemModel[]): void {
    const menuKey = JSON.stringify(model);
    if (this.#tray === null || menuKey === this.#menuKey) return;
    this.#menuKey = menuKey;
    this.#tray.setContextMenu(this.#deps.buildMenu(menuTemplate(model, this.#deps.onAction)));
  }

  /** The OS switched between light and dark. */
  themeChanged(): void {
    this.#refreshIcon();
  }

  #refreshIcon(): void {
    const state: TrayIconState = { pending: this.#pending > 0, dark: this.#deps.isDark() };
    const key = JSON.stringify(state);
    if (this.#tray === null || key === this.#iconKey) return;
    this.#iconKey = key;
    this.#tray.setImage(this.#deps.icon(state));
  }

  close(): void {
    this.#tray?.destroy();
    this.#tray = null;
  }
}
