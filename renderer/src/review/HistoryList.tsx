import type { DecisionRecord } from '../../../src/api/types.ts';
import { baseName } from '../../../electron/shared/labels.ts';
import { clockTime } from '../../../src/api/traffic.ts';

const SHOWN = 20;

const BY: Record<DecisionRecord['by'], string> = {
  editor: 'in the editor',
  patchbay: 'in Patchbay',
  agent: 'by the agent',
  shutdown: 'at shutdown',
};

export function HistoryList({ history }: { history: readonly DecisionRecord[] }) {
  const recent = [...history].sort((a, b) => b.at - a.at).slice(0, SHOWN);
  return (
    <details className="history">
      <summary>Recent decisions ({history.length})</summary>
      {recent.length === 0 ? (
        <p className="empty">No decisions yet.</p>
      ) : (
        <ul>
          {recent.map((r) => (
            <li key={`${r.id}-${r.at}`} title={r.path}>
              <span className={`outcome ${r.outcome}`}>{r.outcome}</span> {baseName(r.path)}{' '}
              <span className="meta">
                {BY[r.by]}
                {r.edited ? ', edited' : ''} · {clockTime(r.at).slice(0, 8)}
              </span>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
