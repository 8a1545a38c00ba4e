// What tells a person an edit is waiting when they are not looking at the Review view: the
// page title and the favicon carry the count (the browser's tab strip shows both).

/** `(2) Review — Patchbay`: the count first, so a narrow tab still shows it. */
export function pageTitle(viewLabel: string, pending: number): string {
  return `${pending > 0 ? `(${pending}) ` : ''}${viewLabel} — Patchbay`;
}

/** The favicon badge's text: a digit, or `9+` (two digits are unreadable at 16 px). */
export function badgeText(pending: number): string | null {
  if (pending <= 0) return null;
  return pending > 9 ? '9+' : String(pending);
}
