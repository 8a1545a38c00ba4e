// Pending diffs by session, oldest first; each group can be accepted or rejected whole (through
// the waiting line, and after a question when that is more than one edit).
import { useState } from 'react';
import type { SessionGroup } from './inbox-model.ts';
import { ageText } from './inbox-model.ts';
import { baseName } from '../../../electron/shared/labels.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { useAgeClock } from './useAgeClock.ts';
import type { DecisionRequest } from './useScheduledDecisions.ts';

interface Props {
  groups: readonly SessionGroup[];
  selectedId: string | null;
  select(id: string): void;
  schedule(request: DecisionRequest): void;
}

export function DiffList({ groups, selectedId, select, schedule }: Props) {
  const now = useAgeClock(groups.flatMap((g) => g.diffs.map((d) => d.createdAt)));
  if (groups.length === 0) return <p className="empty">Nothing pending.</p>;
  return (
    <div className="diff-list">
      {groups.map((group) => (
        <section key={group.sessionId} className="diff-group" aria-label={`${group.title}: ${group.diffs.length} pending`}>
          <GroupHeader group={group} schedule={schedule} />
          <ul>
            {group.diffs.map((diff) => (
              <li key={diff.id}>
                <button
                  type="button"
                  className="diff-item"
                  aria-current={diff.id === selectedId ? 'true' : undefined}
                  onClick={() => select(diff.id)}
                  title={diff.path}
                >
                  <span className="diff-name">{baseName(diff.path)}</span>
                  <span className="diff-sub">
                    {diff.isNew ? 'new · ' : ''}
                    {diff.tooLarge ? 'large · ' : ''}
                    {diff.unreadable !== undefined ? 'unreadable on disk · ' : ''}
                    {diff.inEditor ? 'in editor · ' : ''}
                    {ageText(diff.createdAt, now)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}

function GroupHeader({ group, schedule }: { group: SessionGroup; schedule(request: DecisionRequest): void }) {
  const [confirming, setConfirming] = useState(false);
  const count = group.diffs.length;
  const edits = `${count} ${count === 1 ? 'edit' : 'edits'}`;
  // The ids as listed now: an edit that arrives while the decision waits is not swept up with them.
  const decideAll = (outcome: 'accept' | 'reject'): void => {
    const ids = group.diffs.map((d) => d.id);
    const what = count === 1 ? baseName(group.diffs[0]!.path) : `${edits} from ${group.title}`;
    schedule({ ids, outcome, verb: outcome === 'accept' ? 'Accepting' : 'Rejecting', what });
  };
  return (
    <div className="group-header">
      <h2 title={group.folder ?? undefined}>{group.title}</h2>
      <p className="meta">
        {group.agent} · {group.folder ?? 'unknown folder'} · {group.editor}
      </p>
      <div className="actions compact">
        <button type="button" onClick={() => decideAll('accept')}>
          Accept all
        </button>
        <button type="button" onClick={() => (count > 1 ? setConfirming(true) : decideAll('reject'))}>
          Reject all
        </button>
      </div>
      {confirming && (
        <ConfirmDialog
          title={`Reject ${edits}?`}
          message={`${group.agent} is told no for each of the ${edits} from ${group.title}; none is written.`}
          confirmLabel={`Reject ${edits}`}
          confirm={() => {
            setConfirming(false);
            decideAll('reject');
          }}
          cancel={() => setConfirming(false)}
        />
      )}
    </div>
  );
}
