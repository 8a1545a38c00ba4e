// A decision in a few words, for every face (the CLI loads this on every call: no imports).
import type { DecisionRecord, DiffSummary } from '../api/types.ts';

/** Waiting for a person's decision: pending, and not decided a moment ago (that one is on its way). */
export function awaitsDecision(diff: Pick<DiffSummary, 'status' | 'deciding'>): boolean {
  return diff.status === 'pending' && diff.deciding === undefined;
}

/** "accepted in Patchbay, sent in 4 s": a decision on its way to the agent. */
export function decidingText(diff: Pick<DiffSummary, 'deciding'>, now: number): string {
  if (diff.deciding === undefined) return '';
  const seconds = Math.max(0, Math.ceil((diff.deciding.dueAt - now) / 1000));
  return `${diff.deciding.outcome === 'accept' ? 'accepted' : 'rejected'} in Patchbay, sent to the agent in ${seconds} s`;
}

/**
 * What was written beside the proposal: "2 of 3 changes", "edited by you", both, or nothing
 * (the proposal as it was, or nothing written), between `before` and `after`.
 */
export function whatWasWritten(record: DecisionRecord, before = '', after = ''): string {
  const parts = [
    record.changes ? `${record.changes.accepted.length} of ${record.changes.total} changes` : '',
    record.edited ? (record.by === 'editor' ? 'edited in the editor' : 'edited by you') : '',
  ].filter((p) => p !== '');
  return parts.length === 0 ? '' : `${before}${parts.join(', ')}${after}`;
}

const WHERE: Record<DecisionRecord['by'], string> = {
  patchbay: 'in Patchbay',
  editor: 'in the editor',
  agent: 'by the agent (a newer proposal replaced it)',
  shutdown: 'as Patchbay stopped',
  crash: 'by nobody: Patchbay stopped unexpectedly before a decision',
  'review-after': 'at once, to be reviewed after (its folder is reviewed after)',
};

/** "d7 was already accepted in the editor nvim-proj (2 of 3 changes) at 2026-11-24 14:02 UTC". */
export function alreadyDecided(record: DecisionRecord): string {
  const where = record.by === 'editor' && record.editorId !== null ? `in the editor ${record.editorId}` : WHERE[record.by];
  const when = new Date(record.at).toISOString().slice(0, 16).replace('T', ' ');
  return `${record.id} was already ${record.outcome} ${where}${whatWasWritten(record, ' (', ')')} at ${when} UTC`;
}
