// Starts `pi --mode rpc` in a folder, with an optional model and extra arguments.
import { useId, useMemo, useState } from 'react';
import type { FormEvent } from 'react';
import { useHub, useSnapshot } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { folderSuggestions, startParams } from './hosted-model.ts';
import type { StartForm as Fields } from './hosted-model.ts';

export function StartForm({ started }: { started(id: string): void }) {
  const { api } = useHub();
  const snapshot = useSnapshot();
  const command = useCommand();
  const ids = { cwd: useId(), model: useId(), args: useId(), folders: useId() };
  const [fields, setFields] = useState<Fields>({ cwd: '', model: '', args: '' });
  const [invalid, setInvalid] = useState<string | null>(null);
  const folders = useMemo(() => folderSuggestions(snapshot), [snapshot]);

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    const checked = startParams(fields);
    if (!checked.ok) {
      setInvalid(checked.error);
      return;
    }
    setInvalid(null);
    void command.run(async () => {
      const view = await api.call('pi.start', checked.params);
      setFields((f) => ({ ...f, model: '', args: '' }));
      started(view.id);
    });
  };
  const set = (key: keyof Fields) => (e: { target: { value: string } }) => setFields((f) => ({ ...f, [key]: e.target.value }));

  return (
    <form className="start-form" onSubmit={submit} aria-labelledby={`${ids.cwd}-title`}>
      <h2 id={`${ids.cwd}-title`}>Start a pi session</h2>
      <label htmlFor={ids.cwd}>Folder</label>
      <input id={ids.cwd} value={fields.cwd} onChange={set('cwd')} list={ids.folders} placeholder="/path/to/project" required spellCheck={false} />
      <datalist id={ids.folders}>
        {folders.map((f) => (
          <option key={f} value={f} />
        ))}
      </datalist>
      <label htmlFor={ids.model}>Model (optional)</label>
      <input id={ids.model} value={fields.model} onChange={set('model')} placeholder="provider/id" spellCheck={false} />
      <label htmlFor={ids.args}>Extra pi arguments (optional)</label>
      <input id={ids.args} value={fields.args} onChange={set('args')} placeholder="--no-session" spellCheck={false} />
      <div className="actions">
        <button type="submit" className="primary" disabled={command.busy}>
          {command.busy ? 'Starting…' : 'Start pi session'}
        </button>
      </div>
      {invalid !== null && <ErrorText>{invalid}</ErrorText>}
      {command.error !== null && <ErrorText>{`Could not start pi: ${command.error}`}</ErrorText>}
    </form>
  );
}
