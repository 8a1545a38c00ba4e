// A write or edit card's review, in words: the one place the card reads a decision, so what
// the inbox records of it (today: outcome, where, edited) is told the same way everywhere.
import type { DecisionRecord } from '../../../src/api/types.ts';

const WHERE: Record<DecisionRecord['by'], string> = {
  editor: 'in the editor',
  patchbay: 'in Patchbay',
  agent: 'by pi (a newer proposal replaced it)',
  shutdown: 'as Patchbay stopped',
};

/** "Accepted in Patchbay, with your edits", "Rejected in the editor", "Withdrawn: pi went away"… */
export function reviewText(record: Pick<DecisionRecord, 'outcome' | 'by' | 'edited'>): string {
  switch (record.outcome) {
    case 'accepted':
      return `Accepted ${WHERE[record.by]}${record.edited ? ', with your edits' : ''}`;
    case 'rejected':
      return record.by === 'agent' ? 'Replaced by a newer proposal: not written' : `Rejected ${WHERE[record.by]}: not written`;
    case 'withdrawn':
      return 'Withdrawn: pi went away before a decision; not written';
  }
}
