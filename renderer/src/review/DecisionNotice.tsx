// The short notice after each decision ("Accepted src/a.ts (2 of 3 changes): written by pi."),
// whoever made it: this window, another one, the editor, or the agent replacing its proposal.
// It is about the moment: it goes after a while, and with the Patchbay it came from.
import { useCallback, useEffect, useState } from 'react';
import type { DecisionRecord } from '../../../src/api/types.ts';
import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { decisionNotice } from './decision-text.ts';

/** How long a notice stays (the decision stays in the history). */
export const NOTICE_MS = 20_000;

export interface Notice {
  record: DecisionRecord;
  /** The Patchbay (its pid) that made it: a restarted one's notices are not carried over. */
  pid: number;
}

export function useDecisionNotice(): { notice: Notice | null; dismiss(): void } {
  const { api } = useHub();
  const snapshot = useSnapshot();
  const [notice, setNotice] = useState<Notice | null>(null);
  const pid = snapshot.pid;
  useEffect(
    () =>
      api.subscribe((event) => {
        // An edit applied at once is listed to review after; a notice for each would only flicker.
        if (event.type === 'diffDecided' && event.record.outcome !== 'applied') setNotice({ record: event.record, pid });
      }),
    [api, pid],
  );
  useEffect(() => {
    if (notice === null) return;
    const timer = setTimeout(() => setNotice((n) => (n === notice ? null : n)), NOTICE_MS);
    return () => clearTimeout(timer);
  }, [notice]);
  const dismiss = useCallback(() => setNotice(null), []);
  return { notice: notice !== null && notice.pid === pid ? notice : null, dismiss };
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
          <span className="notice-text">{decisionNotice(notice.record, snapshot)}</span>
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
