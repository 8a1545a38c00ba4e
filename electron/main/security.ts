// Hardening that applies to every web contents Patchbay creates: no navigation, no new
// windows, no webviews, no permissions, and the CSP as a response header too.
import { app, session } from 'electron';
import type { WebContents } from 'electron';
import { CONTENT_SECURITY_POLICY_HEADER, devContentSecurityPolicy } from '../shared/csp.ts';

export function hardenContents(contents: WebContents): void {
  contents.setWindowOpenHandler(({ url }) => {
    console.error(`patchbay: refused to open a window for ${url}`);
    return { action: 'deny' };
  });
  // In-page (hash) navigation does not emit these, so the renderer's routes keep working.
  contents.on('will-navigate', (event, url) => {
    event.preventDefault();
    console.error(`patchbay: refused navigation to ${url}`);
  });
  contents.on('will-redirect', (event, url) => {
    event.preventDefault();
    console.error(`patchbay: refused redirect to ${url}`);
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Call before the app is ready. */
export function enforceSandbox(): void {
  app.enableSandbox();
  app.on('web-contents-created', (_event, contents) => hardenContents(contents));
}

/** Call once the app is ready. `devServerUrl` is set only under `electron-vite dev`. */
export function lockDownSession(devServerUrl: string | undefined): void {
  const ses = session.defaultSession;
  ses.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  ses.setPermissionCheckHandler(() => false);
  const policy = devServerUrl === undefined ? CONTENT_SECURITY_POLICY_HEADER : devContentSecurityPolicy(new URL(devServerUrl).origin);
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [policy] } });
  });
}
