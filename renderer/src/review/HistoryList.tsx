import { useEffect, useState } from 'react';
import type { DecisionRecord } from '../../../src/api/types.ts';
import { baseName } from '../../../electron/shared/labels.ts';
import { clockTime } from '../../../src/api/traffic.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { historyDetail } from './decision-text.ts';

const SHOWN = 20;

interface Props {
  history: readonly DecisionRecord[];
  /** The decided diff shown now, if any. */
  openedId: string | null;
  open(id: string): void;
}

/** Recent decisions, newest first; each opens the diff that was decided. */
export function HistoryList({ history, openedId, open }: Props) {
  const snapshot = useSnapshot();
  // Open from the start when nothing waits: then the history is what there is to look at.
  // Then the person's own toggle holds, and opening a decision (from a notice too) shows its row.
  const [expanded, setExpanded] = useState(() => snapshot.diffs.every((d) => d.status !== 'pending'));
  useEffect(() => {
    if (openedId !== null) setExpanded(true);
  }, [openedId]);
  const recent = [...history].sort((a, b) => b.at - a.at).slice(0, SHOWN);
  return (
    <details className="history" open={expanded} onToggle={(event) => setExpanded(event.currentTarget.open)}>
      <summary>Recent decisions ({history.length})</summary>
      {recent.length === 0 ? (
        <p className="empty">No decisions yet.</p>
      ) : (
        <ul>
          {recent.map((r) => (
            <li key={`${r.id}-${r.at}`}>
              <button
                type="button"
                className="history-item"
                title={`${r.path}: open what was decided`}
                aria-current={r.id === openedId ? 'true' : undefined}
                onClick={() => open(r.id)}
              >
                <span className={`outcome ${r.status}`}>{r.status}</span> {baseName(r.path)}{' '}
                <span className="meta">
                  {historyDetail(r, snapshot)} · {clockTime(r.at).slice(0, 8)}
                </span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
