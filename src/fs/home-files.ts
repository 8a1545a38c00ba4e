// Everything Patchbay keeps in its home, by name. Each owner joins its name to the home, and the
// home check (home-check.ts) checks every one, so a file added here cannot go unchecked.
export const HOME_FILES = {
  config: 'config.json',
  control: 'control.json',
  browser: 'browser.json',
  instanceSocket: 'patchbay.sock',
  /** The instance lock's short-lived mutex (a directory). */
  instanceMutex: 'patchbay.sock.cleanup',
  history: 'history',
  signIn: 'sign-in',
  hostedSessions: 'hosted-sessions.json',
  pending: 'pending.json',
} as const;
