// Decisions made in this window wait a few seconds before the agent hears them, so a key pressed
// by mistake can be taken back (u, or Undo). They are sent when the time is up, at once with
// "Send now", and when the page goes away (a closed tab must not leave them unsent). A diff
// decided elsewhere meanwhile drops its waiting decision: the first decision wins, as in the hub.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { DecisionRecord } from '../../../src/api/types.ts';

/** How long a decision waits before the agent hears it. */
export const UNDO_MS = 5000;

export interface DecisionRequest {
  /** The diffs it decides. */
  ids: string[];
  /** "Rejecting", "Applying 2 of 3 changes to", … */
  verb: string;
  /** What it is about: a file, or "3 edits from pi · proj". */
  what: string;
  send(): Promise<DecisionRecord[]>;
}

export interface ScheduledDecision extends DecisionRequest {
  key: number;
  due: number;
}

export interface ScheduledDecisions {
  waiting: readonly ScheduledDecision[];
  /** Diff ids whose decision waits: the inbox treats them as decided. */
  waitingIds: ReadonlySet<string>;
  schedule(request: DecisionRequest): void;
  /** Takes back the latest (or the given) waiting decision; returns its diff ids. */
  undo(key?: number): string[];
  sendNow(key: number): void;
  /** A decision failed when sent (decided elsewhere meanwhile…): what the hub said. */
  error: string | null;
}

export function useScheduledDecisions(pendingIds: readonly string[]): ScheduledDecisions {
  const [waiting, setWaiting] = useState<ScheduledDecision[]>([]);
  const [error, setError] = useState<string | null>(null);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());
  const current = useRef(waiting);
  current.current = waiting;
  const nextKey = useRef(1);

  const take = useCallback((key: number): ScheduledDecision | undefined => {
    const entry = current.current.find((w) => w.key === key);
    clearTimeout(timers.current.get(key));
    timers.current.delete(key);
    current.current = current.current.filter((w) => w.key !== key);
    setWaiting(current.current);
    return entry;
  }, []);

  const sendNow = useCallback(
    (key: number) => {
      const entry = take(key);
      if (entry === undefined) return;
      entry.send().then(
        () => setError(null),
        (err: Error) => setError(`${entry.verb} ${entry.what} failed: ${err.message}`),
      );
    },
    [take],
  );

  const schedule = useCallback(
    (request: DecisionRequest) => {
      const key = nextKey.current++;
      const entry: ScheduledDecision = { ...request, key, due: Date.now() + UNDO_MS };
      current.current = [...current.current, entry];
      setWaiting(current.current);
      setError(null);
      timers.current.set(
        key,
        setTimeout(() => sendNow(key), UNDO_MS),
      );
    },
    [sendNow],
  );

  const undo = useCallback(
    (key?: number) => {
      const target = key ?? current.current.at(-1)?.key;
      return target === undefined ? [] : (take(target)?.ids ?? []);
    },
    [take],
  );

  // Decided elsewhere meanwhile: nothing left to send (the hub would refuse it).
  useEffect(() => {
    for (const entry of current.current) if (!entry.ids.some((id) => pendingIds.includes(id))) take(entry.key);
  }, [pendingIds, take]);

  // A page that goes away sends what waits; a decision the person made is not lost with the tab.
  useEffect(() => {
    const flush = (): void => {
      for (const entry of current.current) sendNow(entry.key);
    };
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
    };
  }, [sendNow]);
  useEffect(() => () => {
    // Leaving the review view (another tab of the UI) sends them too.
    for (const entry of current.current) sendNow(entry.key);
  }, [sendNow]);

  const waitingIds = new Set(waiting.flatMap((w) => w.ids));
  return { waiting, waitingIds, schedule, undo, sendNow, error };
}
