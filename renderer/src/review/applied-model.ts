// Edits applied at once (review after), as the review lists them: grouped by the agent's turn (a
// hosted pi's run, a Claude Code prompt), oldest turn first, each turn's edits in the order they
// were made. Apart from any component.
import type { DiffSummary, Snapshot } from '../../../src/api/types.ts';
import { agentName, sessionLabel } from '../../../electron/shared/labels.ts';

export interface TurnGroup {
  key: string;
  /** The prompt that started it, or "prompt 3" / "turn 2". */
  label: string;
  startedAt: number;
  /** Who made the edits: "pi · proj". */
  who: string;
  diffs: DiffSummary[];
}

/** Applied edits waiting for review, by turn. */
export function appliedTurns(snapshot: Pick<Snapshot, 'diffs' | 'sessions'>): TurnGroup[] {
  const turns = new Map<string, TurnGroup>();
  for (const diff of snapshot.diffs) {
    if (diff.status !== 'applied') continue;
    const key = diff.turn?.key ?? `${diff.sessionId}#?`;
    let group = turns.get(key);
    if (group === undefined) {
      const session = snapshot.sessions.find((s) => s.id === diff.sessionId);
      group = {
        key,
        label: diff.turn?.label ?? 'earlier edits',
        startedAt: diff.turn?.startedAt ?? diff.createdAt,
        who: session === undefined ? `session ${diff.sessionId}` : sessionLabel(session),
        diffs: [],
      };
      turns.set(key, group);
    }
    group.diffs.push(diff);
  }
  for (const group of turns.values()) group.diffs.sort((a, b) => a.createdAt - b.createdAt || idNumber(a.id) - idNumber(b.id));
  return [...turns.values()].sort((a, b) => a.startedAt - b.startedAt);
}

function idNumber(id: string): number {
  return Number(id.replace(/^\D+/, '')) || 0;
}

/** "3 changes", "3 changes · 1 undone", "new file · 1 change". */
export function changesSummary(diff: Pick<DiffSummary, 'changes' | 'undone' | 'isNew'>): string {
  const n = diff.changes?.length ?? 0;
  const parts = [diff.isNew ? 'new file' : '', `${n} ${n === 1 ? 'change' : 'changes'}`, diff.undone?.length ? `${diff.undone.length} undone` : ''];
  return parts.filter((p) => p !== '').join(' · ');
}

/** What the agent is called in a group's words ("pi", "Claude Code"). */
export function agentOfKind(kind: 'pi' | 'claude' | 'unknown'): string {
  return agentName(kind);
}
