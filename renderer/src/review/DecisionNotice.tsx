// The short notice after each decision ("Accepted src/a.ts: written by pi."), whoever made it:
// this window, another one, the editor, or the agent replacing its proposal.
import { useCallback, useEffect, useRef, useState } from 'react';
import type { DecisionRecord } from '../../../src/api/types.ts';
import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { decisionNotice } from './decision-text.ts';

export interface Notice {
  record: DecisionRecord;
  /** What only the deciding window knows ("2 of 3 changes"). */
  note?: string;
}

function same(a: DecisionRecord, b: DecisionRecord): boolean {
  return a.id === b.id && a.at === b.at;
}

/** The latest decision to tell, from the hub's events and from this window's own decisions. */
export function useDecisionNotice(): {
  notice: Notice | null;
  /** This window is about to decide `id`: its event, should it come first, carries `note`. */
  decidingHere(id: string, note?: string): void;
  decidedHere(record: DecisionRecord, note?: string): void;
  dismiss(): void;
} {
  const { api } = useHub();
  const [notice, setNotice] = useState<Notice | null>(null);
  const notes = useRef(new Map<string, string | undefined>());
  useEffect(
    () =>
      api.subscribe((event) => {
        if (event.type !== 'diffDecided') return;
        // The event and the answer to this window's own command come in either order.
        const note = notes.current.get(event.record.id);
        setNotice((prev) => (prev !== null && same(prev.record, event.record) ? prev : { record: event.record, note }));
      }),
    [api],
  );
  const decidingHere = useCallback((id: string, note?: string) => void notes.current.set(id, note), []);
  const decidedHere = useCallback((record: DecisionRecord, note?: string) => {
    notes.current.delete(record.id);
    setNotice({ record, note });
  }, []);
  const dismiss = useCallback(() => setNotice(null), []);
  return { notice, decidingHere, decidedHere, dismiss };
}

interface Props {
  notice: Notice | null;
  open(id: string): void;
  dismiss(): void;
}

export function DecisionNotice({ notice, open, dismiss }: Props) {
  const snapshot = useSnapshot();
  // The live region stays in the page so a screen reader hears each new notice.
  return (
    <div role="status" className={notice === null ? 'decision-notice empty-notice' : `decision-notice ${notice.record.outcome}`}>
      {notice !== null && (
        <>
          <span className="notice-text">{decisionNotice(notice.record, snapshot, notice.note)}</span>
          <button type="button" className="link" onClick={() => open(notice.record.id)}>
            Show what was decided
          </button>
          <button type="button" className="notice-close" aria-label="Dismiss this notice" onClick={dismiss}>
            ×
          </button>
        </>
      )}
    </div>
  );
}
