// Settings only the person sets, in a terminal or in config.json, never over the API (which a
// browser's sign-in also reaches). Kept apart from the store so the CLI knows them without
// loading `conf`.
import { HubError, type PatchbaySettings } from '../api/types.ts';

/**
 * What makes Patchbay run a program (the hosted pi command; extensions hosted pi loads), and
 * what widens whose files it trusts (lock dirs others may write).
 */
export const LOCAL_ONLY_SETTINGS = ['piCommand', 'allowPiExtensions', 'trustedLockDirs', 'remotes'] as const satisfies readonly (keyof PatchbaySettings)[];

export type LocalOnlySetting = (typeof LOCAL_ONLY_SETTINGS)[number];

/** What runs a program (when a running Patchbay next uses it): pi's command, its extensions. */
const RUNS = {
  decides: 'what Patchbay runs',
  takesEffect: { running: 'the running Patchbay uses it from the next pi start', stopped: 'Patchbay uses it when it starts pi' },
};

/** Each one's example value (shell-quoted), what it decides, and when a saved value takes effect. */
const FACTS: Record<LocalOnlySetting, { example: string; decides: string; takesEffect: { running: string; stopped: string } }> = {
  piCommand: { example: `'"/path/to/pi"'`, ...RUNS },
  allowPiExtensions: { example: 'true', ...RUNS },
  remotes: {
    example: `'[{"name":"devbox","destination":"me@devbox","maps":[{"remote":"/home/me/p","local":"/Users/me/p"}]}]'` + ' (or: patchbay remote add)',
    decides: 'where Patchbay connects with ssh',
    takesEffect: { running: 'the running Patchbay connected it', stopped: 'Patchbay connects it when it starts' },
  },
  trustedLockDirs: {
    example: `'["/srv/shared/ide"]'`,
    decides: 'whose lockfiles Patchbay trusts',
    takesEffect: { running: 'the running Patchbay looked at its lock dirs again', stopped: 'Patchbay uses it when it starts' },
  },
};

export function isLocalOnlySetting(key: string): key is LocalOnlySetting {
  return (LOCAL_ONLY_SETTINGS as readonly string[]).includes(key);
}

/** When a value the CLI just saved takes effect, whether a Patchbay is running or not. */
export function localSettingTakesEffect(key: LocalOnlySetting, running: boolean): string {
  return FACTS[key].takesEffect[running ? 'running' : 'stopped'];
}

/** The refusal of an API patch that names a local-only setting, or null. */
export function localOnlyRefusal(patch: object, settingsFile: string): HubError | null {
  const key = LOCAL_ONLY_SETTINGS.find((k) => Object.hasOwn(patch, k));
  if (key === undefined) return null;
  return new HubError(
    `settings: ${key} is not changed over Patchbay's API: it decides ${FACTS[key].decides}, so only you set it, in a terminal ` +
      `(patchbay settings set ${key} ${FACTS[key].example}) or in "settings" of ${settingsFile}`,
    'invalid',
  );
}
