import { useId, useState } from 'react';
import type { PatchbaySettings, ReviewRoute } from '../../../src/api/types.ts';
import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { addReviewFolder, parseDeadline } from './settings-model.ts';

const ROUTES: readonly { value: ReviewRoute; label: string }[] = [
  { value: 'editor-and-patchbay', label: 'In the bound editor and in Patchbay (first decision wins)' },
  { value: 'patchbay-only', label: 'In Patchbay only' },
];

export function RoutingSettings({ desktop }: { desktop: boolean }) {
  const { api } = useHub();
  const { settings } = useSnapshot();
  const command = useCommand();
  const ids = { deadline: useId(), folder: useId() };
  // What the person is typing; null shows the setting itself, so a change made elsewhere shows
  // here and a blur without an edit writes nothing back.
  const [draft, setDraft] = useState<string | null>(null);
  const deadline = draft ?? String(settings.diagnosticsDeadlineMs);
  const [folder, setFolder] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);

  const save = (patch: Partial<PatchbaySettings>): Promise<boolean> => command.run(() => api.call('settings.set', { patch }));

  const saveDeadline = (): void => {
    if (draft === null) return;
    const parsed = parseDeadline(draft);
    setInputError(parsed.ok ? null : parsed.error);
    if (!parsed.ok) return;
    if (parsed.value === settings.diagnosticsDeadlineMs) setDraft(null);
    else void save({ diagnosticsDeadlineMs: parsed.value }).then((saved) => saved && setDraft(null));
  };

  const addFolder = async (): Promise<void> => {
    const parsed = addReviewFolder(settings.reviewFolders, folder);
    setInputError(parsed.ok ? null : parsed.error);
    if (parsed.ok && (await save({ reviewFolders: parsed.value }))) setFolder('');
  };

  return (
    <section aria-labelledby="routing-title" className="settings-section">
      <h2 id="routing-title">Routing and review</h2>
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
          <label htmlFor={ids.folder}>Add folder</label>
          <input id={ids.folder} value={folder} placeholder="/absolute/path" onChange={(e) => setFolder(e.target.value)} />
          <button type="submit">Add</button>
        </form>
      </fieldset>

      <div className="field-row">
        <label htmlFor={ids.deadline}>Diagnostics deadline (ms)</label>
        <input
          id={ids.deadline}
          type="number"
          min={50}
          max={60000}
          step={50}
          value={deadline}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={saveDeadline}
          onKeyDown={(e) => e.key === 'Enter' && saveDeadline()}
        />
        <span className="meta">An editor slower than this answers "no diagnostics", so agents never stall.</span>
      </div>

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
      <label className="check">
        <input
          type="checkbox"
          checked={settings.allowPiExtensions}
          onChange={(e) => void save({ allowPiExtensions: e.target.checked })}
        />{' '}
        Let hosted pi load extensions given as arguments (<code>-e</code>): an extension runs as code with your rights
      </label>
      {inputError !== null && <ErrorText>{inputError}</ErrorText>}
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </section>
  );
}
