// The short notice after each decision ("Accepted src/a.ts: written by pi."), whoever made it:
// this window, another one, the editor, or the agent replacing its proposal.
import { useCallback, useEffect, useState } from 'react';
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
export function useDecisionNotice(): { notice: Notice | null; decidedHere(record: DecisionRecord, note?: string): void; dismiss(): void } {
  const { api } = useHub();
  const [notice, setNotice] = useState<Notice | null>(null);
  useEffect(
    () =>
      api.subscribe((event) => {
        if (event.type !== 'diffDecided') return;
        // The event and the answer to this window's own command come in either order.
        setNotice((prev) => (prev !== null && same(prev.record, event.record) ? prev : { record: event.record }));
      }),
    [api],
  );
  const decidedHere = useCallback((record: DecisionRecord, note?: string) => setNotice({ record, note }), []);
  const dismiss = useCallback(() => setNotice(null), []);
  return { notice, decidedHere, dismiss };
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
