import { useEffect } from 'react';
import { ConnectionBanner } from '../hub/ConnectionBanner.tsx';
import { useHub } from '../hub/HubProvider.tsx';
import { SignInNotice } from '../hub/SignInNotice.tsx';
import { keyFacts } from '../ui/keyboard.ts';
import { ReviewView } from '../review/ReviewView.tsx';
import { PairingView } from '../pairing/PairingView.tsx';
import { TrafficView } from '../traffic/TrafficView.tsx';
import { SettingsView } from '../settings/SettingsView.tsx';
import { SessionsView } from '../hosted/SessionsView.tsx';
import { questionsWaiting } from '../hosted/hosted-model.ts';
import { VIEWS, routeHash } from './route.ts';
import type { Route } from './route.ts';
import { useRoute } from './useRoute.ts';

export function App() {
  const { snapshot, lost, connection } = useHub();
  const [route, { navigate, selectWithin }] = useRoute();
  const questions = questionsWaiting(snapshot?.hosted);

  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      const facts = keyFacts(event);
      if (facts.inEditableTarget || facts.ctrlKey || facts.metaKey || facts.altKey) return;
      const view = VIEWS.find((v) => v.key === facts.key);
      if (view !== undefined) {
        event.preventDefault();
        navigate({ view: view.view, id: null });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [navigate]);

  return (
    <div className="app">
      <header className="app-header">
        <nav aria-label="Views">
          {VIEWS.map((v) => (
            <a
              key={v.view}
              href={routeHash({ view: v.view, id: null })}
              aria-current={route.view === v.view ? 'page' : undefined}
              aria-keyshortcuts={v.key}
            >
              {v.label} <kbd>{v.key}</kbd>
              {v.view === 'sessions' && questions > 0 && (
                <span className="nav-badge">
                  {questions}
                  <span className="visually-hidden"> {questions === 1 ? 'question' : 'questions'} from pi waiting</span>
                </span>
              )}
            </a>
          ))}
        </nav>
        {snapshot?.paused && <span className="status-pill">Routing paused</span>}
      </header>
      <ConnectionBanner />
      {snapshot?.door.problems.map((problem) => (
        <div key={problem} role="alert" className="banner error">
          Agents may not reach Patchbay, so their edits may go unreviewed: {problem}.
        </div>
      ))}
      {snapshot?.warnings.map((w) => (
        <div key={w} role="status" className="banner warning">
          {w}
        </div>
      ))}
      {/* Stale while the connection is lost: nothing in it can act until it is back. */}
      <main className="app-main" inert={connection.kind === 'reconnecting'}>
        {connection.kind === 'signed-out' ? (
          <SignInNotice why={connection.why} />
        ) : snapshot === null ? (
          lost === null && <p className="empty">Connecting to Patchbay…</p>
        ) : (
          <CurrentView route={route} select={selectWithin} />
        )}
      </main>
    </div>
  );
}

function CurrentView({ route, select }: { route: Route; select: (route: Route) => void }) {
  switch (route.view) {
    case 'review':
      return <ReviewView selectedId={route.id} select={(id) => select({ view: 'review', id })} />;
    case 'pairing':
      return <PairingView />;
    case 'traffic':
      return <TrafficView sessionId={route.id} selectSession={(id) => select({ view: 'traffic', id })} />;
    case 'settings':
      return <SettingsView />;
    case 'sessions':
      return <SessionsView selectedId={route.id} select={(id) => select({ view: 'sessions', id })} />;
  }
}
