// Who may talk to the main process: only the top frame of Patchbay's own windows, showing
// Patchbay's own page. Pure, so the rule is tested with fake frames.

export interface SenderFacts {
  /** `event.senderFrame.url`; null when the frame is already gone. */
  frameUrl: string | null;
  /** The frame is its window's top frame (no iframes are trusted). */
  isMainFrame: boolean;
  /** `event.sender.id`. */
  webContentsId: number;
}

export interface TrustPolicy {
  /** The renderer's URL: `file:///…/out/renderer/index.html`, or the dev server's. */
  appUrl: string;
  /** webContents ids of the windows Patchbay created. */
  windowIds: ReadonlySet<number>;
}

export function isTrustedSender(sender: SenderFacts, policy: TrustPolicy): boolean {
  if (!sender.isMainFrame || !policy.windowIds.has(sender.webContentsId)) return false;
  if (sender.frameUrl === null) return false;
  return isAppPage(sender.frameUrl, policy.appUrl);
}

/** Same page as the app's: for file:// the same file (origins are opaque there), else the same origin. */
export function isAppPage(url: string, appUrl: string): boolean {
  let page: URL;
  let app: URL;
  try {
    page = new URL(url);
    app = new URL(appUrl);
  } catch {
    return false;
  }
  if (app.protocol === 'file:') return page.protocol === 'file:' && page.host === app.host && page.pathname === app.pathname;
  return page.origin === app.origin;
}
