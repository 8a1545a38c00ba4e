// The tray menu as data: a pure function of the hub's snapshot, tested without Electron.
// TrayService turns it into a native menu and routes the actions.
import type { Snapshot } from '../../src/api/types.ts';
import { boundLabel, count, sessionLabel } from '../shared/labels.ts';
import { pendingCount } from '../shared/diff-notifications.ts';
import { automaticLabel, isAutomatic, rebindChoices } from '../shared/rebind-choices.ts';

export type MenuAction =
  | { kind: 'bind'; sessionId: string; editorId: string | null }
  | { kind: 'unpin'; sessionId: string }
  | { kind: 'openReview' }
  | { kind: 'openMain' }
  | { kind: 'openSettings' }
  | { kind: 'setPaused'; paused: boolean }
  /** Restarts the core under the daemon (as after an upgrade): nobody is disconnected. */
  | { kind: 'restart' }
  | { kind: 'quit' };

export type MenuItemModel =
  | { kind: 'text'; label: string }
  | { kind: 'action'; label: string; action: MenuAction }
  | { kind: 'choice'; label: string; checked: boolean; action: MenuAction }
  | { kind: 'submenu'; label: string; items: MenuItemModel[] }
  | { kind: 'separator' };

export function statusLine(snapshot: Snapshot): string {
  const editors = snapshot.editors.filter((e) => e.alive).length;
  const parts = [count(editors, 'editor'), count(snapshot.sessions.length, 'session'), `${pendingCount(snapshot)} pending`];
  return parts.join(' · ') + (snapshot.paused ? ' · routing paused' : '');
}

export function menuModel(snapshot: Snapshot): MenuItemModel[] {
  const pending = pendingCount(snapshot);
  const items: MenuItemModel[] = [{ kind: 'text', label: statusLine(snapshot) }, { kind: 'separator' }];
  if (snapshot.sessions.length === 0) items.push({ kind: 'text', label: 'No agent sessions' });
  for (const session of snapshot.sessions) {
    const waiting = session.pendingDiffs > 0 ? ` (${session.pendingDiffs} pending)` : '';
    items.push({
      kind: 'submenu',
      label: `${sessionLabel(session)} → ${boundLabel(session.editorId, snapshot.editors)}${waiting}`,
      items: [
        {
          kind: 'choice',
          label: automaticLabel(session, snapshot.editors),
          checked: isAutomatic(session),
          action: { kind: 'unpin', sessionId: session.id },
        },
        ...rebindChoices(session, snapshot.editors).map((choice): MenuItemModel => ({
          kind: 'choice',
          label: choice.editorId !== null && session.cwd !== null && !choice.matchesFolder ? `${choice.label} (not this folder)` : choice.label,
          checked: !isAutomatic(session) && choice.current,
          action: { kind: 'bind', sessionId: session.id, editorId: choice.editorId },
        })),
      ],
    });
  }
  items.push(
    { kind: 'separator' },
    { kind: 'action', label: pending > 0 ? `Review pending edits (${pending})…` : 'Review pending edits…', action: { kind: 'openReview' } },
    { kind: 'action', label: 'Sessions and editors…', action: { kind: 'openMain' } },
    { kind: 'action', label: 'Settings…', action: { kind: 'openSettings' } },
    { kind: 'separator' },
    snapshot.paused
      ? { kind: 'action', label: 'Resume routing', action: { kind: 'setPaused', paused: false } }
      : { kind: 'action', label: 'Pause routing', action: { kind: 'setPaused', paused: true } },
    { kind: 'separator' },
    { kind: 'action', label: 'Restart Patchbay (agents stay connected)', action: { kind: 'restart' } },
    { kind: 'action', label: 'Quit Patchbay', action: { kind: 'quit' } },
  );
  return items;
}

/** What the tray icon shows besides its menu. */
export interface TrayBadge {
  pending: number;
  tooltip: string;
}

export function trayBadge(snapshot: Snapshot): TrayBadge {
  const pending = pendingCount(snapshot);
  const waiting = pending > 0 ? `${count(pending, 'edit')} waiting for review` : statusLine(snapshot);
  return { pending, tooltip: `Patchbay — ${waiting}` };
}

/** While the desktop app has lost its hub and is finding or starting one again (no Restart: no daemon answers to ask). */
export function reconnectingMenu(why: string): MenuItemModel[] {
  return [
    { kind: 'text', label: 'Reconnecting to Patchbay…' },
    { kind: 'text', label: why },
    { kind: 'separator' },
    { kind: 'action', label: 'Quit Patchbay', action: { kind: 'quit' } },
  ];
}
