// The review inbox's rules, apart from any component: grouping, order, what is selected
// after a decision, what an accept sends.
import type { DiffSummary, Snapshot, SessionView } from '../../../src/api/types.ts';
import { boundLabel, agentName, sessionLabel } from '../../../electron/shared/labels.ts';
import type { ChangeSummary } from './changes-state.ts';

export interface SessionGroup {
  sessionId: string;
  /** null when the session has already gone (its diffs are about to be withdrawn). */
  session: SessionView | null;
  title: string;
  folder: string | null;
  agent: string;
  editor: string;
  /** Newest first. */
  diffs: DiffSummary[];
}

/** Pending diffs grouped by session; groups and diffs newest first. */
export function pendingGroups(snapshot: Pick<Snapshot, 'diffs' | 'sessions' | 'editors'>): SessionGroup[] {
  const bySession = new Map<string, DiffSummary[]>();
  for (const diff of snapshot.diffs) {
    if (diff.status !== 'pending') continue;
    const list = bySession.get(diff.sessionId) ?? [];
    list.push(diff);
    bySession.set(diff.sessionId, list);
  }
  const groups = [...bySession].map(([sessionId, diffs]): SessionGroup => {
    const session = snapshot.sessions.find((s) => s.id === sessionId) ?? null;
    diffs.sort((a, b) => b.createdAt - a.createdAt || a.id.localeCompare(b.id));
    return {
      sessionId,
      session,
      title: session === null ? `session ${sessionId} (gone)` : sessionLabel(session),
      folder: session?.cwd ?? null,
      agent: session === null ? 'agent' : session.clientName ?? agentName(session.kind),
      editor: boundLabel(session?.editorId ?? diffs[0]?.editorId ?? null, snapshot.editors),
      diffs,
    };
  });
  return groups.sort((a, b) => (b.diffs[0]?.createdAt ?? 0) - (a.diffs[0]?.createdAt ?? 0));
}

/** Diff ids in the order the list shows them. */
export function listedIds(groups: readonly SessionGroup[]): string[] {
  return groups.flatMap((g) => g.diffs.map((d) => d.id));
}

export function pendingTotal(groups: readonly SessionGroup[]): number {
  return groups.reduce((n, g) => n + g.diffs.length, 0);
}

/** The next (1) or previous (-1) diff, staying put at either end. */
export function step(ids: readonly string[], current: string | null, direction: 1 | -1): string | null {
  if (ids.length === 0) return null;
  const at = current === null ? -1 : ids.indexOf(current);
  if (at < 0) return direction === 1 ? ids[0]! : ids[ids.length - 1]!;
  return ids[Math.min(ids.length - 1, Math.max(0, at + direction))]!;
}

/**
 * What stays selected when the list changes: the same diff while it is pending; once it
 * is decided, the one that followed it (or preceded it, at the end of the list).
 */
export function keepSelection(previous: readonly string[], next: readonly string[], current: string | null): string | null {
  if (current !== null && next.includes(current)) return current;
  if (next.length === 0) return null;
  const at = current === null ? -1 : previous.indexOf(current);
  if (at < 0) return next[0]!;
  for (const id of previous.slice(at + 1)) if (next.includes(id)) return id;
  for (const id of previous.slice(0, at).reverse()) if (next.includes(id)) return id;
  return next[0]!;
}

/** Accept sends the person's edits only when there are some. */
export function acceptParams(id: string, proposed: string, edited: string | null): { id: string; contents?: string } {
  return edited === null || edited === proposed ? { id } : { id, contents: edited };
}

export function ageText(createdAt: number, now: number): string {
  const s = Math.max(0, Math.round((now - createdAt) / 1000));
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  return `${Math.round(m / 60)} h ago`;
}

/** What the review shows: a pending diff, or a decided one from the history. */
export type ReviewTarget = { kind: 'pending'; id: string | null } | { kind: 'decided'; id: string };

const DECIDED = 'history/';

/** The route id that opens a decided diff (`#/review/history/<id>`). */
export function decidedRouteId(id: string): string {
  return `${DECIDED}${id}`;
}

export function reviewTarget(routeId: string | null): ReviewTarget {
  if (routeId?.startsWith(DECIDED) && routeId.length > DECIDED.length) return { kind: 'decided', id: routeId.slice(DECIDED.length) };
  return { kind: 'pending', id: routeId };
}

/** The per-change facts Accept depends on (from the diff editor). */
export interface ChoiceFacts {
  total: number;
  rejected: number;
  handEdited: boolean;
  sameAsDisk: boolean;
}

/** What Accept will write, said next to it; null when it writes the proposal as sent. */
export function acceptOutcome(facts: ChoiceFacts | null): string | null {
  if (facts === null) return null;
  if (facts.sameAsDisk) return 'Every change is rejected: nothing to write. Reject tells the agent no.';
  const edits = facts.handEdited ? ' and your edits' : '';
  if (facts.rejected > 0) return `Accept writes ${facts.total - facts.rejected} of ${facts.total} changes${edits}.`;
  return edits === '' ? null : `Accept writes the proposal with your edits.`;
}

/** The notice's detail for an accept made here ("2 of 3 changes, with your edits"). */
export function acceptNote(facts: ChoiceFacts | null): string | undefined {
  if (facts === null) return undefined;
  const edits = facts.handEdited ? 'with your edits' : '';
  if (facts.rejected > 0) return `${facts.total - facts.rejected} of ${facts.total} changes${edits && `, ${edits}`}`;
  return edits || undefined;
}

/** Where the review of a diff is: "Change 2 of 3 · 1 rejected". */
export function positionText(summary: ChangeSummary): string {
  if (summary.total === 0) return 'No changes';
  const where = summary.current === null ? `${summary.total} changes` : `Change ${summary.current + 1} of ${summary.total}`;
  const decided = [
    summary.accepted > 0 ? `${summary.accepted} accepted` : '',
    summary.rejected > 0 ? `${summary.rejected} rejected` : '',
  ].filter((s) => s !== '');
  return decided.length === 0 ? where : `${where} · ${decided.join(', ')}`;
}
