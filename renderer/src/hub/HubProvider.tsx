// The one place that subscribes to the hub's event stream and keeps the latest snapshot.
import { createContext, useContext, useEffect, useState } from 'react';
import type { ReactNode } from 'react';
import type { HubApi, Snapshot } from '../../../src/api/types.ts';
import type { HubConnection } from './connect.ts';

export interface HubState {
  api: HubApi;
  transport: HubConnection['transport'];
  snapshot: Snapshot | null;
  /** Why the connection is gone, once it is. */
  lost: string | null;
}

const HubContext = createContext<HubState | null>(null);

export function HubProvider({ connection, children }: { connection: HubConnection; children: ReactNode }) {
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const [lost, setLost] = useState<string | null>(null);

  useEffect(() => {
    let pushed = false;
    const unsubscribe = connection.api.subscribe((event) => {
      if (event.type !== 'snapshot') return;
      pushed = true;
      setSnapshot(event.snapshot);
    });
    connection.onLost(setLost);
    connection.api.call('snapshot', undefined).then(
      // A pushed snapshot is at least as new as this answer.
      (first) => {
        if (!pushed) setSnapshot(first);
      },
      (err: Error) => setLost(err.message),
    );
    return unsubscribe;
  }, [connection]);

  return (
    <HubContext.Provider value={{ api: connection.api, transport: connection.transport, snapshot, lost }}>
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
