import type { HostedView } from '../../../src/api/types.ts';
import { count } from '../../../electron/shared/labels.ts';
import { hostedTitle, statusWord } from './hosted-model.ts';

interface Props {
  hosted: readonly HostedView[];
  selectedId: string | null;
  select(id: string): void;
}

export function HostedList({ hosted, selectedId, select }: Props) {
  if (hosted.length === 0) return <p className="empty">None yet.</p>;
  return (
    <ul className="plain hosted-list" aria-label="Hosted sessions">
      {hosted.map((h) => (
        <li key={h.id}>
          <button
            type="button"
            className="hosted-item"
            aria-current={h.id === selectedId ? 'true' : undefined}
            onClick={() => select(h.id)}
            title={h.cwd}
          >
            <span className="hosted-name">
              {hostedTitle(h)} <span className={`status-dot ${h.status}`}>{statusWord(h)}</span>
            </span>
            <span className="hosted-sub">{h.cwd}</span>
            <span className="hosted-sub">
              {h.model ?? 'default model'}
              {h.pendingDialogs > 0 && <strong className="attention"> · {count(h.pendingDialogs, 'question')} waiting</strong>}
            </span>
          </button>
        </li>
      ))}
    </ul>
  );
}
