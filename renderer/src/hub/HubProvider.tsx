// The one place that subscribes to the hub's event stream and keeps the latest snapshot.
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { ReactNode } from 'react';
import type { HubApi, Snapshot } from '../../../src/api/types.ts';
import type { ConnectionState, HubConnection } from './connect.ts';
import { arrivedEarlySnapshot, takeEarlySnapshot } from './early-start.ts';

export interface HubState {
  api: HubApi;
  transport: HubConnection['transport'];
  snapshot: Snapshot | null;
  connection: ConnectionState;
  /** Why the connection is gone, while it is (reconnecting or signed out). */
  lost: string | null;
  /** While the connection is gone: what became of the edits that were waiting (see lostEdits). */
  lostEdits: LostEdits | null;
  retryNow(): void;
}

/**
 * The edits that were waiting when the connection went: those Patchbay rejected as it stopped
 * (their agents were told no), and those it said nothing about (it went away: crashed, killed,
 * or the connection alone dropped), which an agent may have written without review.
 */
export interface LostEdits {
  rejectedAtStop: string[];
  unknown: string[];
}

/** Pure: what the last snapshot listed as pending, less what the hub rejected at its stop. */
export function lostEditsOf(pendingPaths: ReadonlyMap<string, string>, rejectedAtStop: ReadonlySet<string>): LostEdits {
  const result: LostEdits = { rejectedAtStop: [], unknown: [] };
  for (const [id, path] of pendingPaths) (rejectedAtStop.has(id) ? result.rejectedAtStop : result.unknown).push(path);
  return result;
}

const HubContext = createContext<HubState | null>(null);

export function HubProvider({ connection, children }: { connection: HubConnection; children: ReactNode }) {
  // What has arrived already is on the first render: one render fewer before a cold page's diff.
  const [snapshot, setSnapshot] = useState<Snapshot | null>(arrivedEarlySnapshot);
  const [state, setState] = useState<ConnectionState>(connection.state);

  const pendingPaths = useRef(new Map<string, string>());
  const rejectedAtStop = useRef(new Set<string>());
  const [lostEdits, setLostEdits] = useState<LostEdits | null>(null);

  useEffect(() => {
    let pushed = false;
    const unsubscribe = connection.api.subscribe((event) => {
      if (event.type === 'diffDecided' && event.record.by === 'shutdown') rejectedAtStop.current.add(event.record.id);
      if (event.type !== 'snapshot') return;
      pushed = true;
      setSnapshot(event.snapshot);
    });
    // Each (re)connect starts from a fresh snapshot: what came before may be stale.
    const unwatch = connection.onState((next) => {
      setState(next);
      if (next.kind === 'reconnecting') setLostEdits((known) => known ?? lostEditsOf(pendingPaths.current, rejectedAtStop.current));
      if (next.kind !== 'connected') return;
      setLostEdits(null);
      rejectedAtStop.current.clear();
      pushed = false;
      // The page's first connection asked already (early-start.ts); later ones ask now.
      (takeEarlySnapshot() ?? connection.api.call('snapshot', undefined)).then(
        // A pushed snapshot is at least as new as this answer.
        (fresh) => {
          if (!pushed) setSnapshot(fresh);
        },
        () => {}, // the connection dropped again; its state says so
      );
    });
    return () => {
      unsubscribe();
      unwatch();
    };
  }, [connection]);

  useEffect(() => {
    if (snapshot === null) return;
    pendingPaths.current = new Map(snapshot.diffs.filter((d) => d.status === 'pending').map((d) => [d.id, d.path]));
  }, [snapshot]);

  const lost = state.kind === 'reconnecting' || state.kind === 'signed-out' ? state.why : null;
  return (
    <HubContext.Provider value={{ api: connection.api, transport: connection.transport, snapshot, connection: state, lost, lostEdits, retryNow: connection.retryNow }}>
      {children}
    </HubContext.Provider>
  );
}

export function useHub(): HubState {
  const state = useContext(HubContext);
  if (state === null) throw new Error('useHub: no HubProvider above this component');
  return state;
}

/** For views that render only once the first snapshot is in (App guarantees it). */
export function useSnapshot(): Snapshot {
  const { snapshot } = useHub();
  if (snapshot === null) throw new Error('useSnapshot: no snapshot yet');
  return snapshot;
}
