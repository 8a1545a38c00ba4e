// An extension's question (select / confirm / input / editor) as a real modal dialog:
// showModal makes the rest of the page inert, so focus stays inside; Esc cancels.
import { useId, useRef, useState } from 'react';
import type { FormEvent, KeyboardEvent, ReactNode } from 'react';
import type { DialogAnswer, HostedDialog } from '../../../src/api/types.ts';
import { CANCELLED, confirmAnswer, countdownText, selectAnswer, textAnswer } from './hosted-model.ts';
import { useModal } from '../ui/useModal.ts';
import '../ui/modal.css';

interface Props {
  dialog: HostedDialog;
  now: number;
  answer(answer: DialogAnswer): void;
}

export function ExtensionDialog({ dialog, now, answer }: Props) {
  const ref = useModal();
  const titleId = useId();
  const messageId = useId();
  const answered = useRef(false);
  const once = (value: DialogAnswer): void => {
    if (answered.current) return;
    answered.current = true;
    answer(value);
  };

  const countdown = countdownText(dialog.expiresAt, now);
  const hasMessage = dialog.message !== undefined && dialog.message !== '';
  return (
    <dialog
      ref={ref}
      className="modal extension-dialog"
      aria-labelledby={titleId}
      aria-describedby={hasMessage ? messageId : undefined}
      onKeyDown={keepFocusInside}
      onCancel={(e) => {
        // Esc: answer "cancelled" rather than just hiding a question pi still waits on.
        e.preventDefault();
        once(CANCELLED);
      }}
    >
      <h2 id={titleId}>{dialog.title}</h2>
      {hasMessage && (
        <p id={messageId} className="dialog-message">
          {dialog.message}
        </p>
      )}
      {countdown !== null && <p className="meta countdown">{countdown}: pi gives up after that</p>}
      <DialogBody dialog={dialog} answer={once} />
    </dialog>
  );
}

const FOCUSABLE = 'button:not(:disabled), input:not(:disabled), textarea:not(:disabled), select:not(:disabled), [tabindex]:not([tabindex="-1"])';

/**
 * showModal keeps focus off the page behind, but Tab from the last control would still
 * leave for the browser's own UI; wrap around instead, as a dialog should.
 */
function keepFocusInside(event: KeyboardEvent<HTMLDialogElement>): void {
  if (event.key !== 'Tab' || event.altKey || event.ctrlKey || event.metaKey) return;
  const controls = [...event.currentTarget.querySelectorAll<HTMLElement>(FOCUSABLE)];
  const first = controls[0];
  const last = controls[controls.length - 1];
  if (first === undefined || last === undefined) return;
  const active = document.activeElement;
  if (event.shiftKey && (active === first || !event.currentTarget.contains(active))) {
    event.preventDefault();
    last.focus();
  } else if (!event.shiftKey && (active === last || !event.currentTarget.contains(active))) {
    event.preventDefault();
    first.focus();
  }
}

function DialogBody({ dialog, answer }: { dialog: HostedDialog; answer(answer: DialogAnswer): void }) {
  const cancel = (
    <button type="button" onClick={() => answer(CANCELLED)} aria-keyshortcuts="Escape">
      Cancel
    </button>
  );
  switch (dialog.method) {
    case 'select':
      return <SelectBody options={dialog.options ?? []} answer={answer} cancel={cancel} />;
    case 'confirm':
      return (
        <div className="actions dialog-actions">
          <button type="button" className="primary" data-initial-focus onClick={() => answer(confirmAnswer(true))}>
            Yes
          </button>
          <button type="button" onClick={() => answer(confirmAnswer(false))}>
            No
          </button>
          <span className="spacer" />
          {cancel}
        </div>
      );
    case 'input':
    case 'editor':
      return <TextBody dialog={dialog} answer={answer} cancel={cancel} />;
  }
}

function SelectBody({ options, answer, cancel }: { options: readonly string[]; answer(a: DialogAnswer): void; cancel: ReactNode }) {
  const list = useRef<HTMLUListElement>(null);
  // Arrow keys move between the options, as in pi's own picker.
  const onKeyDown = (event: KeyboardEvent<HTMLUListElement>): void => {
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const buttons = [...(list.current?.querySelectorAll('button') ?? [])];
    const at = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = buttons[Math.min(buttons.length - 1, Math.max(0, at + (event.key === 'ArrowDown' ? 1 : -1)))];
    if (next === undefined) return;
    event.preventDefault();
    next.focus();
  };
  return (
    <>
      {options.length === 0 && <p className="empty">pi offered no options.</p>}
      <ul ref={list} className="plain dialog-options" aria-label="Options" onKeyDown={onKeyDown}>
        {options.map((option, i) => (
          <li key={`${i}-${option}`}>
            <button type="button" data-initial-focus={i === 0 ? true : undefined} onClick={() => answer(selectAnswer(option))}>
              {option}
            </button>
          </li>
        ))}
      </ul>
      <div className="actions dialog-actions">
        <span className="spacer" />
        {cancel}
      </div>
    </>
  );
}

function TextBody({ dialog, answer, cancel }: { dialog: HostedDialog; answer(a: DialogAnswer): void; cancel: ReactNode }) {
  const fieldId = useId();
  const [text, setText] = useState(dialog.prefill ?? '');
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    answer(textAnswer(text));
  };
  const editor = dialog.method === 'editor';
  return (
    <form onSubmit={submit}>
      <label htmlFor={fieldId}>{editor ? 'Text' : 'Answer'}</label>
      {editor ? (
        <textarea
          id={fieldId}
          data-initial-focus
          value={text}
          rows={10}
          placeholder={dialog.placeholder}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e);
          }}
        />
      ) : (
        <input id={fieldId} data-initial-focus value={text} placeholder={dialog.placeholder} onChange={(e) => setText(e.target.value)} />
      )}
      <div className="actions dialog-actions">
        <button type="submit" className="primary" aria-keyshortcuts={editor ? 'Control+Enter' : 'Enter'}>
          {editor ? 'Submit' : 'OK'}
        </button>
        <span className="spacer" />
        {cancel}
      </div>
    </form>
  );
}
