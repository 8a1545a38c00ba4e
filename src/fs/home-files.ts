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
  /** Agents' openDiff requests no decision answered yet (review/held-diffs.ts). */
  held: 'held',
  /** The door's port and tokens, kept for the next start (transport/door-memory.ts). */
  door: 'door.json',
  /** Which agent process had which session id (relay/stable-ids.ts). */
  sessionIds: 'session-ids.json',
  /** What the last run left to tell the person until they dismiss it (review/crash-trace.ts). */
  notices: 'notices.json',
} as const;
