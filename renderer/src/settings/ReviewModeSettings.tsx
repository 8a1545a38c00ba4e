// When edits are reviewed (as `patchbay review-mode`): before they are written (the agent waits
// for a person, the default) or after (written at once, then kept or undone in the Review), for
// every folder or for one and its subfolders.
import { useId, useState } from 'react';
import type { ReviewMode } from '../../../src/api/types.ts';

import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { SaveStatus } from './SaveStatus.tsx';
import { isAbsolutePath, projectFolders } from './settings-model.ts';
import { useSavedCommand } from './useSaveSettings.ts';

const MODES: readonly { value: ReviewMode; label: string }[] = [
  { value: 'before', label: 'Before they are written: the agent waits for your decision' },
  { value: 'after', label: 'After: written at once, then kept or undone in the Review' },
];

export function ReviewModeSettings() {
  const snapshot = useSnapshot();
  const { api } = useHub();
  const command = useSavedCommand();
  const folderId = useId();
  const listId = useId();
  const [folder, setFolder] = useState('');
  const [mode, setMode] = useState<ReviewMode>('after');
  const [folderError, setFolderError] = useState<string | null>(null);
  const { reviewMode, reviewModePerFolder } = snapshot.settings;
  const set = (value: ReviewMode | null, project?: string) =>
    command.run(() => api.call('reviewMode.set', { ...(project === undefined ? {} : { project }), value }));

  const add = async (): Promise<void> => {
    const path = folder.trim().replace(/(.)[\\/]+$/, '$1');
    const problem = path === '' ? 'Type a folder path first.' : isAbsolutePath(path) ? null : `${path} is not an absolute path.`;
    setFolderError(problem);
    if (problem === null && (await set(mode, path))) setFolder('');
  };

  return (
    <section aria-labelledby="review-mode-title" className="settings-section">
      <h2 id="review-mode-title">
        When edits are reviewed <SaveStatus busy={command.busy} saved={command.saved} />
      </h2>
      <fieldset>
        <legend>Everywhere (unless a folder says otherwise)</legend>
        {MODES.map((m) => (
          <label key={m.value} className="check">
            <input type="radio" name="review-mode" value={m.value} checked={reviewMode === m.value} onChange={() => void set(m.value)} /> {m.label}
          </label>
        ))}
      </fieldset>
      <fieldset>
        <legend>Folders with their own (their subfolders too)</legend>
        <ul className="plain">
          {Object.entries(reviewModePerFolder)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([path, value]) => (
              <li key={path} className="field-row">
                <code className="path">{path}</code>
                <select aria-label={`When edits in ${path} are reviewed`} value={value} onChange={(e) => void set(e.target.value as ReviewMode, path)}>
                  <option value="before">before</option>
                  <option value="after">after</option>
                </select>
                <button type="button" aria-label={`Remove the review mode of ${path}`} onClick={() => void set(null, path)}>
                  Remove
                </button>
              </li>
            ))}
        </ul>
        <form
          className="field-row"
          onSubmit={(e) => {
            e.preventDefault();
            void add();
          }}
        >
          <label htmlFor={folderId}>Folder</label>
          <input
            id={folderId}
            value={folder}
            list={listId}
            placeholder="/absolute/path"
            aria-invalid={folderError !== null}
            onChange={(e) => {
              setFolder(e.target.value);
              setFolderError(null);
            }}
          />
          <datalist id={listId}>
            {projectFolders(snapshot).map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
          <select aria-label="When edits in this folder are reviewed" value={mode} onChange={(e) => setMode(e.target.value as ReviewMode)}>
            <option value="before">before</option>
            <option value="after">after</option>
          </select>
          <button type="submit">Set</button>
        </form>
        {folderError !== null && (
          <p role="alert" className="error-text field-error">
            {folderError}
          </p>
        )}
        <p className="meta">
          Edits reviewed after are answered at once, so the agent goes on; Patchbay keeps the file as it was before each, so any
          edit, or one change of it, can be undone later in the file as it is then. A file over 8 MiB is reviewed before all the
          same.
        </p>
      </fieldset>
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </section>
  );
}
