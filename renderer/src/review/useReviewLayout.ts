// The diff layout and wrap toggles, remembered in this window's storage, and the width of the
// diff area they depend on.
import { useCallback, useLayoutEffect, useState } from 'react';
import type { RefObject } from 'react';
import { layoutFor, parseChoice } from './layout.ts';
import type { Layout, LayoutChoice } from './layout.ts';

const LAYOUT_KEY = 'patchbay.review.layout';
const WRAP_KEY = 'patchbay.review.wrap';

export interface ReviewLayout {
  /** Whether the diff area has been measured: until then `layout` is a guess, and no diff editor is built on it. */
  measured: boolean;
  layout: Layout;
  /** What automatic shows at this width. */
  automatic: Layout;
  choice: LayoutChoice;
  choose(choice: LayoutChoice): void;
  wrap: boolean;
  setWrap(wrap: boolean): void;
}

/** Storage can be unavailable (a locked-down browser profile): the choice then lasts the page. */
function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Kept for this page only; nothing to tell the person.
  }
}

export function useReviewLayout(area: RefObject<HTMLElement | null>): ReviewLayout {
  const [choice, setChoice] = useState<LayoutChoice>(() => parseChoice(read(LAYOUT_KEY)));
  const [wrap, setWrapState] = useState(() => read(WRAP_KEY) !== 'off');
  const [width, setWidth] = useState<number | null>(null);

  // Measured before the first paint (React renders again at once): a diff editor built for a
  // guessed layout would be built twice in a narrow window.
  useLayoutEffect(() => {
    const element = area.current;
    if (element === null) return;
    setWidth(element.getBoundingClientRect().width);
    const observer = new ResizeObserver(([entry]) => setWidth(entry?.contentRect.width ?? 0));
    observer.observe(element);
    return () => observer.disconnect();
  }, [area]);

  const choose = useCallback((next: LayoutChoice) => {
    setChoice(next);
    write(LAYOUT_KEY, next);
  }, []);
  const setWrap = useCallback((next: boolean) => {
    setWrapState(next);
    write(WRAP_KEY, next ? 'on' : 'off');
  }, []);
  return { measured: width !== null, layout: layoutFor(choice, width ?? 0), automatic: layoutFor('auto', width ?? 0), choice, choose, wrap, setWrap };
}
