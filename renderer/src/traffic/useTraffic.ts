// Polls a session's recent frames while the inspector is open (the hub pushes no traffic events).
import { useEffect, useState } from 'react';
import type { TrafficEntry } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';

const POLL_MS = 1000;

export function useTraffic(sessionId: string | null, paused: boolean): { entries: TrafficEntry[]; error: string | null } {
  const { api } = useHub();
  const [entries, setEntries] = useState<TrafficEntry[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setEntries([]);
    setError(null);
  }, [sessionId]);
  useEffect(() => {
    if (sessionId === null || paused) return;
    let current = true;
    const load = (): void => {
      api.call('traffic', { sessionId, limit: 500 }).then(
        (list) => {
          if (!current) return;
          setEntries(list);
          setError(null);
        },
        (err: Error) => current && setError(err.message),
      );
    };
    load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [api, sessionId, paused]);
  return { entries, error };
}
