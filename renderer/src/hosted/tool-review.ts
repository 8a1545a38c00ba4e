// A write or edit card's review, in words: the one place the card reads a decision, so what
// the inbox records of it (outcome, where, which changes were taken, the person's own edits)
// is told the same way everywhere.
import type { DecisionRecord } from '../../../src/api/types.ts';
import { whatWasWritten } from '../../../src/review/decision-words.ts';

const WHERE: Record<DecisionRecord['by'], string> = {
  editor: 'in the editor',
  patchbay: 'in Patchbay',
  agent: 'by pi (a newer proposal replaced it)',
  shutdown: 'as Patchbay stopped',
  crash: 'by nobody (Patchbay stopped unexpectedly)',
  'review-after': 'at once, to be reviewed after',
};

/** What a review after made of a written edit: " · kept", " · change 2 undone"… */
function afterwards(record: DecisionRecord): string {
  if (record.status === 'undone') return ' · undone since';
  const undone = record.undone?.length ? ` · ${record.undone.length === 1 ? 'change' : 'changes'} ${record.undone.join(', ')} undone since` : '';
  return `${record.status === 'kept' ? ' · kept' : ''}${undone}`;
}

/** "Accepted in Patchbay: 2 of 3 changes, edited by you", "Rejected in the editor: not written"… */
export function reviewText(record: DecisionRecord): string {
  switch (record.outcome) {
    case 'accepted':
      return `Accepted ${WHERE[record.by]}${whatWasWritten(record, ': ')}${afterwards(record)}`;
    case 'applied':
      return `Written at once, to be reviewed after${afterwards(record)}`;
    case 'rejected':
      return record.by === 'agent' ? 'Replaced by a newer proposal: not written' : `Rejected ${WHERE[record.by]}: not written`;
    case 'withdrawn':
      return 'Withdrawn: pi went away before a decision; not written';
    case 'interrupted':
      return 'Interrupted: Patchbay stopped before a decision; pi-ide may have written it unreviewed';
  }
}
