import type { SessionGroup } from './inbox-model.ts';
import { ageText } from './inbox-model.ts';
import { baseName } from '../../../electron/shared/labels.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { useNow } from '../ui/useNow.ts';

interface Props {
  groups: readonly SessionGroup[];
  selectedId: string | null;
  select(id: string): void;
}

export function DiffList({ groups, selectedId, select }: Props) {
  const now = useNow(10_000);
  if (groups.length === 0) return <p className="empty">Nothing pending.</p>;
  return (
    <div className="diff-list">
      {groups.map((group) => (
        <section key={group.sessionId} className="diff-group" aria-label={`${group.title}: ${group.diffs.length} pending`}>
          <GroupHeader group={group} />
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

function GroupHeader({ group }: { group: SessionGroup }) {
  const { api } = useHub();
  const command = useCommand();
  return (
    <div className="group-header">
      <h2 title={group.folder ?? undefined}>{group.title}</h2>
      <p className="meta">
        {group.agent} · {group.folder ?? 'unknown folder'} · {group.editor}
      </p>
      <div className="actions compact">
        <button
          type="button"
          disabled={command.busy}
          onClick={() => void command.run(() => api.call('diffs.acceptAll', { sessionId: group.sessionId }))}
        >
          Accept all
        </button>
        <button
          type="button"
          disabled={command.busy}
          onClick={() => void command.run(() => api.call('diffs.rejectAll', { sessionId: group.sessionId }))}
        >
          Reject all
        </button>
      </div>
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </div>
  );
}
