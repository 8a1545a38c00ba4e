import { useId } from 'react';
import type { EditorView, SessionView } from '../../../src/api/types.ts';
import { REASON_TEXT, boundLabel, editorLabel, sessionLabel } from '../../../electron/shared/labels.ts';
import { automaticLabel, editorOutsideFolder, isAutomatic, rebindChoices } from '../../../electron/shared/rebind-choices.ts';
import { routeHash } from '../app/route.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';

/** A select's value for "Patchbay reviews" (editor ids are never empty). */
const PATCHBAY = '';
/** A select's value for "no choice: the rules decide" (editor ids start with `ed-`). */
const AUTOMATIC = 'automatic';

export function SessionCard({ session, editors, paused = false }: { session: SessionView; editors: readonly EditorView[]; paused?: boolean }) {
  const { api } = useHub();
  const command = useCommand();
  const selectId = useId();
  const warningId = useId();
  const choices = rebindChoices(session, editors);
  const label = sessionLabel(session);
  const automatic = isAutomatic(session);
  const outside = editorOutsideFolder(session, editors);
  const choose = (value: string): void => {
    if (value === AUTOMATIC) {
      void command.run(() => api.call('unpin', { sessionId: session.id }));
      return;
    }
    const editorId = value === PATCHBAY ? null : value;
    void command.run(() => api.call('bind', { sessionId: session.id, editorId }));
  };
  return (
    <article className="card" aria-label={`Session ${label}`}>
      <h3>{label}</h3>
      <p className="meta">
        {session.remote !== undefined && <span className="badge remote-badge">on {session.remote}</span>}
        {session.clientName ?? session.kind} · {session.dialect} dialect
        {session.pid !== null && ` · pid ${session.pid}${session.remote === undefined ? '' : ` on ${session.remote}`}`}
        {session.pendingDiffs > 0 && ` · ${session.pendingDiffs} pending`}
      </p>
      {session.cwd !== null && <code className="path">{session.remote === undefined ? session.cwd : `${session.remote}:${session.cwd}`}</code>}
      {session.remote !== undefined && session.cwd !== null && (
        <p className="meta inline-path">
          {session.localCwd ? (
            <>
              Here: <code className="path">{session.localCwd}</code>
            </>
          ) : (
            `No map of ${session.remote} covers this folder: its edits are reviewed in Patchbay only.`
          )}
        </p>
      )}
      {paused ? (
        <p>
          Served by <strong>Patchbay review</strong> <span className="reason reason-paused">paused</span>{' '}
          <span className="meta">
            (routing is paused
            {session.manualEditorId !== undefined ? `; your choice, ${boundLabel(session.manualEditorId, editors)}, comes back on Resume` : ''})
          </span>
        </p>
      ) : (
        <p>
          Served by <strong>{boundLabel(session.editorId, editors)}</strong>{' '}
          <span className={`reason reason-${session.reason}`}>{session.reason}</span>{' '}
          <span className="meta">({REASON_TEXT[session.reason]})</span>
        </p>
      )}
      <div className="field-row">
        <label htmlFor={selectId}>Editor for this session</label>
        <select
          id={selectId}
          value={automatic ? AUTOMATIC : (session.editorId ?? PATCHBAY)}
          disabled={command.busy}
          aria-describedby={outside === null ? undefined : warningId}
          onChange={(event) => choose(event.target.value)}
        >
          <option value={AUTOMATIC}>{automaticLabel(session, editors)}</option>
          {choices.map((c) => (
            <option key={c.editorId ?? PATCHBAY} value={c.editorId ?? PATCHBAY}>
              {c.label}
              {c.editorId === null || session.cwd === null ? '' : c.matchesFolder ? ' (folder matches)' : ' (not this folder)'}
            </option>
          ))}
          {session.editorId !== null && !choices.some((c) => c.editorId === session.editorId) && (
            <option value={session.editorId}>{boundLabel(session.editorId, editors)}</option>
          )}
        </select>
        <a href={routeHash({ view: 'traffic', id: session.id })}>Traffic</a>
      </div>
      {outside !== null && session.cwd !== null && (
        <p id={warningId} className="warning-text">
          {editorLabel(outside)}’s folders ({outside.workspaceFolders.join(', ') || 'none'}) do not contain {session.cwd}: its
          diagnostics and open files are about another project, and the agent’s edits open there.
        </p>
      )}
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </article>
  );
}
