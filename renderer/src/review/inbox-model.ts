// The review inbox's rules, apart from any component: grouping, order, what is selected
// after a decision, what an accept sends.
import type { DiffSummary, LineNote, Snapshot, SessionView } from '../../../src/api/types.ts';
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
  /** Oldest first: it has waited longest. */
  diffs: DiffSummary[];
}

/** Pending diffs grouped by session; oldest first (groups by their oldest diff), as they have waited longest. */
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
    diffs.sort((a, b) => a.createdAt - b.createdAt || idNumber(a.id) - idNumber(b.id));
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
  return groups.sort((a, b) => (a.diffs[0]?.createdAt ?? 0) - (b.diffs[0]?.createdAt ?? 0));
}

function idNumber(id: string): number {
  return Number(id.replace(/^\D+/, '')) || 0;
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

/**
 * What Accept sends: the person's text when it is not the proposal, the changes taken when they
 * decided change by change (1-based, as the hub numbers them), their reason.
 */
export function acceptParams(
  id: string,
  proposed: string,
  edited: string | null,
  taken: readonly number[] | null,
  reason: string,
  notes: readonly LineNote[] = [],
): { id: string; contents?: string; changes?: number[]; reason?: string; notes?: LineNote[] } {
  return {
    id,
    ...(edited !== null && edited !== proposed ? { contents: edited } : {}),
    ...(taken !== null ? { changes: taken.map((i) => i + 1) } : {}),
    ...(reason.trim() !== '' ? { reason: reason.trim() } : {}),
    ...(notes.length > 0 ? { notes: [...notes] } : {}),
  };
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

/** The per-change facts the decision buttons depend on (from the diff editor). */
export interface ChoiceFacts {
  total: number;
  accepted: number;
  rejected: number;
  pending: number;
  handEdited: boolean;
  sameAsDisk: boolean;
}

/**
 * The one decision the panel offers first, and why. Once the person decides some changes, one
 * action takes the rest as proposed ("Apply 2 of 3 changes", or Accept when none is rejected), as
 * Zed's Accept All and VS Code's Keep do; with every change rejected there is nothing to write.
 */
export type Primary = { kind: 'accept'; label: string; note: string | null; perChange: boolean } | { kind: 'reject'; note: string };

export function primaryDecision(facts: ChoiceFacts | null): Primary {
  if (facts === null) return { kind: 'accept', label: 'Accept', note: null, perChange: false };
  const edits = facts.handEdited ? ' and your edits' : '';
  if (facts.sameAsDisk) return { kind: 'reject', note: 'Every change is rejected: nothing to write. Reject tells the agent no.' };
  const perChange = facts.accepted + facts.rejected > 0;
  if (!perChange) {
    return { kind: 'accept', label: 'Accept', note: facts.handEdited ? 'Accept writes the proposal with your edits.' : null, perChange };
  }
  const taken = facts.accepted + facts.pending;
  const rest = facts.pending === 0 ? '' : ` ${facts.pending === 1 ? 'The undecided change is' : `The ${facts.pending} undecided changes are`} taken as proposed.`;
  if (taken === 0 && !facts.handEdited) return { kind: 'reject', note: 'Every change is rejected: nothing to write. Reject tells the agent no.' };
  if (taken === facts.total) {
    const said = `${facts.handEdited ? 'Accept writes the proposal with your edits.' : ''}${rest}`.trim();
    return { kind: 'accept', label: 'Accept', note: said === '' ? null : said, perChange };
  }
  const apply = `Apply ${taken} of ${facts.total} ${facts.total === 1 ? 'change' : 'changes'}`;
  return { kind: 'accept', label: apply, note: `Writes the changes you took${edits}; the agent hears which it did not get.${rest}`, perChange };
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
