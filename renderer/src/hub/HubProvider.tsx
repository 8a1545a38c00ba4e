// The one place that subscribes to the hub's event stream and keeps the latest snapshot.
import { createContext, useContext, useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import type { HubApi, Snapshot } from '../../../src/api/types.ts';
import type { ConnectionState, HubConnection } from './connect.ts';

export interface HubState {
  api: HubApi;
  transport: HubConnection['transport'];
  snapshot: Snapshot | null;
  connection: ConnectionState;
  /** Why the connection is gone, while it is (reconnecting or signed out). */
  lost: string | null;
  retryNow(): void;
}

const HubContext = createContext<HubState | null>(null);

export function HubProvider({ connection, children }: { connection: HubConnection; children: ReactNode }) {
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [state, setState] = useState<ConnectionState>({ kind: 'connecting' });

  useEffect(() => {
    let pushed = false;
    const unsubscribe = connection.api.subscribe((event) => {
      if (event.type !== 'snapshot') return;
      pushed = true;
      setSnapshot(event.snapshot);
    });
    // Each (re)connect starts from a fresh snapshot: what came before may be stale.
    const unwatch = connection.onState((next) => {
      setState(next);
      if (next.kind !== 'connected') return;
      pushed = false;
      connection.api.call('snapshot', undefined).then(
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

  const lost = state.kind === 'reconnecting' || state.kind === 'signed-out' ? state.why : null;
  return (
    <HubContext.Provider value={{ api: connection.api, transport: connection.transport, snapshot, connection: state, lost, retryNow: connection.retryNow }}>
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
