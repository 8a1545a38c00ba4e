// A modal <dialog> and its title, shown while mounted (useModal). Esc calls `cancel` (the owner
// unmounts it), and the views' single-key shortcuts, which listen on the window, never act
// behind it.
import { useId, type ReactNode } from 'react';
import { useModal } from './useModal.ts';
import './modal.css';

interface Props {
  title: ReactNode;
  /** The dialog's own class, beside `modal` (each sets its width). */
  className: string;
  cancel(): void;
  /** The id of the element that says what the dialog asks. */
  describedBy?: string;
  children: ReactNode;
}

export function Modal({ title, className, cancel, describedBy, children }: Props) {
  const ref = useModal();
  const titleId = useId();
  return (
    <dialog
      ref={ref}
      className={`modal ${className}`}
      aria-labelledby={titleId}
      aria-describedby={describedBy}
      onCancel={(e) => {
        e.preventDefault();
        cancel();
      }}
      onKeyDown={(e) => e.stopPropagation()}
    >
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}
