// Key facts from a DOM event, so shortcut tables stay free of the DOM.
import type { KeyFacts } from '../review/shortcuts.ts';

export function isEditableTarget(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
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
