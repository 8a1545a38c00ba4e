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
};

/** "Accepted in Patchbay: 2 of 3 changes, edited by you", "Rejected in the editor: not written"… */
export function reviewText(record: DecisionRecord): string {
  switch (record.outcome) {
    case 'accepted':
      return `Accepted ${WHERE[record.by]}${whatWasWritten(record, ': ')}`;
    case 'rejected':
      return record.by === 'agent' ? 'Replaced by a newer proposal: not written' : `Rejected ${WHERE[record.by]}: not written`;
    case 'withdrawn':
      return 'Withdrawn: pi went away before a decision; not written';
    case 'interrupted':
      return 'Interrupted: Patchbay stopped before a decision; pi-ide may have written it unreviewed';
  }
}
