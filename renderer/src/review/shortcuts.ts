// Review keyboard shortcuts: one table drives both the key handling and the legend.

export type ReviewCommand =
  | 'accept'
  | 'reject'
  | 'nextDiff'
  | 'previousDiff'
  | 'nextChange'
  | 'previousChange'
  | 'acceptChange'
  | 'rejectChange'
  | 'toggleLayout'
  | 'undo';

export const REVIEW_SHORTCUTS: readonly { key: string; command: ReviewCommand; label: string }[] = [
  { key: 'a', command: 'accept', label: 'Accept' },
  { key: 'r', command: 'reject', label: 'Reject' },
  { key: 'j', command: 'nextDiff', label: 'Next diff' },
  { key: 'k', command: 'previousDiff', label: 'Previous diff' },
  { key: 'n', command: 'nextChange', label: 'Next change' },
  { key: 'p', command: 'previousChange', label: 'Previous change' },
  { key: 'y', command: 'acceptChange', label: 'Accept this change' },
  { key: 'x', command: 'rejectChange', label: 'Reject this change' },
  { key: 'v', command: 'toggleLayout', label: 'Layout: side by side, unified, automatic' },
  { key: 'u', command: 'undo', label: 'Take back a decision while it waits' },
];

export interface KeyFacts {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  /** Typing into the diff editor or a field must never accept or reject anything. */
  inEditableTarget: boolean;
}

export function reviewCommandFor(event: KeyFacts): ReviewCommand | null {
  if (event.inEditableTarget || event.ctrlKey || event.metaKey || event.altKey) return null;
  return REVIEW_SHORTCUTS.find((s) => s.key === event.key)?.command ?? null;
}
