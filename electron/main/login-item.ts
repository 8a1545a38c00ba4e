// "Start Patchbay at login", following the setting. macOS and Windows have a system call
// for it; Linux desktops read an XDG autostart entry, which is written here instead.

export interface LoginItemDeps {
  platform: NodeJS.Platform;
  /** Electron's `app.setLoginItemSettings` (macOS, Windows). */
  setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[] }): void;
  /** Linux: the autostart entry's path, and how to write or remove it. */
  autostartFile: string;
  writeFile(path: string, text: string): void;
  /** Removes the file; one that is not there is fine. */
  removeFile(path: string): void;
  /** The command line that starts Patchbay (the AppImage, or electron + app dir). */
  launchCommand: readonly string[];
}

/** Started at login, Patchbay stays in the tray instead of opening its window. */
export const HIDDEN_ARG = '--hidden';

/** Quotes an argument for a desktop entry's Exec key. */
function execArg(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
}

export function autostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Patchbay',
    'Comment=Switchboard between coding agents and editors',
    `Exec=${[...command, HIDDEN_ARG].map(execArg).join(' ')}`,
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

export class LoginItemService {
  #applied: boolean | null = null;

  constructor(private readonly deps: LoginItemDeps) {}

  /** Applies the setting when it differs from what was last applied. */
  apply(launchAtLogin: boolean): void {
    if (this.#applied === launchAtLogin) return;
    const { deps } = this;
    if (deps.platform === 'linux') {
      if (launchAtLogin) deps.writeFile(deps.autostartFile, autostartEntry(deps.launchCommand));
      // Also at start: the setting may have been turned off while the headless daemon ran.
      else deps.removeFile(deps.autostartFile);
    } else {
      deps.setLoginItemSettings({ openAtLogin: launchAtLogin, args: [HIDDEN_ARG] });
    }
    this.#applied = launchAtLogin;
  }
}
