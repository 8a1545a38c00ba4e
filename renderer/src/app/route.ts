// Which view a window shows, kept in the URL hash so Electron's main process can open a
// window straight on a view (`#/review/<diffId>`) and the browser's back button works.

export type View = 'review' | 'pairing' | 'traffic' | 'settings' | 'sessions';

export interface Route {
  view: View;
  /** A diff (review), a session (traffic) or a hosted pi session (sessions) to select. */
  id: string | null;
}

export const VIEWS: readonly { view: View; label: string; key: string }[] = [
  { view: 'review', label: 'Review', key: '1' },
  { view: 'pairing', label: 'Pairing', key: '2' },
  { view: 'traffic', label: 'Traffic', key: '3' },
  { view: 'settings', label: 'Settings', key: '4' },
  { view: 'sessions', label: 'Sessions', key: '5' },
];

const DEFAULT_ROUTE: Route = { view: 'review', id: null };

export function parseRoute(hash: string): Route {
  const [view, ...rest] = hash.replace(/^#\/?/, '').split('/');
  if (!VIEWS.some((v) => v.view === view)) return DEFAULT_ROUTE;
  const id = rest.length > 0 && rest[0] !== '' ? decodeURIComponent(rest.join('/')) : null;
  return { view: view as View, id };
}

export function routeHash(route: Route): string {
  return route.id === null ? `#/${route.view}` : `#/${route.view}/${encodeURIComponent(route.id)}`;
}
