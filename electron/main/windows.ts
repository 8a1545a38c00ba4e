// Patchbay's windows: one renderer, opened on a view per window kind, remembered bounds,
// and the set of webContents ids that IPC trusts.
import { BrowserWindow, screen } from 'electron';
import type { Rect } from './window-bounds.ts';
import { parseRect, restoreBounds } from './window-bounds.ts';

export type WindowKind = 'main' | 'review' | 'settings';

interface WindowSpec {
  title: string;
  /** The renderer route it opens on (see renderer/src/app/route.ts). */
  view: string;
  width: number;
  height: number;
}

const SPECS: Record<WindowKind, WindowSpec> = {
  review: { title: 'Patchbay — Review', view: 'review', width: 1200, height: 800 },
  main: { title: 'Patchbay', view: 'pairing', width: 1000, height: 700 },
  settings: { title: 'Patchbay — Settings', view: 'settings', width: 760, height: 700 },
};

/** No view breaks at this size. */
const MIN_SIZE = { width: 800, height: 600 };

export interface BoundsStore {
  get(kind: WindowKind): unknown;
  set(kind: WindowKind, bounds: Rect): void;
}

export interface WindowManagerOptions {
  /** The renderer's index.html as a file:// URL, or the dev server's URL. */
  appUrl: string;
  preload: string;
  bounds: BoundsStore;
  icon?: string;
}

export class WindowManager {
  readonly #windows = new Map<WindowKind, BrowserWindow>();
  readonly #trusted = new Set<number>();

  constructor(private readonly options: WindowManagerOptions) {}

  /** webContents ids of live Patchbay windows, for the IPC sender check. */
  get trustedIds(): ReadonlySet<number> {
    return this.#trusted;
  }

  /** Shows the window of that kind (creating it if needed), optionally on one item. */
  open(kind: WindowKind, itemId?: string): void {
    const spec = SPECS[kind];
    const url = `${this.options.appUrl}#/${spec.view}${itemId === undefined ? '' : `/${encodeURIComponent(itemId)}`}`;
    const existing = this.#windows.get(kind);
    if (existing !== undefined && !existing.isDestroyed()) {
      // A same-document (hash) change: the page keeps its state and its connection.
      if (itemId !== undefined) void existing.loadURL(url);
      if (existing.isMinimized()) existing.restore();
      existing.show();
      existing.focus();
      return;
    }
    this.#create(kind, spec, url);
  }

  #create(kind: WindowKind, spec: WindowSpec, url: string): void {
    const workAreas = [screen.getPrimaryDisplay(), ...screen.getAllDisplays()].map((d) => d.workArea);
    const bounds = restoreBounds(parseRect(this.options.bounds.get(kind)), workAreas, spec);
    const win = new BrowserWindow({
      ...bounds,
      minWidth: MIN_SIZE.width,
      minHeight: MIN_SIZE.height,
      title: spec.title,
      show: false,
      ...(this.options.icon === undefined ? {} : { icon: this.options.icon }),
      webPreferences: {
        preload: this.options.preload,
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        spellcheck: false,
      },
    });
    const id = win.webContents.id;
    this.#trusted.add(id);
    this.#windows.set(kind, win);
    win.once('ready-to-show', () => win.show());
    win.on('close', () => this.options.bounds.set(kind, win.getNormalBounds()));
    win.on('closed', () => {
      this.#trusted.delete(id);
      if (this.#windows.get(kind) === win) this.#windows.delete(kind);
    });
    void win.loadURL(url).catch((err: Error) => console.error(`patchbay: could not load ${url}: ${err.message}`));
  }

  /** Sends to every live window. */
  forEachContents(send: (contents: Electron.WebContents) => void): void {
    for (const win of this.#windows.values()) if (!win.isDestroyed()) send(win.webContents);
  }

  closeAll(): void {
    for (const win of this.#windows.values()) if (!win.isDestroyed()) win.close();
  }
}
