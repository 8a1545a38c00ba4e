// A yes/no question before something that cannot be undone, as a real modal dialog. The focus
// starts on Cancel, so Enter alone never does the harm; Esc cancels.
import { useId } from 'react';
import { useModal } from './useModal.ts';
import './modal.css';

interface Props {
  title: string;
  message: string;
  confirmLabel: string;
  confirm(): void;
  cancel(): void;
}

export function ConfirmDialog({ title, message, confirmLabel, confirm, cancel }: Props) {
  const ref = useModal();
  const titleId = useId();
  const messageId = useId();
  return (
    <dialog
      ref={ref}
      className="modal confirm-dialog"
      aria-labelledby={titleId}
      aria-describedby={messageId}
      onCancel={(e) => {
        e.preventDefault();
        cancel();
      }}
      // Single-key shortcuts listen on the window: none may act behind the question.
      onKeyDown={(e) => e.stopPropagation()}
    >
      <h2 id={titleId}>{title}</h2>
      <p id={messageId}>{message}</p>
      <div className="actions dialog-actions">
        <span className="spacer" />
        <button type="button" data-initial-focus onClick={cancel} aria-keyshortcuts="Escape">
          Cancel
        </button>
        <button type="button" className="danger" onClick={confirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
