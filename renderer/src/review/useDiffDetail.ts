// Loads one diff's contents (`diffs.get`); summaries in the snapshot carry no text.
import { useEffect, useState } from 'react';
import type { DiffDetail } from '../../../src/api/types.ts';
import { takeEarlyDiff } from '../hub/early-start.ts';
import { useHub } from '../hub/HubProvider.tsx';

export type DetailState = { status: 'loading' } | { status: 'ready'; detail: DiffDetail } | { status: 'failed'; error: string };

export function useDiffDetail(id: string): DetailState {
  const { api } = useHub();
  const [state, setState] = useState<DetailState>({ status: 'loading' });
  useEffect(() => {
    let current = true;
    setState({ status: 'loading' });
    // A cold page's diff was asked for as the socket opened (early-start.ts).
    (takeEarlyDiff(id) ?? api.call('diffs.get', { id })).then(
      (detail) => current && setState({ status: 'ready', detail }),
      (err: Error) => current && setState({ status: 'failed', error: err.message }),
    );
    return () => {
      current = false;
    };
  }, [api, id]);
  return state;
}
