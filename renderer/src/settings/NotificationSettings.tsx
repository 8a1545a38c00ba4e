// Whether Patchbay may tell the person about a waiting edit when they are looking elsewhere.
import { useHub } from '../hub/HubProvider.tsx';
import { useNotificationPermission } from '../app/browser-notifications.ts';

export function NotificationSettings() {
  const { transport } = useHub();
  const permission = useNotificationPermission();
  return (
    <section aria-labelledby="notify-title" className="settings-section">
      <h2 id="notify-title">Notifications</h2>
      {transport === 'electron' ? (
        <p className="notify-state">The desktop app shows a notification when an edit has waited a few seconds and no editor shows it.</p>
      ) : (
        <BrowserState state={permission.state} request={permission.request} />
      )}
      <p className="meta">The Review tab, the page title and its icon always show how many edits wait.</p>
    </section>
  );
}

function BrowserState({ state, request }: ReturnType<typeof useNotificationPermission>) {
  switch (state) {
    case 'granted':
      return (
        <p className="notify-state">
          On in this browser: while this page is hidden, a notification tells when an edit waits (unless an editor shows it).
        </p>
      );
    case 'denied':
      return (
        <p className="notify-state">
          Blocked in this browser. To turn them on, allow notifications for this page in the browser’s site settings.
        </p>
      );
    case 'unsupported':
      return <p className="notify-state">This browser cannot show notifications.</p>;
    case 'default':
      return (
        <p className="notify-state">
          Off in this browser.{' '}
          <button type="button" onClick={request}>
            Notify me of waiting edits
          </button>
        </p>
      );
  }
}
