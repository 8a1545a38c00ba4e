import { useCallback, useEffect, useMemo, useState } from 'react';
import { pendingCount } from '../../../electron/shared/diff-notifications.ts';
import { ConnectionBanner } from '../hub/ConnectionBanner.tsx';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { SignInNotice } from '../hub/SignInNotice.tsx';
import { isEditableTarget, keyFacts, leaveFieldOnEscape } from '../ui/keyboard.ts';
import { ReviewView } from '../review/ReviewView.tsx';
import { PairingView } from '../pairing/PairingView.tsx';
import { TrafficView } from '../traffic/TrafficView.tsx';
import { SettingsView } from '../settings/SettingsView.tsx';
import { SessionsView } from '../hosted/SessionsView.tsx';
import { questionsWaiting } from '../hosted/hosted-model.ts';
import { pageTitle } from './attention.ts';
import { useEditNotifications, useNotificationPermission } from './browser-notifications.ts';
import { FaviconBadge } from './favicon.ts';
import { VIEWS, routeHash } from './route.ts';
import type { Route } from './route.ts';
import { HELP_KEY, ShortcutsDialog } from './ShortcutsDialog.tsx';
import { Notices } from './Notices.tsx';
import { useRoute } from './useRoute.ts';
import './app.css';

export function App() {
  const { snapshot, lost, transport, connection } = useHub();
  const [route, { navigate, selectWithin }] = useRoute();
  const [help, setHelp] = useState(false);
  const questions = questionsWaiting(snapshot?.hosted);
  const pending = snapshot === null ? 0 : pendingCount(snapshot);
  const permission = useNotificationPermission();
  const browser = transport === 'websocket';

  const openDiff = useCallback((id: string) => navigate({ view: 'review', id }), [navigate]);
  useEditNotifications(snapshot, browser && permission.state === 'granted', openDiff);

  const viewLabel = VIEWS.find((v) => v.view === route.view)?.label ?? 'Patchbay';
  useEffect(() => {
    document.title = pageTitle(viewLabel, pending);
  }, [viewLabel, pending]);
  const favicon = useMemo(() => new FaviconBadge(), []);
  useEffect(() => {
    void favicon.show(pending);
  }, [favicon, pending]);

  // Single keys do nothing while a text field has the focus: say so, rather than stay silent.
  const [typing, setTyping] = useState(false);
  useEffect(() => {
    const update = (): void => setTyping(isEditableTarget(document.activeElement));
    // On focusout the focus has not moved yet.
    const later = (): void => void setTimeout(update, 0);
    document.addEventListener('focusin', update);
    document.addEventListener('focusout', later);
    return () => {
      document.removeEventListener('focusin', update);
      document.removeEventListener('focusout', later);
    };
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent): void => {
      // Esc leaves a text field or a select, so the single keys work again.
      leaveFieldOnEscape(event);
      const facts = keyFacts(event);
      if (facts.inEditableTarget || facts.ctrlKey || facts.metaKey || facts.altKey) return;
      if (facts.key === HELP_KEY) {
        event.preventDefault();
        setHelp(true);
        return;
      }
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
              title={`${v.label} (key ${v.key})`}
            >
              {v.label}
              {v.view === 'review' && pending > 0 && (
                <span className="nav-badge count">
                  {pending}
                  <span className="visually-hidden"> {pending === 1 ? 'edit' : 'edits'} waiting for review</span>
                </span>
              )}
              {v.view === 'sessions' && questions > 0 && (
                <span className="nav-badge">
                  {questions}
                  <span className="visually-hidden"> {questions === 1 ? 'question' : 'questions'} from pi waiting</span>
                </span>
              )}
            </a>
          ))}
        </nav>
        <span className="spacer" />
        {typing && (
          <span className="meta keys-off" role="status">
            Keys are off while you type · Esc
          </span>
        )}
        {snapshot?.paused && <PausedPill />}
        {browser && permission.state === 'default' && (
          <button type="button" className="header-button" onClick={permission.request}>
            Notify me of waiting edits
          </button>
        )}
        <button type="button" className="header-button" onClick={() => setHelp(true)} aria-keyshortcuts={HELP_KEY}>
          Shortcuts <kbd aria-hidden="true">{HELP_KEY}</kbd>
        </button>
      </header>
      <ConnectionBanner />
      <Notices />
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
      {help && <ShortcutsDialog close={() => setHelp(false)} />}
    </div>
  );
}

/** Paused routing, what it means, and the way back. */
function PausedPill() {
  const { api } = useHub();
  const command = useCommand();
  return (
    <span className="status-pill" title="While paused no session is served by an editor: every edit waits in Patchbay's Review, and editors get no diffs or diagnostics from agents.">
      Routing paused<span className="pill-detail">: every edit is reviewed here</span>{' '}
      <button type="button" className="header-button" disabled={command.busy} onClick={() => void command.run(() => api.call('setPaused', { paused: false }))}>
        Resume
      </button>
    </span>
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
