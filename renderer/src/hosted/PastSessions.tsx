// pi's saved sessions (its session files, TUI ones too): found by name, first prompt or
// folder, and opened with their history (pi.resume). One already open here is selected instead.
import { useEffect, useId, useMemo, useState } from 'react';
import type { PiSessionInfo } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { useNow } from '../ui/useNow.ts';
import { fileSize, pastSessionMatches, sessionAge } from './hosted-model.ts';

export function PastSessions({ opened }: { opened(id: string): void }) {
  const { api } = useHub();
  const filterId = useId();
  const [open, setOpen] = useState(false);
  const [sessions, setSessions] = useState<PiSessionInfo[] | null>(null);
  const [filter, setFilter] = useState('');
  const list = useCommand();
  const resume = useCommand();
  const now = useNow(60_000);

  const { run: runList } = list;
  // Read again each time the list opens: sessions come and go in pi's terminal too.
  useEffect(() => {
    if (open) void runList(async () => setSessions(await api.call('pi.sessions', {})));
  }, [api, open, runList]);
  const shown = useMemo(() => (sessions ?? []).filter((s) => pastSessionMatches(s, filter)), [sessions, filter]);

  return (
    <details className="past-sessions" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>pi’s saved sessions</summary>
      <label htmlFor={filterId}>Find a session</label>
      <input id={filterId} type="search" value={filter} placeholder="name, prompt or folder" onChange={(e) => setFilter(e.target.value)} />
      {list.busy && sessions === null && <p className="empty">Reading pi’s sessions…</p>}
      {list.error !== null && <ErrorText>{`Could not list pi’s sessions: ${list.error}`}</ErrorText>}
      {sessions !== null && shown.length === 0 && <p className="empty">{sessions.length === 0 ? 'pi has no saved session yet.' : 'None matches.'}</p>}
      <ul className="plain past-list" aria-label="Saved sessions">
        {shown.map((s) => (
          <li key={s.file}>
            <button
              type="button"
              className="hosted-item"
              title={s.file}
              disabled={resume.busy}
              onClick={() => void resume.run(async () => opened((await api.call('pi.resume', { sessionFile: s.file })).id))}
            >
              <span className="hosted-name">{s.name ?? s.firstPrompt ?? '(no prompt yet)'}</span>
              <span className="hosted-sub">{s.cwd}</span>
              <span className="hosted-sub">
                {sessionAge(s.modifiedAt, now)} · {s.messages} messages · {fileSize(s.bytes)}
                {s.hostedId !== null ? ' · open here' : ''}
              </span>
            </button>
          </li>
        ))}
      </ul>
      {resume.error !== null && <ErrorText>{`Could not open it: ${resume.error}`}</ErrorText>}
    </details>
  );
}
