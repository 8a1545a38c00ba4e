// Saving from the settings view: a command's busy/error state plus a short-lived "saved" flag,
// so the person sees that a change took (settings save as soon as they change).
import { useCallback, useEffect, useRef, useState } from 'react';
import type { PatchbaySettings } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import type { Command } from '../hub/useCommand.ts';

/** How long "Saved" stays after a save. */
export const SAVED_MS = 2500;

export interface SavedCommand extends Command {
  /** A run succeeded in the last SAVED_MS. */
  saved: boolean;
}

export function useSavedCommand(): SavedCommand {
  const command = useCommand();
  const [saved, setSaved] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const { run: runCommand } = command;
  const run = useCallback(
    async (action: () => Promise<unknown>) => {
      clearTimeout(timer.current);
      setSaved(false);
      const ok = await runCommand(action);
      if (ok) {
        setSaved(true);
        timer.current = setTimeout(() => setSaved(false), SAVED_MS);
      }
      return ok;
    },
    [runCommand],
  );
  return { ...command, run, saved };
}

export interface SaveSettings extends SavedCommand {
  save(patch: Partial<PatchbaySettings>): Promise<boolean>;
}

export function useSaveSettings(): SaveSettings {
  const { api } = useHub();
  const command = useSavedCommand();
  const { run } = command;
  const save = useCallback((patch: Partial<PatchbaySettings>) => run(() => api.call('settings.set', { patch })), [api, run]);
  return { ...command, save };
}
