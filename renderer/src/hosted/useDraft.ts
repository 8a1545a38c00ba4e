// What the person has typed into a session's prompt box, kept while they look at another
// session (the panel is drawn anew for each).
import { useCallback, useState } from 'react';

const drafts = new Map<string, string>();

export function useDraft(id: string): [string, (next: string | ((prev: string) => string)) => void] {
  const [draft, setState] = useState(() => drafts.get(id) ?? '');
  const setDraft = useCallback(
    (next: string | ((prev: string) => string)) =>
      setState((prev) => {
        const value = typeof next === 'function' ? next(prev) : next;
        if (value === '') drafts.delete(id);
        else drafts.set(id, value);
        return value;
      }),
    [id],
  );
  return [draft, setDraft];
}
