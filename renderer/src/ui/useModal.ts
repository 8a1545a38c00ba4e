// A <dialog> shown as a real modal while its component is mounted: the focus starts on the
// element marked data-initial-focus (else the browser's choice), and unmounting closes it.
import { useEffect, useRef, type RefObject } from 'react';

export function useModal(): RefObject<HTMLDialogElement | null> {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (el === null) return;
    if (!el.open) el.showModal();
    el.querySelector<HTMLElement>('[data-initial-focus]')?.focus();
    return () => el.close();
  }, []);
  return ref;
}
