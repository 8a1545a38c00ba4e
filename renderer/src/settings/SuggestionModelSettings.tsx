// Which model answers editors' suggestion requests: globally, or per editor.
import { useCallback, useEffect, useId, useState } from 'react';
import type { SessionModels } from '../../../src/api/types.ts';
import { editorLabel } from '../../../electron/shared/labels.ts';
import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { SaveStatus } from './SaveStatus.tsx';
import { useSavedCommand } from './useSaveSettings.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { cliOverrideWarnings, modelOptions } from './settings-model.ts';

/** A select's value for "no choice of its own" on an editor. */
const SAME_AS_GLOBAL = '';

export function SuggestionModelSettings() {
  const { api } = useHub();
  const snapshot = useSnapshot();
  const { settings } = snapshot;
  const command = useSavedCommand();
  const globalId = useId();
  const [models, setModels] = useState<SessionModels[]>([]);
  const [loadError, setLoadError] = useState<string | null>(null);

  const load = useCallback(() => {
    api.call('models.list', {}).then(
      (list) => {
        setModels(list);
        setLoadError(null);
      },
      (err: Error) => setLoadError(err.message),
    );
  }, [api]);
  // New sessions bring their own model lists.
  const sessionCount = snapshot.sessions.length;
  useEffect(load, [load, sessionCount]);

  const setGlobal = (choice: string): void => void command.run(() => api.call('suggestionModel.set', { choice }));
  const setForEditor = (editorId: string, choice: string): void => {
    if (choice !== SAME_AS_GLOBAL) {
      void command.run(() => api.call('suggestionModel.set', { choice, editorId }));
      return;
    }
    const { [editorId]: _dropped, ...rest } = settings.suggestionModelPerEditor;
    void command.run(() => api.call('settings.set', { patch: { suggestionModelPerEditor: rest } }));
  };

  const warnings = cliOverrideWarnings(models, snapshot);
  const liveEditors = snapshot.editors.filter((e) => e.alive);
  return (
    <section aria-labelledby="models-title" className="settings-section">
      <h2 id="models-title">
        Suggestion model <SaveStatus busy={command.busy} saved={command.saved} />
      </h2>
      <p className="meta">
        Models offered by the connected pi sessions ({models.reduce((n, m) => n + m.models.length, 0)} from {models.length}{' '}
        sessions).{' '}
        <button type="button" onClick={load}>
          Refresh list
        </button>
      </p>
      <div className="field-row">
        <label htmlFor={globalId}>For all editors</label>
        <select id={globalId} value={settings.suggestionModel} disabled={command.busy} onChange={(e) => setGlobal(e.target.value)}>
          {modelOptions(models, settings.suggestionModel).map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
      {liveEditors.map((editor) => (
        <EditorModelRow
          key={editor.id}
          label={editorLabel(editor)}
          value={settings.suggestionModelPerEditor[editor.id] ?? SAME_AS_GLOBAL}
          options={modelOptions(models, settings.suggestionModelPerEditor[editor.id] ?? '')}
          disabled={command.busy}
          onChange={(choice) => setForEditor(editor.id, choice)}
        />
      ))}
      {warnings.map((w) => (
        <p key={w} role="status" className="warning-text">
          {w}
        </p>
      ))}
      {models
        .filter((m) => m.error !== null)
        .map((m) => (
          <p key={m.sessionId} className="meta">
            Session {m.sessionId} did not list its models: {m.error}
          </p>
        ))}
      {loadError !== null && <ErrorText>{`Could not list models: ${loadError}`}</ErrorText>}
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </section>
  );
}

interface RowProps {
  label: string;
  value: string;
  options: { value: string; label: string }[];
  disabled: boolean;
  onChange(choice: string): void;
}

function EditorModelRow({ label, value, options, disabled, onChange }: RowProps) {
  const id = useId();
  return (
    <div className="field-row">
      <label htmlFor={id}>For {label}</label>
      <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)}>
        <option value={SAME_AS_GLOBAL}>Same as for all editors</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
