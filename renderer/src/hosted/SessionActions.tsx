// What pi's terminal does to a session, as buttons: a new session, fork from an earlier prompt,
// clone, compact (with instructions), export as HTML, a name, and how pi queues, compacts and
// retries. Each is one of pi's RPC commands; what it did is said below the buttons.
import { useEffect, useId, useState } from 'react';
import type { FormEvent } from 'react';
import type { ForkPoint, HostedSettings, QueueMode } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { Modal } from '../ui/Modal.tsx';

interface Props {
  id: string;
  enabled: boolean;
  sessionName: string | null;
  settings: HostedSettings;
  /** Text for the prompt box (a fork gives back the prompt it forked from). */
  fill(text: string): void;
  /** Says what an action did (or `null` to clear it). */
  say(text: string | null): void;
  /** Reads the session again (its settings changed). */
  refresh(): void;
}

type Open = 'fork' | 'compact' | 'name' | 'settings' | null;

export function SessionActions({ id, enabled, sessionName, settings, fill, say, refresh }: Props) {
  const { api } = useHub();
  const command = useCommand();
  const [open, setOpen] = useState<Open>(null);
  const act = (run: () => Promise<string | null>): void => {
    say(null);
    void command.run(async () => say(await run()));
  };

  return (
    <div className="toolbar session-actions" aria-label="Session">
      <button type="button" className="small" disabled={!enabled || command.busy} onClick={() => act(async () => ((await api.call('pi.newSession', { id })).cancelled ? 'An extension cancelled the new session.' : 'Started a new session.'))}>
        New session
      </button>
      <button type="button" className="small" disabled={!enabled || command.busy} onClick={() => setOpen('fork')}>
        Fork…
      </button>
      <button type="button" className="small" disabled={!enabled || command.busy} onClick={() => act(async () => ((await api.call('pi.clone', { id })).cancelled ? 'An extension cancelled the clone.' : 'Cloned into a new session.'))}>
        Clone
      </button>
      <button type="button" className="small" disabled={!enabled || command.busy} onClick={() => setOpen('compact')}>
        Compact…
      </button>
      <button type="button" className="small" disabled={!enabled || command.busy} onClick={() => act(async () => `Exported the session to ${(await api.call('pi.exportHtml', { id })).path}`)}>
        Export
      </button>
      <button type="button" className="small" disabled={!enabled || command.busy} onClick={() => setOpen('name')}>
        {sessionName === null ? 'Name…' : 'Rename…'}
      </button>
      <button type="button" className="small" disabled={!enabled || command.busy} onClick={() => setOpen('settings')}>
        Settings…
      </button>
      {command.busy && <span className="meta">working…</span>}
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
      {open === 'fork' && (
        <ForkDialog
          id={id}
          close={() => setOpen(null)}
          chosen={(point) => {
            setOpen(null);
            act(async () => {
              const result = await api.call('pi.fork', { id, entryId: point.entryId });
              if (result.cancelled) return 'An extension cancelled the fork.';
              fill(result.text);
              return 'Forked into a new session from before that prompt: it is in the prompt box to edit and send again.';
            });
          }}
        />
      )}
      {open === 'compact' && (
        <TextDialog
          title="Compact the conversation"
          label="Instructions for the summary (optional)"
          multiline
          submitLabel="Compact"
          close={() => setOpen(null)}
          submit={(instructions) => {
            setOpen(null);
            act(async () => {
              await api.call('pi.compact', { id, ...(instructions.trim() !== '' ? { instructions } : {}) });
              return null; // pi's own notice in the transcript says how much it saved
            });
          }}
        />
      )}
      {open === 'name' && (
        <TextDialog
          title="Name this session"
          label="Name"
          initial={sessionName ?? ''}
          required
          submitLabel="Save name"
          close={() => setOpen(null)}
          submit={(name) => {
            setOpen(null);
            act(async () => {
              await api.call('pi.setName', { id, name });
              return null;
            });
          }}
        />
      )}
      {open === 'settings' && <SettingsDialog id={id} settings={settings} refresh={refresh} close={() => setOpen(null)} />}
    </div>
  );
}

function ForkDialog({ id, close, chosen }: { id: string; close(): void; chosen(point: ForkPoint): void }) {
  const { api } = useHub();
  const [points, setPoints] = useState<ForkPoint[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    api.call('pi.forkPoints', { id }).then(
      (list) => current && setPoints(list),
      (err: Error) => current && setError(err.message),
    );
    return () => {
      current = false;
    };
  }, [api, id]);
  return (
    <Modal title="Fork from an earlier prompt" className="session-dialog" cancel={close}>
      <p className="dialog-message">pi continues in a new session from just before the prompt you pick; the prompt comes back to edit.</p>
      {error !== null && <ErrorText>{error}</ErrorText>}
      {points === null && error === null && <p className="empty">Reading the prompts…</p>}
      {points !== null && points.length === 0 && <p className="empty">No earlier prompt to fork from.</p>}
      {points !== null && points.length > 0 && (
        <ul className="plain dialog-options" aria-label="Earlier prompts">
          {[...points].reverse().map((point, i) => (
            <li key={point.entryId}>
              <button type="button" data-initial-focus={i === 0 ? true : undefined} onClick={() => chosen(point)}>
                {point.text.length > 200 ? `${point.text.slice(0, 199)}…` : point.text}
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="actions dialog-actions">
        <span className="spacer" />
        <button type="button" onClick={close} aria-keyshortcuts="Escape">
          Cancel
        </button>
      </div>
    </Modal>
  );
}

interface TextDialogProps {
  title: string;
  label: string;
  initial?: string;
  multiline?: boolean;
  required?: boolean;
  submitLabel: string;
  close(): void;
  submit(text: string): void;
}

function TextDialog({ title, label, initial = '', multiline = false, required = false, submitLabel, close, submit }: TextDialogProps) {
  const fieldId = useId();
  const [text, setText] = useState(initial);
  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    if (required && text.trim() === '') return;
    submit(text);
  };
  return (
    <Modal title={title} className="session-dialog" cancel={close}>
      <form onSubmit={onSubmit}>
        <label htmlFor={fieldId}>{label}</label>
        {multiline ? (
          <textarea id={fieldId} data-initial-focus rows={4} value={text} onChange={(e) => setText(e.target.value)} />
        ) : (
          <input id={fieldId} data-initial-focus value={text} required={required} onChange={(e) => setText(e.target.value)} />
        )}
        <div className="actions dialog-actions">
          <span className="spacer" />
          <button type="button" onClick={close} aria-keyshortcuts="Escape">
            Cancel
          </button>
          <button type="submit" className="primary">
            {submitLabel}
          </button>
        </div>
      </form>
    </Modal>
  );
}

const MODES: readonly { value: QueueMode; label: string }[] = [
  { value: 'one-at-a-time', label: 'one at a time' },
  { value: 'all', label: 'all at once' },
];

function ModeSelect({ id, mode, disabled, change }: { id: string; mode: QueueMode | null; disabled: boolean; change(mode: QueueMode): void }) {
  return (
    <select id={id} value={mode ?? ''} disabled={disabled} onChange={(e) => change(e.target.value as QueueMode)}>
      {mode === null && <option value="">as pi's settings say</option>}
      {MODES.map((m) => (
        <option key={m.value} value={m.value}>
          {m.label}
        </option>
      ))}
    </select>
  );
}

function SettingsDialog({ id, settings, refresh, close }: { id: string; settings: HostedSettings; refresh(): void; close(): void }) {
  const { api } = useHub();
  const command = useCommand();
  const ids = { steering: useId(), followUp: useId(), compaction: useId(), retry: useId() };
  const set = (call: () => Promise<unknown>): void => void command.run(call).then(refresh);
  return (
    <Modal title="Session settings" className="session-dialog" cancel={close}>
      <div className="settings-grid">
        <label htmlFor={ids.steering}>Steering prompts are given to pi</label>
        <ModeSelect id={ids.steering} mode={settings.steeringMode} disabled={command.busy} change={(steering) => set(() => api.call('pi.setQueueModes', { id, steering }))} />
        <label htmlFor={ids.followUp}>Follow-ups are given to pi</label>
        <ModeSelect id={ids.followUp} mode={settings.followUpMode} disabled={command.busy} change={(followUp) => set(() => api.call('pi.setQueueModes', { id, followUp }))} />
        <label htmlFor={ids.compaction}>Compact by itself when the context is nearly full</label>
        <input id={ids.compaction} type="checkbox" checked={settings.autoCompaction ?? true} disabled={command.busy} onChange={(e) => set(() => api.call('pi.setAutoCompaction', { id, enabled: e.target.checked }))} />
        <label htmlFor={ids.retry}>Retry by itself when the model is overloaded or failing{settings.autoRetry === null ? " (as pi's settings say)" : ''}</label>
        <input id={ids.retry} type="checkbox" checked={settings.autoRetry ?? true} disabled={command.busy} onChange={(e) => set(() => api.call('pi.setAutoRetry', { id, enabled: e.target.checked }))} />
      </div>
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
      <div className="actions dialog-actions">
        <button type="button" disabled={command.busy} onClick={() => set(() => api.call('pi.abortRetry', { id }))}>
          Stop a retry in progress
        </button>
        <span className="spacer" />
        <button type="button" data-initial-focus onClick={close} aria-keyshortcuts="Escape">
          Done
        </button>
      </div>
    </Modal>
  );
}
