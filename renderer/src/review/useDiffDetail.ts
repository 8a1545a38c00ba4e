// Loads one diff's contents (`diffs.get`); summaries in the snapshot carry no text.
import { useEffect, useState } from 'react';
import type { DiffDetail } from '../../../src/api/types.ts';
import { arrivedEarlyDiff, takeEarlyDiff } from '../hub/early-start.ts';
import { useHub } from '../hub/HubProvider.tsx';

export type DetailState = { status: 'loading' } | { status: 'ready'; detail: DiffDetail } | { status: 'failed'; error: string };

const showing = (state: DetailState, detail: DiffDetail | null): boolean => state.status === 'ready' && state.detail === detail;

export function useDiffDetail(id: string): DetailState {
  const { api } = useHub();
  // A cold page's diff was asked for as the socket opened (early-start.ts): if it is in, the
  // first render shows it.
  const [state, setState] = useState<DetailState>(() => {
    const arrived = arrivedEarlyDiff(id);
    return arrived === null ? { status: 'loading' } : { status: 'ready', detail: arrived };
  });
  useEffect(() => {
    let current = true;
    const arrived = arrivedEarlyDiff(id);
    const early = takeEarlyDiff(id);
    // The same state object where it is shown already: no render for nothing.
    setState((now) => (showing(now, arrived) ? now : { status: 'loading' }));
    (early ?? api.call('diffs.get', { id })).then(
      (detail) => current && setState((now) => (showing(now, detail) ? now : { status: 'ready', detail })),
      (err: Error) => current && setState({ status: 'failed', error: err.message }),
    );
    return () => {
      current = false;
    };
  }, [api, id]);
  return state;
}
