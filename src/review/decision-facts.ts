// What a decision amounts to, in facts and in words: which of the proposal's changes were taken,
// whether the person typed anything, and what the agent is told beside FILE_SAVED / DIFF_REJECTED.
// Pure: the inbox calls it when a diff is settled.
import type { ChangeChoices, DiffDetail, LineNote } from '../api/types.ts';
import type { Decision } from './inbox.ts';
import { HubError } from '../api/types.ts';
import { applyChoices, changeModel, choicesIn, linesText, type ChangeModel } from './changes.ts';

/**
 * Above this (original, proposal and result together, in characters) an editor's saved text is
 * not compared change by change: the comparison would sit on the way of the agent's answer.
 */
export const CHOICES_SCAN_CHARS = 512 * 1024;

export interface DecisionInput {
  path: string;
  /** The file on disk when the diff arrived ('' for a new file); null when unknown (too large). */
  original: string | null;
  proposal: string;
  accepted: boolean;
  /** What the agent is told to write (accepted). */
  written?: string;
  /** The changes the person took (0-based), when they decided change by change. */
  taken?: readonly number[];
  reason?: string;
  /** The person's notes on lines of `notedText` (what is written, or the proposal refused). */
  notes?: readonly LineNote[];
  notedText?: string;
  /** Where: a person in Patchbay (explicit choices) or an editor (its saved text, compared). */
  by: 'person' | 'editor' | 'other';
}

export interface DecisionFacts {
  edited: boolean;
  changes?: ChangeChoices;
  reason?: string;
  notes?: LineNote[];
  told?: string;
}

/** The longest stretch of a line quoted back to the agent with a note on it. */
const QUOTE_CHARS = 120;

/**
 * The person's notes as the agent reads them, each quoting its line of `text`:
 * `Their notes: line 12 ("return sum;"): "use reduce".` ('' without notes).
 */
export function notesWords(path: string, text: string, notes: readonly LineNote[] | undefined): string {
  if (notes === undefined || notes.length === 0) return '';
  const lines = text.split(/\r\n?|\n/);
  const one = (note: LineNote): string => {
    const line = lines[note.line - 1]?.trim();
    const quote = line === undefined || line === '' ? '' : ` ("${line.length > QUOTE_CHARS ? `${line.slice(0, QUOTE_CHARS)}…` : line}")`;
    return `line ${note.line}${quote}: ${quoted(note.text)}`;
  };
  return ` Their ${notes.length === 1 ? 'note' : 'notes'} on ${path}: ${notes.map(one).join('; ')}.`;
}

/** The text to write for `taken` (0-based) changes of the proposal; refuses what cannot be split. */
export function contentsForChoices(original: string | null, proposal: string, taken: readonly number[]): string {
  if (original === null) throw new HubError('changes can be taken one by one only when the file on disk is known (it was too large to keep, or could not be read)', 'invalid');
  const model = changeModel(original, proposal);
  const total = model.changes.length;
  const bad = taken.filter((i) => i < 0 || i >= total);
  if (bad.length > 0) throw new HubError(`the proposal has ${total} ${total === 1 ? 'change' : 'changes'}; there is no change ${bad.map((i) => i + 1).join(', ')}`, 'invalid');
  return applyChoices(model, new Set(taken));
}

function choicesOf(model: ChangeModel, taken: ReadonlySet<number>): ChangeChoices | undefined {
  const total = model.changes.length;
  if (taken.size === total || total === 0) return undefined;
  const all = model.changes.map((c) => c.index);
  return { total, accepted: all.filter((i) => taken.has(i)).map((i) => i + 1), rejected: all.filter((i) => !taken.has(i)).map((i) => i + 1) };
}

const quoted = (reason: string): string => `"${reason.replace(/\s+/g, ' ').trim()}"`;

/** The facts of a decision and the words for the agent. */
export function decisionFacts(input: DecisionInput): DecisionFacts {
  const reason = input.reason?.trim() || undefined;
  const notes = input.notes !== undefined && input.notes.length > 0 ? [...input.notes] : undefined;
  const because = `${reason === undefined ? '' : ` Their reason: ${quoted(reason)}.`}${notesWords(input.path, input.notedText ?? '', notes)}`;
  const words = { ...(reason ? { reason } : {}), ...(notes ? { notes } : {}) };
  const saysMore = reason !== undefined || notes !== undefined;
  if (!input.accepted) {
    return { edited: false, ...words, ...(saysMore ? { told: `Patchbay: the person rejected your edit of ${input.path}; the file is unchanged.${because}` } : {}) };
  }
  const written = input.written ?? input.proposal;
  if (written === input.proposal) {
    return { edited: false, ...words, ...(saysMore ? { told: `Patchbay: the person accepted your edit of ${input.path} as proposed.${because}` } : {}) };
  }
  const small = (input.original?.length ?? 0) + input.proposal.length + written.length <= CHOICES_SCAN_CHARS;
  const explicit = input.taken !== undefined;
  const model = input.original !== null && (explicit || small) ? changeModel(input.original, input.proposal) : null;
  let changes: ChangeChoices | undefined;
  let edited = true;
  if (model !== null) {
    const taken = explicit ? new Set(input.taken) : choicesIn(model, written);
    if (taken !== null) {
      changes = choicesOf(model, taken);
      edited = explicit ? applyChoices(model, taken) !== written : false;
    }
  }
  // An editor's own edits are its business (its answer goes to the agent as it sent it); what a
  // person kept of the agent's changes, in Patchbay or in the editor, the agent must hear.
  if (changes === undefined && input.by === 'editor') return { edited, ...words };
  const parts: string[] = [];
  if (changes !== undefined && model !== null) {
    const rejected = changes.rejected.map((n) => model.changes[n - 1]!);
    const where = rejected.map((c) => `${c.index + 1} (${linesText(c.fromB, c.toB)} of your proposal)`);
    parts.push(
      `Patchbay: accepted ${changes.accepted.length} of ${changes.total} changes of your edit to ${input.path}; ` +
        `${rejected.length === 1 ? 'change' : 'changes'} ${where.join(', ')} rejected: the file keeps its original lines there.`,
    );
  }
  if (edited) parts.push(`${parts.length === 0 ? 'Patchbay: the person' : 'The person also'} edited your proposal for ${input.path} before it was written.`);
  // pi's own tool result says only "Successfully wrote to …": the agent must not assume its text.
  parts.push(`The file now differs from your proposal: read ${input.path} again before you change it further.${because}`);
  return { edited, ...(changes ? { changes } : {}), ...words, told: parts.join(' ') };
}

/** An accept as a command asked for it: `changes` (1-based) picks the proposal's changes to write. */
export function acceptDecision(
  pending: Pick<DiffDetail, 'isNew' | 'oldContents' | 'newContents'>,
  contents: string | undefined,
  changes: readonly number[] | undefined,
  reason: string | undefined,
  notes?: LineNote[],
): Decision {
  const taken = changes === undefined ? undefined : [...new Set(changes)].map((n) => n - 1);
  // Computed even beside the person's own text: it refuses numbers the proposal has no change for.
  const chosen = taken === undefined ? undefined : contentsForChoices(pending.isNew ? '' : pending.oldContents, pending.newContents, taken);
  const written = contents ?? chosen;
  return {
    outcome: 'accept',
    ...(written !== undefined ? { contents: written } : {}),
    ...(taken !== undefined ? { taken } : {}),
    ...(reason !== undefined ? { reason } : {}),
    ...(notes !== undefined && notes.length > 0 ? { notes } : {}),
  };
}
