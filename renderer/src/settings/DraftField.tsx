// A typed setting (a number, a command): what the person types is a draft until Enter or
// leaving the field saves it. A bad value stays in the field, outlined, with the reason
// right under it; the setting keeps its old value. With no draft the field shows the setting
// itself, so a change made elsewhere shows here and a blur without an edit writes nothing.
import { useId, useState } from 'react';
import type { ReactNode } from 'react';
import type { Parsed } from './settings-model.ts';
import { SaveStatus } from './SaveStatus.tsx';
import type { SaveSettings } from './useSaveSettings.ts';

interface Props<T> {
  label: string;
  value: T;
  /** The setting as text in the field. */
  format(value: T): string;
  parse(text: string): Parsed<T>;
  saver: SaveSettings;
  save(value: T): Promise<boolean>;
  hint: ReactNode;
  input: { type?: 'text' | 'number'; min?: number; max?: number; step?: number; placeholder?: string; className?: string };
}

export function DraftField<T>({ label, value, format, parse, saver, save, hint, input }: Props<T>) {
  const id = useId();
  const hintId = useId();
  const errorId = useId();
  const [draft, setDraft] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<string | null>(null);
  const text = draft ?? format(value);
  // The hub's reason wins over none: it names the rule the value broke.
  const error = invalid ?? (draft !== null ? saver.error : null);

  const commit = (): void => {
    if (draft === null) return;
    const parsed = parse(draft);
    setInvalid(parsed.ok ? null : parsed.error);
    if (!parsed.ok) return;
    if (format(parsed.value) === format(value)) {
      setDraft(null);
      return;
    }
    void save(parsed.value).then((ok) => ok && setDraft(null));
  };

  return (
    <div className="draft-field">
      <div className="field-row">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          {...input}
          value={text}
          aria-invalid={error !== null}
          aria-describedby={error !== null ? `${errorId} ${hintId}` : hintId}
          spellCheck={false}
          onChange={(e) => {
            setDraft(e.target.value);
            setInvalid(null);
            saver.clearError();
          }}
          onBlur={commit}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit();
            if (e.key === 'Escape' && draft !== null) {
              setDraft(null);
              setInvalid(null);
              saver.clearError();
            }
          }}
        />
        <SaveStatus busy={saver.busy} saved={saver.saved && draft === null} />
      </div>
      {error !== null && (
        <p id={errorId} role="alert" className="error-text field-error">
          {error}
        </p>
      )}
      <p id={hintId} className="meta field-hint">
        {hint}
      </p>
    </div>
  );
}
