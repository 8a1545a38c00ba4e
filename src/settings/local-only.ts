// Settings only the person sets, in a terminal or in config.json, never over the API (which a
// browser's sign-in also reaches). Kept apart from the store so the CLI knows them without
// loading `conf`.
import { HubError, type PatchbaySettings } from '../api/types.ts';

/**
 * What makes Patchbay run a program (the hosted pi command; extensions hosted pi loads), and
 * what widens whose files it trusts (lock dirs others may write).
 */
export const LOCAL_ONLY_SETTINGS = ['piCommand', 'allowPiExtensions', 'trustedLockDirs'] as const satisfies readonly (keyof PatchbaySettings)[];

export type LocalOnlySetting = (typeof LOCAL_ONLY_SETTINGS)[number];

const EXAMPLES: Record<LocalOnlySetting, string> = {
  piCommand: `'"/path/to/pi"'`,
  allowPiExtensions: 'true',
  trustedLockDirs: `'["/srv/shared/ide"]'`,
};

export function isLocalOnlySetting(key: string): key is LocalOnlySetting {
  return (LOCAL_ONLY_SETTINGS as readonly string[]).includes(key);
}

/** The refusal of an API patch that names a local-only setting, or null. */
export function localOnlyRefusal(patch: object, settingsFile: string): HubError | null {
  const key = LOCAL_ONLY_SETTINGS.find((k) => Object.hasOwn(patch, k));
  if (key === undefined) return null;
  const why = key === 'trustedLockDirs' ? 'it decides whose lockfiles Patchbay trusts' : 'it decides what Patchbay runs';
  return new HubError(
    `settings: ${key} is not changed over Patchbay's API: ${why}, so only you set it, in a terminal ` +
      `(patchbay settings set ${key} ${EXAMPLES[key]}) or in "settings" of ${settingsFile}`,
    'invalid',
  );
}
