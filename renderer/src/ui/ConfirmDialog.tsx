// A yes/no question before something that cannot be undone, as a real modal dialog. The focus
// starts on Cancel, so Enter alone never does the harm; Esc cancels.
import { useId } from 'react';
import { Modal } from './Modal.tsx';

interface Props {
  title: string;
  message: string;
  confirmLabel: string;
  confirm(): void;
  cancel(): void;
}

export function ConfirmDialog({ title, message, confirmLabel, confirm, cancel }: Props) {
  const messageId = useId();
  return (
    <Modal title={title} className="confirm-dialog" cancel={cancel} describedBy={messageId}>
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
    </Modal>
  );
}
