import { useId, useState } from 'react';
import type { ReviewRoute } from '../../../src/api/types.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { DraftField } from './DraftField.tsx';
import { SaveStatus } from './SaveStatus.tsx';
import { addReviewFolder, parseDeadline } from './settings-model.ts';
import { useSaveSettings } from './useSaveSettings.ts';

const ROUTES: readonly { value: ReviewRoute; label: string }[] = [
  { value: 'editor-and-patchbay', label: 'In the bound editor and in Patchbay (first decision wins)' },
  { value: 'patchbay-only', label: 'In Patchbay only' },
];

export function RoutingSettings({ desktop }: { desktop: boolean }) {
  const { settings } = useSnapshot();
  const section = useSaveSettings();
  const deadline = useSaveSettings();
  const { save } = section;
  const folderId = useId();
  const [folder, setFolder] = useState('');
  const [folderError, setFolderError] = useState<string | null>(null);

  const addFolder = async (): Promise<void> => {
    const parsed = addReviewFolder(settings.reviewFolders, folder);
    setFolderError(parsed.ok ? null : parsed.error);
    if (parsed.ok && (await save({ reviewFolders: parsed.value }))) setFolder('');
  };

  return (
    <section aria-labelledby="routing-title" className="settings-section">
      <h2 id="routing-title">
        Routing and review <SaveStatus busy={section.busy} saved={section.saved} />
      </h2>
      <fieldset>
        <legend>Where edits are reviewed</legend>
        {ROUTES.map((r) => (
          <label key={r.value} className="check">
            <input
              type="radio"
              name="review-route"
              value={r.value}
              checked={settings.reviewRoute === r.value}
              onChange={() => void save({ reviewRoute: r.value })}
            />{' '}
            {r.label}
          </label>
        ))}
      </fieldset>

      <fieldset>
        <legend>Review folders</legend>
        <p className="meta">Agents working in these folders reach Patchbay even when no editor has them open.</p>
        <ul className="plain">
          {settings.reviewFolders.map((f) => (
            <li key={f} className="field-row">
              <code className="path">{f}</code>
              <button
                type="button"
                aria-label={`Remove review folder ${f}`}
                onClick={() => void save({ reviewFolders: settings.reviewFolders.filter((x) => x !== f) })}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        <form
          className="field-row"
          onSubmit={(e) => {
            e.preventDefault();
            void addFolder();
          }}
        >
          <label htmlFor={folderId}>Add folder</label>
          <input
            id={folderId}
            value={folder}
            placeholder="/absolute/path"
            aria-invalid={folderError !== null}
            aria-describedby={folderError === null ? undefined : `${folderId}-error`}
            onChange={(e) => {
              setFolder(e.target.value);
              setFolderError(null);
            }}
          />
          <button type="submit">Add</button>
        </form>
        {folderError !== null && (
          <p id={`${folderId}-error`} role="alert" className="error-text field-error">
            {folderError}
          </p>
        )}
      </fieldset>

      <DraftField
        label="Diagnostics deadline (ms)"
        value={settings.diagnosticsDeadlineMs}
        format={String}
        parse={parseDeadline}
        saver={deadline}
        save={(value) => deadline.save({ diagnosticsDeadlineMs: value })}
        input={{ type: 'number', min: 50, max: 60000, step: 50 }}
        hint='From 50 to 60000. An editor slower than this answers "no diagnostics", so agents never stall.'
      />

      <label className="check">
        <input type="checkbox" checked={settings.takeover} onChange={(e) => void save({ takeover: e.target.checked })} /> Take over
        editors' lockfiles, so agents see only Patchbay
      </label>
      <label className="check">
        <input type="checkbox" checked={settings.claude} onChange={(e) => void save({ claude: e.target.checked })} /> Serve Claude
        Code too
      </label>
      <label className="check">
        <input type="checkbox" checked={settings.launchAtLogin} onChange={(e) => void save({ launchAtLogin: e.target.checked })} />{' '}
        Start Patchbay at login{desktop ? '' : ' (applies to the desktop app)'}
      </label>
      {section.error !== null && <ErrorText>{section.error}</ErrorText>}
    </section>
  );
}
