// What Patchbay wants the person to know until they dismiss it (a crash of its core, what a dead
// run's pending edits became, a door that had to move), and the agents that were connected before
// the last stop and have not come back (their edits are written unreviewed until they do).
import type { LostSession, Notice, TraceEntry } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';

const VERDICT: Record<TraceEntry['verdict'], string> = {
  written: 'written without review',
  'not-written': 'not written',
  changed: 'changed since',
  unknown: 'cannot tell',
};

export function Notices() {
  const { snapshot } = useHub();
  if (snapshot === null) return null;
  return (
    <>
      {snapshot.notReconnected.length > 0 && <NotReconnected lost={snapshot.notReconnected} />}
      {snapshot.notices.map((notice) => (
        <NoticeBanner key={notice.id} notice={notice} />
      ))}
    </>
  );
}

function NoticeBanner({ notice }: { notice: Notice }) {
  const { api } = useHub();
  const command = useCommand();
  const trace = notice.files ?? [];
  const alarming = notice.kind === 'crash-trace' || notice.kind === 'port-taken';
  return (
    <div role={alarming ? 'alert' : 'status'} className={`banner ${alarming ? 'error' : 'warning'} notice`} data-notice={notice.id}>
      <span className="meta">{new Date(notice.at).toLocaleString()}</span> {trace.length > 0 ? `Patchbay stopped unexpectedly with ${trace.length} ${trace.length === 1 ? 'edit' : 'edits'} waiting for review:` : notice.message}{' '}
      <button type="button" disabled={command.busy} onClick={() => void command.run(() => api.call('notices.dismiss', { id: notice.id }))}>
        Dismiss
      </button>
      {trace.length > 0 && (
        <ul className="banner-detail trace">
          {trace.map((f) => (
            <li key={f.diffId} data-verdict={f.verdict}>
              <code>{f.path}</code>: <strong>{VERDICT[f.verdict]}</strong> <span className="meta">({f.diffId}, session {f.sessionId}, {f.agent})</span>
            </li>
          ))}
        </ul>
      )}
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </div>
  );
}

function NotReconnected({ lost }: { lost: LostSession[] }) {
  return (
    <div role="alert" className="banner error not-reconnected">
      {lost.length === 1 ? 'An agent' : `${lost.length} agents`} connected before Patchbay last stopped {lost.length === 1 ? 'has' : 'have'} not come back, so{' '}
      {lost.length === 1 ? 'its' : 'their'} edits are written without review:
      <ul className="banner-detail">
        {lost.map((l) => (
          <li key={`${l.pid}-${l.sessionId}`}>
            {l.clientName ?? l.kind} <span className="meta">(pid {l.pid}, was {l.sessionId}{l.cwd ? `, in ${l.cwd}` : ''})</span>: {l.hint}
          </li>
        ))}
      </ul>
    </div>
  );
}
