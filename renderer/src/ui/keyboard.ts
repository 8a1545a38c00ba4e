// Key facts from a DOM event, so shortcut tables stay free of the DOM.
import type { KeyFacts } from '../review/shortcuts.ts';

/** Inputs that take no typing: letters do nothing in them, so the single keys stay on. */
const KEYLESS_INPUTS = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'color', 'file']);

export function isEditableTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  if (target instanceof HTMLInputElement) return !KEYLESS_INPUTS.has(target.type);
  return target.isContentEditable || ['TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * Esc gives the keys back from a field or a select (the header says so): it leaves it. The diff
 * editor (content-editable) handles its own Esc.
 */
export function leaveFieldOnEscape(event: KeyboardEvent): void {
  const target = event.target;
  if (event.key !== 'Escape' || !(target instanceof HTMLElement) || target.isContentEditable || !isEditableTarget(target)) return;
  target.blur();
}

export function keyFacts(event: KeyboardEvent): KeyFacts {
  return {
    key: event.key,
    ctrlKey: event.ctrlKey,
    metaKey: event.metaKey,
    altKey: event.altKey,
    inEditableTarget: isEditableTarget(event.target),
  };
}
