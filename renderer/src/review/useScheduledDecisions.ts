// Decisions made here wait a few seconds before the agent hears them, so a key pressed by mistake
// can be taken back (u, or Undo). The hub holds them (`diffs.decideLater`): every face shows them
// the same way meanwhile (the badge, the CLI, another tab), and one made in a tab that closes is
// still sent. Between asking and the next snapshot the page shows its own request at once.
import { useCallback, useMemo, useRef, useState } from 'react';
import type { DiffSummary, LineNote } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';

/** How long a decision waits before the agent hears it. */
export const UNDO_MS = 5000;

export interface DecisionRequest {
  /** The diffs it decides. */
  ids: string[];
  outcome: 'accept' | 'reject';
  /** What an accept writes, and the words for the agent (one diff). */
  params?: { contents?: string; changes?: number[]; reason?: string; notes?: LineNote[] };
  /** "Rejecting", "Applying 2 of 3 changes to", … */
  verb: string;
  /** What it is about: a file, or "3 edits from pi · proj". */
  what: string;
}

export interface ScheduledDecision {
  /** Decisions made together are taken back together. */
  batch: string;
  ids: string[];
  verb: string;
  what: string;
  dueAt: number;
}

export interface ScheduledDecisions {
  waiting: readonly ScheduledDecision[];
  /** Diff ids whose decision waits: the inbox treats them as decided. */
  waitingIds: ReadonlySet<string>;
  schedule(request: DecisionRequest): void;
  /** Takes back the latest (or the given) waiting decision; returns its diff ids. */
  undo(batch?: string): string[];
  sendNow(batch: string): void;
  /** A decision the hub refused (decided elsewhere meanwhile, a change it lacks…). */
  error: string | null;
}

/** The waiting decisions the snapshot lists, one per batch, oldest first. */
function fromSnapshot(diffs: readonly DiffSummary[]): ScheduledDecision[] {
  const batches = new Map<string, ScheduledDecision>();
  for (const d of diffs) {
    if (d.status !== 'pending' || d.deciding === undefined) continue;
    const { batch, verb, what, dueAt } = d.deciding;
    const known = batches.get(batch);
    if (known) known.ids.push(d.id);
    else batches.set(batch, { batch, ids: [d.id], verb, what, dueAt });
  }
  return [...batches.values()].sort((a, b) => a.dueAt - b.dueAt);
}

let batchSeq = 0;

export function useScheduledDecisions(diffs: readonly DiffSummary[]): ScheduledDecisions {
  const { api } = useHub();
  const [error, setError] = useState<string | null>(null);
  // Asked for and not in a snapshot yet; taken back and still in one.
  const [asked, setAsked] = useState<ScheduledDecision[]>([]);
  const [takenBack, setTakenBack] = useState<ReadonlySet<string>>(new Set());

  const listed = useMemo(() => fromSnapshot(diffs), [diffs]);
  const pending = useMemo(() => new Set(diffs.filter((d) => d.status === 'pending').map((d) => d.id)), [diffs]);
  const waiting = useMemo(() => {
    const known = new Set(listed.map((w) => w.batch));
    // A request shows until the snapshot lists it (or its diffs are decided).
    const mine = asked.filter((w) => !known.has(w.batch) && w.ids.some((id) => pending.has(id)));
    return [...listed, ...mine].filter((w) => !takenBack.has(w.batch)).sort((a, b) => a.dueAt - b.dueAt);
  }, [listed, asked, takenBack, pending]);
  const current = useRef(waiting);
  current.current = waiting;

  const schedule = useCallback(
    (request: DecisionRequest) => {
      const batch = `b${Date.now().toString(36)}-${++batchSeq}`;
      const entry: ScheduledDecision = { batch, ids: request.ids, verb: request.verb, what: request.what, dueAt: Date.now() + UNDO_MS };
      setAsked((list) => [...list.filter((w) => w.dueAt > Date.now() - 60_000), entry]);
      setError(null);
      const { verb, what, outcome, params = {} } = request;
      void Promise.all(request.ids.map((id) => api.call('diffs.decideLater', { id, outcome, ...params, graceMs: UNDO_MS, batch, verb, what }))).catch((err: Error) => {
        setAsked((list) => list.filter((w) => w.batch !== batch));
        setError(`${verb} ${what} failed: ${err.message}`);
      });
    },
    [api],
  );

  const undo = useCallback(
    (batch?: string) => {
      const target = batch === undefined ? current.current.at(-1) : current.current.find((w) => w.batch === batch);
      if (target === undefined) return [];
      setTakenBack((set) => new Set([...set, target.batch]));
      setAsked((list) => list.filter((w) => w.batch !== target.batch));
      void api.call('diffs.takeBack', { ids: target.ids }).catch((err: Error) => setError(`Taking back ${target.what} failed: ${err.message}`));
      return target.ids;
    },
    [api],
  );

  const sendNow = useCallback(
    (batch: string) => {
      const target = current.current.find((w) => w.batch === batch);
      if (target === undefined) return;
      void api.call('diffs.sendNow', { ids: target.ids }).catch((err: Error) => setError(`${target.verb} ${target.what} failed: ${err.message}`));
    },
    [api],
  );

  const waitingIds = useMemo(() => new Set(waiting.flatMap((w) => w.ids)), [waiting]);
  return { waiting, waitingIds, schedule, undo, sendNow, error };
}
