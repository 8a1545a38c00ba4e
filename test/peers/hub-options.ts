// Options for a hub whose every file lives under one temp folder, with no process scan:
// tests then never touch the person's own lock dirs, settings or Patchbay home.
import { join } from 'node:path';
import { resolveOptions, type HubOptions } from '../../src/options.ts';

export function isolatedOptions(root: string, overrides: Partial<HubOptions> = {}): HubOptions {
  return resolveOptions(
    {},
    {
      home: join(root, 'home'),
      piLockDir: join(root, 'pi-ide'),
      // `<CLAUDE_CONFIG_DIR>/ide`, as Claude Code (and its double) look there.
      claudeLockDir: join(root, 'claude', 'ide'),
      piSettingsFile: join(root, 'agent', 'settings.json'),
      piAgentDir: join(root, 'agent'),
      piSessionDir: null,
      scanProcesses: false,
      ...overrides,
    },
  );
}
