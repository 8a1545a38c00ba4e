// A notification when a proposed edit has waited a few seconds and no editor shows it: the
// desktop app's (Electron's Notification) and the browser page's (the Notification API, while
// the page is hidden). The timing rule is a pure function; the scheduler owns one timer and an
// injected clock.
import type { DiffSummary, Snapshot } from '../../src/api/types.ts';
import { awaitsDecision } from '../../src/review/decision-words.ts';
import { baseName, count, sessionLabel } from './labels.ts';

export const NOTIFY_AFTER_MS = 3000;

/**
 * Edits waiting for a decision: the tray's badge, the Review tab's count, the page title's (and the
 * CLI's). One decided a moment ago, on its way to the agent, no longer counts, everywhere at once.
 */
export function pendingCount(snapshot: Pick<Snapshot, 'diffs'>): number {
  return snapshot.diffs.filter(awaitsDecision).length;
}

export interface DueNotifications {
  /** Diffs to announce now, oldest first. */
  due: DiffSummary[];
  /** When the next not-yet-due diff becomes due; null when none is waiting. */
  nextCheckAt: number | null;
}

/** Diffs that are pending, not open in an editor, not announced yet, and waited `waitMs`. */
export function dueNotifications(
  diffs: readonly DiffSummary[],
  announced: ReadonlySet<string>,
  now: number,
  waitMs: number,
): DueNotifications {
  const due: DiffSummary[] = [];
  let nextCheckAt: number | null = null;
  for (const diff of diffs) {
    if (diff.status !== 'pending' || diff.inEditor || announced.has(diff.id)) continue;
    const dueAt = diff.createdAt + waitMs;
    if (dueAt <= now) due.push(diff);
    else nextCheckAt = nextCheckAt === null ? dueAt : Math.min(nextCheckAt, dueAt);
  }
  due.sort((a, b) => a.createdAt - b.createdAt);
  return { due, nextCheckAt };
}

export interface NotificationContent {
  title: string;
  body: string;
  /** The diff a click opens. */
  diffId: string;
}

export function notificationContent(due: readonly DiffSummary[], snapshot: Pick<Snapshot, 'sessions'>): NotificationContent {
  const first = due[0];
  if (first === undefined) throw new Error('notificationContent: no diff to announce');
  if (due.length > 1) {
    return { title: `${count(due.length, 'edit')} waiting for review`, body: due.map((d) => baseName(d.path)).join(', '), diffId: first.id };
  }
  const session = snapshot.sessions.find((s) => s.id === first.sessionId);
  const from = session === undefined ? '' : ` from ${sessionLabel(session)}`;
  return { title: 'Edit waiting for review', body: `${baseName(first.path)}${from}`, diffId: first.id };
}

export interface Notifier {
  show(content: { title: string; body: string }, onClick: () => void): void;
}

export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class DiffNotifications {
  readonly #announced = new Set<string>();
  #timer: unknown = null;
  #snapshot: Snapshot | null = null;
  #closed = false;

  constructor(
    private readonly notifier: Notifier,
    private readonly openDiff: (diffId: string) => void,
    private readonly clock: Clock = systemClock,
    private readonly waitMs = NOTIFY_AFTER_MS,
  ) {}

  update(snapshot: Snapshot): void {
    if (this.#closed) return;
    this.#snapshot = snapshot;
    const pending = new Set(snapshot.diffs.filter((d) => d.status === 'pending').map((d) => d.id));
    for (const id of this.#announced) if (!pending.has(id)) this.#announced.delete(id);
    this.#check();
  }

  #check(): void {
    const snapshot = this.#snapshot;
    if (snapshot === null) return;
    this.#clearTimer();
    const { due, nextCheckAt } = dueNotifications(snapshot.diffs, this.#announced, this.clock.now(), this.waitMs);
    if (due.length > 0) {
      for (const diff of due) this.#announced.add(diff.id);
      const content = notificationContent(due, snapshot);
      this.notifier.show(content, () => this.openDiff(content.diffId));
    }
    if (nextCheckAt !== null) {
      this.#timer = this.clock.setTimeout(() => {
        this.#timer = null;
        this.#check();
      }, Math.max(0, nextCheckAt - this.clock.now()));
    }
  }

  #clearTimer(): void {
    if (this.#timer !== null) this.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  close(): void {
    this.#closed = true;
    this.#clearTimer();
  }
}
