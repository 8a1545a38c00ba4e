// Runs a hub command from a button: tracks that it is running and keeps its error to show.
import { useCallback, useState } from 'react';

export interface Command {
  busy: boolean;
  error: string | null;
  run(action: () => Promise<unknown>): Promise<boolean>;
  clearError(): void;
}

export function useCommand(): Command {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
      return true;
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clearError: useCallback(() => setError(null), []) };
}
