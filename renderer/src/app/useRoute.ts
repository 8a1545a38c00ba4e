import { useCallback, useEffect, useState } from 'react';
import { parseRoute, routeHash } from './route.ts';
import type { Route } from './route.ts';

export interface Navigation {
  /** Go somewhere (a tab, a link). */
  navigate(route: Route): void;
  /**
   * A view changing its own selection (a diff decided, the next one picked). Applied only
   * while the location still shows that view: a late update must not pull the person back
   * from the view they just switched to.
   */
  selectWithin(route: Route): void;
}

export function useRoute(): [Route, Navigation] {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = (): void => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  const navigate = useCallback((next: Route) => {
    window.location.hash = routeHash(next);
  }, []);
  const selectWithin = useCallback((next: Route) => {
    if (parseRoute(window.location.hash).view === next.view) window.location.hash = routeHash(next);
  }, []);
  return [route, { navigate, selectWithin }];
}
