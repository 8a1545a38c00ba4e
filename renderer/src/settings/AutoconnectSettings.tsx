// pi-ide's autoconnect, globally and per project folder (project overrides global; unset = on).
import { useEffect, useId, useState } from 'react';
import type { AutoconnectView } from '../../../src/api/types.ts';
import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { SaveStatus } from './SaveStatus.tsx';
import { useSavedCommand } from './useSaveSettings.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { fromTriState, isAbsolutePath, projectFolders, toTriState } from './settings-model.ts';
import type { TriState } from './settings-model.ts';

export function AutoconnectSettings() {
  const snapshot = useSnapshot();
  const folders = projectFolders(snapshot);
  const [extra, setExtra] = useState<string[]>([]);
  const [typed, setTyped] = useState('');
  const inputId = useId();
  // A change to one file can change every row's effective value: they all reload.
  const [revision, setRevision] = useState(0);
  const changed = (): void => setRevision((r) => r + 1);
  const shown = [...folders, ...extra.filter((f) => !folders.includes(f))];
  return (
    <section aria-labelledby="autoconnect-title" className="settings-section">
      <h2 id="autoconnect-title">pi autoconnect</h2>
      <p className="meta">
        Whether pi-ide connects by itself when it starts. A project's setting overrides the global one. Older pi-ide versions never
        autoconnect: they connect only through its <code>/ide</code> command, whatever this says.
      </p>
      <AutoconnectRow project={undefined} revision={revision} changed={changed} />
      {shown.map((f) => (
        <AutoconnectRow key={f} project={f} revision={revision} changed={changed} />
      ))}
      <form
        className="field-row"
        onSubmit={(e) => {
          e.preventDefault();
          const folder = typed.trim();
          if (isAbsolutePath(folder) && !shown.includes(folder)) setExtra([...extra, folder]);
          setTyped('');
        }}
      >
        <label htmlFor={inputId}>Another project folder</label>
        <input id={inputId} value={typed} placeholder="/absolute/path" onChange={(e) => setTyped(e.target.value)} />
        <button type="submit">Show</button>
      </form>
    </section>
  );
}

const TRI_LABELS: Record<TriState, string> = { on: 'On', off: 'Off', unset: 'Not set' };

interface RowProps {
  project: string | undefined;
  revision: number;
  changed(): void;
}

function AutoconnectRow({ project, revision, changed }: RowProps) {
  const { api } = useHub();
  const command = useSavedCommand();
  const selectId = useId();
  const [view, setView] = useState<AutoconnectView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    api.call('autoconnect.get', project === undefined ? {} : { project }).then(
      (v) => current && setView(v),
      (err: Error) => current && setLoadError(err.message),
    );
    return () => {
      current = false;
    };
  }, [api, project, revision]);

  const label = project === undefined ? 'Global' : project;
  const value = view === null ? null : project === undefined ? view.global : view.project;
  const file = view === null ? '' : project === undefined ? view.globalFile : (view.projectFile ?? '');
  const change = (next: TriState): void => {
    void command.run(async () => {
      const params = { value: fromTriState(next), ...(project === undefined ? {} : { project }) };
      setView(await api.call('autoconnect.set', params));
      changed();
    });
  };

  return (
    <div className="field-row autoconnect-row">
      <label htmlFor={selectId} title={file}>
        {label}
      </label>
      <select
        id={selectId}
        disabled={view === null || command.busy}
        value={value === null ? 'unset' : toTriState(value)}
        onChange={(e) => change(e.target.value as TriState)}
      >
        {(Object.keys(TRI_LABELS) as TriState[]).map((t) => (
          <option key={t} value={t}>
            {TRI_LABELS[t]}
            {t === 'unset' ? (project === undefined ? ' (on)' : ' (use global)') : ''}
          </option>
        ))}
      </select>
      {view !== null && (
        <span className="meta" title="Only pi-ide versions that autoconnect read this; older ones connect only through /ide, whatever it says.">
          effective: {view.effective ? 'on (pi-ide versions that autoconnect)' : 'off'}
        </span>
      )}
      <SaveStatus busy={command.busy} saved={command.saved} />
      {loadError !== null && <ErrorText>{`Could not read ${label}: ${loadError}`}</ErrorText>}
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </div>
  );
}
