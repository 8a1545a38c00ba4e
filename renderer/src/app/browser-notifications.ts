// The browser face's notification when an edit waits: the same rule as the desktop app's
// (DiffNotifications), shown only while the page is hidden (a visible page has its badge)
// and only once the person allowed notifications from a button (never asked on load).
import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { Snapshot } from '../../../src/api/types.ts';
import { DiffNotifications } from '../../../electron/shared/diff-notifications.ts';
import type { Notifier } from '../../../electron/shared/diff-notifications.ts';

export type PermissionState = NotificationPermission | 'unsupported';

/** The page's window as far as notifications go (absent where the browser has none). */
type NotifyingWindow = Window & { Notification?: typeof Notification };

export function permissionState(win: NotifyingWindow = window): PermissionState {
  return typeof win.Notification === 'function' ? win.Notification.permission : 'unsupported';
}

/** Shows a notification while the page is hidden; a click brings the page back on that diff. */
export function browserNotifier(win: NotifyingWindow = window): Notifier {
  return {
    show(content, onClick) {
      if (win.document.visibilityState === 'visible' || win.Notification === undefined || win.Notification.permission !== 'granted') return;
      // One tag: a newer notice replaces the older one instead of piling up.
      const notice = new win.Notification(content.title, { body: content.body, tag: 'patchbay-waiting-edits' });
      notice.onclick = () => {
        win.focus();
        onClick();
        notice.close();
      };
    },
  };
}

/** Notifies about waiting edits while `enabled`; `openDiff` runs when a notice is clicked. */
export function useEditNotifications(snapshot: Snapshot | null, enabled: boolean, openDiff: (diffId: string) => void): void {
  const scheduler = useRef<DiffNotifications | null>(null);
  const open = useRef(openDiff);
  open.current = openDiff;
  useEffect(() => {
    if (!enabled) return;
    const notifications = new DiffNotifications(browserNotifier(), (diffId) => open.current(diffId));
    scheduler.current = notifications;
    return () => {
      notifications.close();
      scheduler.current = null;
    };
  }, [enabled]);
  useEffect(() => {
    if (snapshot !== null) scheduler.current?.update(snapshot);
  }, [snapshot, enabled]);
}

export interface NotificationPermissionControl {
  state: PermissionState;
  /** Asks the browser; call only from a click (browsers ignore or penalise other asks). */
  request(): void;
}

/** Told when a request answered; the browser's own change event covers changes made in its settings. */
const answered = new Set<() => void>();

function subscribe(onChange: () => void): () => void {
  answered.add(onChange);
  let status: PermissionStatus | null = null;
  let current = true;
  navigator.permissions?.query({ name: 'notifications' }).then(
    (s) => {
      if (!current) return;
      status = s;
      s.addEventListener('change', onChange);
    },
    () => {},
  );
  return () => {
    current = false;
    answered.delete(onChange);
    status?.removeEventListener('change', onChange);
  };
}

function requestPermission(): void {
  if (permissionState() === 'unsupported') return;
  const tell = (): void => answered.forEach((listener) => listener());
  void Notification.requestPermission().then(tell, tell);
}

/** The page's notification permission, the same in every component that asks. */
export function useNotificationPermission(): NotificationPermissionControl {
  const state = useSyncExternalStore(subscribe, permissionState);
  return { state, request: requestPermission };
}
