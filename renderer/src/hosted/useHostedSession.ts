// One hosted session as the panel shows it: the hub's transcript (re-read after every event
// that changes its shape, at most one read in flight), the events run through the hub's own
// reducer in between so streaming is smooth, and pi's stats re-read after each reply (one
// read in flight at a time), so they follow the conversation without a button.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { HostedDetail, HostedView } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { reduceEvent } from '../../../src/rpc/hosted.ts';
import type { RpcEvent } from '../../../src/rpc/protocol.ts';
import { movesStats, needsRefetch } from './hosted-model.ts';

/** Gap between two reads of the transcript while events keep coming. */
const REFETCH_GAP_MS = 150;

export interface HostedSession {
  detail: HostedDetail | null;
  /** pi's latest session stats (read directly, or the hub's copy). */
  stats: unknown;
  /** Why the last stats read failed (a starting or exited pi has none). */
  statsError: string | null;
  error: string | null;
  /** Re-read the transcript now (e.g. the snapshot says something changed). */
  refresh(): void;
  /** Re-read pi's stats now (e.g. pi has just finished starting). */
  refreshStats(): void;
  /** Merge a command's answer (setModel, setThinking) before the next read. */
  merge(view: HostedView): void;
}

export function useHostedSession(id: string): HostedSession {
  const { api } = useHub();
  const [detail, setDetail] = useState<HostedDetail | null>(null);
  const [stats, setStats] = useState<unknown>(null);
  const [statsError, setStatsError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refreshRef = useRef<() => void>(() => {});
  const statsRef = useRef<() => void>(() => {});

  useEffect(() => {
    let current = true;
    let inFlight = false;
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let statsInFlight = false;
    let statsAgain = false;
    setDetail(null);
    setStats(null);
    setStatsError(null);
    setError(null);

    const load = (): void => {
      if (!current) return;
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      api.call('pi.get', { id }).then(
        (fresh) => {
          if (!current) return;
          // Events that arrive after this answer are applied on top of it, in order.
          setDetail(fresh);
          setError(null);
        },
        (err: Error) => current && setError(`Could not read this session: ${err.message}`),
      ).finally(() => {
        inFlight = false;
        if (again && current) {
          again = false;
          clearTimeout(timer);
          timer = setTimeout(load, REFETCH_GAP_MS);
        }
      });
    };
    const loadStats = (): void => {
      if (!current) return;
      if (statsInFlight) {
        statsAgain = true;
        return;
      }
      statsInFlight = true;
      api
        .call('pi.stats', { id })
        .then(
          (fresh) => {
            if (!current) return;
            setStats(fresh ?? null);
            setStatsError(null);
          },
          // The hub's copy (if any) stays shown.
          (err: Error) => current && setStatsError(err.message),
        )
        .finally(() => {
          statsInFlight = false;
          if (statsAgain) {
            statsAgain = false;
            loadStats();
          }
        });
    };
    refreshRef.current = load;
    statsRef.current = loadStats;

    const unsubscribe = api.subscribe((event) => {
      if (event.type !== 'pi' || event.id !== id) return;
      const raw = event.event;
      setDetail((prev) => (prev === null ? prev : { ...prev, ...reduceEvent(prev, raw as RpcEvent, Date.now()) }));
      if (needsRefetch(raw)) load();
      if (movesStats(raw)) loadStats();
    });
    load();
    loadStats();
    return () => {
      current = false;
      clearTimeout(timer);
      unsubscribe();
      refreshRef.current = () => {};
      statsRef.current = () => {};
    };
  }, [api, id]);

  const refresh = useCallback(() => refreshRef.current(), []);
  const refreshStats = useCallback(() => statsRef.current(), []);
  const merge = useCallback((view: HostedView) => {
    setDetail((prev) => (prev === null || prev.id !== view.id ? prev : { ...prev, ...view }));
  }, []);

  return { detail, stats: stats ?? detail?.stats ?? null, statsError, error, refresh, refreshStats, merge };
}

/** pi's model list for one session, read once it runs. */
export function useHostedModels(id: string, running: boolean): { models: unknown; error: string | null } {
  const { api } = useHub();
  const [models, setModels] = useState<unknown>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!running) return;
    let current = true;
    setError(null);
    api.call('pi.models', { id }).then(
      (list) => current && setModels(list),
      (err: Error) => current && setError(`Could not list models: ${err.message}`),
    );
    return () => {
      current = false;
    };
  }, [api, id, running]);
  return { models, error };
}

/** The thinking levels pi offers for the session's model, read again when the model changes. */
export function useThinkingLevels(id: string, running: boolean, model: string | null): readonly string[] | null {
  const { api } = useHub();
  const [levels, setLevels] = useState<string[] | null>(null);
  useEffect(() => {
    if (!running) return;
    let current = true;
    api.call('pi.thinkingLevels', { id }).then(
      (list) => current && setLevels(list.length > 0 ? list : null),
      () => current && setLevels(null),
    );
    return () => {
      current = false;
    };
  }, [api, id, running, model]);
  return levels;
}
