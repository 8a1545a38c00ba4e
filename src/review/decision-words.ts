// A decision in a few words, for every face (the CLI loads this on every call: no imports).
import type { DecisionRecord } from '../api/types.ts';

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
