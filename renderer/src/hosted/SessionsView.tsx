// Hosted pi sessions (pi --mode rpc, started by Patchbay): the list and a start form on the
// left, the selected session on the right.
import { useMemo } from 'react';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { HostedList } from './HostedList.tsx';
import { HostedPanel } from './HostedPanel.tsx';
import { PastSessions } from './PastSessions.tsx';
import { sortHosted } from './hosted-model.ts';
import { StartForm } from './StartForm.tsx';

interface Props {
  selectedId: string | null;
  select(id: string | null): void;
}

export function SessionsView({ selectedId, select }: Props) {
  const snapshot = useSnapshot();
  // A hub from before hosted sessions sends no list.
  const hosted = useMemo(() => sortHosted(snapshot.hosted ?? []), [snapshot.hosted]);
  const selected = hosted.find((h) => h.id === selectedId) ?? hosted[0] ?? null;
  const running = hosted.filter((h) => h.status !== 'exited').length;

  return (
    <div className="hosted">
      <aside className="hosted-sidebar">
        <h1>
          pi sessions <span className="heading-count">({running} running)</span>
        </h1>
        <HostedList hosted={hosted} selectedId={selected?.id ?? null} select={select} />
        <StartForm started={(id) => select(id)} />
        <PastSessions opened={(id) => select(id)} />
      </aside>
      {selected === null ? (
        <section className="hosted-panel empty-panel">
          <p className="empty">No hosted pi session. Start one with the form: Patchbay runs pi in that folder and shows it here.</p>
        </section>
      ) : (
        <HostedPanel key={selected.id} view={selected} select={select} />
      )}
    </div>
  );
}
