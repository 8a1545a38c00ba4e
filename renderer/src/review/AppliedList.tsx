// Edits written at once in folders reviewed after, grouped by the agent's turn: each opens its diff
// (Keep, Undo, a change at a time); a turn is kept or undone whole with one action.
import { useState } from 'react';
import { baseName, count } from '../../../electron/shared/labels.ts';
import { clockTime } from '../../../src/api/traffic.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { changesSummary, type TurnGroup } from './applied-model.ts';
import { ageText } from './inbox-model.ts';
import { useAgeClock } from './useAgeClock.ts';

interface Props {
  turns: readonly TurnGroup[];
  openedId: string | null;
  open(id: string): void;
}

export function AppliedList({ turns, openedId, open }: Props) {
  const now = useAgeClock(turns.flatMap((t) => t.diffs.map((d) => d.createdAt)));
  const total = turns.reduce((n, t) => n + t.diffs.length, 0);
  if (total === 0) return null;
  return (
    <section className="applied" aria-labelledby="applied-title">
      <h2 id="applied-title" className="applied-title">
        Applied, to review ({total})
      </h2>
      <p className="meta">Written at once in folders reviewed after: keep them, or undo them where they stand.</p>
      {turns.map((turn) => (
        <section key={turn.key} className="diff-group" aria-label={`${turn.label}: ${count(turn.diffs.length, 'edit')} to review`}>
          <TurnHeader turn={turn} />
          <ul>
            {turn.diffs.map((diff) => (
              <li key={diff.id}>
                <button
                  type="button"
                  className="diff-item"
                  aria-current={diff.id === openedId ? 'true' : undefined}
                  onClick={() => open(diff.id)}
                  title={diff.path}
                >
                  <span className="diff-name">{baseName(diff.path)}</span>
                  <span className="diff-sub">
                    {changesSummary(diff)} · {ageText(diff.createdAt, now)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </section>
  );
}

function TurnHeader({ turn }: { turn: TurnGroup }) {
  const { api } = useHub();
  const command = useCommand();
  const [confirming, setConfirming] = useState(false);
  const ids = turn.diffs.map((d) => d.id);
  const edits = count(ids.length, 'edit');
  const undoAll = (): void => void command.run(() => api.call('diffs.undoAll', { ids }));
  return (
    <div className="group-header">
      <h3 title={turn.label}>{turn.label}</h3>
      <p className="meta">
        {turn.who} · from {clockTime(turn.startedAt).slice(0, 5)}
      </p>
      <div className="actions compact">
        <button type="button" disabled={command.busy} onClick={() => void command.run(() => api.call('diffs.keepAll', { ids }))}>
          Keep all
        </button>
        <button type="button" disabled={command.busy} onClick={() => (ids.length > 1 ? setConfirming(true) : undoAll())}>
          Undo all
        </button>
      </div>
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
      {confirming && (
        <ConfirmDialog
          title={`Undo ${edits}?`}
          message={`Each of the ${edits} of this turn is taken back in its file as the file is now (newest first); later edits to other lines stay. If any of them cannot be, nothing is changed.`}
          confirmLabel={`Undo ${edits}`}
          confirm={() => {
            setConfirming(false);
            undoAll();
          }}
          cancel={() => setConfirming(false)}
        />
      )}
    </div>
  );
}
