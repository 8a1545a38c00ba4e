// Per-change review of one proposal, as editor state: the agent's changes (chunks of the
// proposal against the file on disk), the person's choice for each, where each sits in the
// editable proposal now, and which one is current. The proposal editor's text is always what
// Accept sends: rejecting a change swaps the disk text in, accepting a rejected one swaps the
// proposal back, and the person's own typing stays wherever it was. Free of the DOM.
import { EditorState, StateEffect, StateField, Text } from '@codemirror/state';
import type { ChangeDesc, Extension, TransactionSpec } from '@codemirror/state';
import { changeModel, type ChangeModel } from '../../../src/review/changes.ts';

export { lineSeparatorOf } from '../../../src/review/changes.ts';

export type ChangeDecision = 'pending' | 'accepted' | 'rejected';

export interface ReviewChange {
  /** 0-based; people see `index + 1` "of" the total. */
  index: number;
  /** Where it is in the file on disk (that side never changes). */
  fromA: number;
  toA: number;
  /** Where it is in the proposal editor now: moves with the person's edits. */
  from: number;
  to: number;
  /** Where the agent's proposal has it. */
  proposalFrom: number;
  proposalTo: number;
  /** Lines the proposal adds and removes here. */
  added: number;
  removed: number;
  decision: ChangeDecision;
}

export interface ReviewChanges {
  /** The file on disk when the diff arrived, and the proposal as the agent sent it. */
  original: Text;
  proposal: Text;
  changes: readonly ReviewChange[];
  /** The change n/p, y and x act on; null when there is none. */
  current: number | null;
  /** false: the texts were too different to split, and one change covers the differing stretch. */
  precise: boolean;
}

export interface ChangeSummary {
  total: number;
  current: number | null;
  accepted: number;
  rejected: number;
  pending: number;
  /** Lines what Accept writes adds and removes (a rejected change adds and removes none). */
  added: number;
  removed: number;
}

/** Splits text into a document the way an editor with that separator does. */
export function toText(text: string, separator: string | undefined): Text {
  // Most files have no \r: one split on \n, not the editor's regex over a big file.
  if (separator === undefined && !text.includes('\r')) return Text.of(text.split('\n'));
  return EditorState.create({ doc: text, extensions: separator === undefined ? [] : EditorState.lineSeparator.of(separator) }).doc;
}

/** Where line `line` (0-based) starts, or the end for the line after the last. */
function lineStart(doc: Text, line: number): number {
  return line < doc.lines ? doc.line(line + 1).from : doc.length;
}

/**
 * The agent's changes (Patchbay's one change model, src/review/changes.ts), all pending. `model`:
 * the model of these very texts when it is at hand (a big file's is not worked out twice).
 */
export function buildChanges(original: Text, proposal: Text, model: ChangeModel = changeModel(original.toString(), proposal.toString())): ReviewChanges {
  const changes = model.changes.map((c, index): ReviewChange => {
    const from = lineStart(proposal, c.fromB);
    const to = lineStart(proposal, c.toB);
    return {
      index,
      fromA: lineStart(original, c.fromA),
      toA: lineStart(original, c.toA),
      from,
      to,
      proposalFrom: from,
      proposalTo: to,
      added: c.toB - c.fromB,
      removed: c.toA - c.fromA,
      decision: 'pending',
    };
  });
  return { original, proposal, changes, current: changes.length > 0 ? 0 : null, precise: model.precise };
}

const decideEffect = StateEffect.define<{ index: number; decision: ChangeDecision; from: number; to: number }>();
const setCurrentEffect = StateEffect.define<number | null>();
/** Replaces the whole value: the disk side follows the proposal side with it. */
export const mirrorChanges = StateEffect.define<ReviewChanges>();

function mapChange(change: ReviewChange, mapping: ChangeDesc): ReviewChange {
  // Typing at a change's first position belongs to it; typing at its end (the start of the
  // next, unchanged line) does not.
  const from = mapping.mapPos(change.from, -1);
  const to = Math.max(from, mapping.mapPos(change.to, -1));
  return from === change.from && to === change.to ? change : { ...change, from, to };
}

/** The change the position is in (its lines, or the point where a deletion was). */
export function changeAt(value: ReviewChanges, pos: number): ReviewChange | undefined {
  return value.changes.find((c) => (c.from === c.to ? pos === c.from : pos >= c.from && pos < c.to));
}

export const reviewChangesField = StateField.define<ReviewChanges | null>({
  create: () => null,
  update(value, tr) {
    if (value === null) return value;
    let next = value;
    let currentSet = false;
    for (const effect of tr.effects) if (effect.is(mirrorChanges)) return effect.value;
    if (tr.docChanged) {
      const changes = next.changes.map((c) => mapChange(c, tr.changes));
      if (changes.some((c, i) => c !== next.changes[i])) next = { ...next, changes };
    }
    for (const effect of tr.effects) {
      if (effect.is(decideEffect)) {
        const { index, decision, from, to } = effect.value;
        next = { ...next, changes: next.changes.map((c) => (c.index === index ? { ...c, decision, from, to } : c)) };
      } else if (effect.is(setCurrentEffect)) {
        next = { ...next, current: effect.value };
        currentSet = true;
      }
    }
    // Clicking or typing in a change makes it the current one.
    if (!currentSet && tr.selection !== undefined) {
      const at = changeAt(next, tr.state.selection.main.head);
      if (at !== undefined && at.index !== next.current) next = { ...next, current: at.index };
    }
    return next;
  },
});

/** The field, starting from `value` (a fresh build, or the state kept across a layout switch). */
export function reviewChanges(value: ReviewChanges): Extension {
  return reviewChangesField.init(() => value);
}

export function getReviewChanges(state: EditorState): ReviewChanges | null {
  return state.field(reviewChangesField, false) ?? null;
}

/** The next change still to decide after `index` (wrapping), else `index` itself. */
function nextPending(changes: readonly ReviewChange[], index: number): number {
  for (let step = 1; step <= changes.length; step++) {
    const candidate = changes[(index + step) % changes.length]!;
    if (candidate.decision === 'pending') return candidate.index;
  }
  return index;
}

/**
 * Accept or reject one change (accepting a rejected change brings the proposal's text back).
 * The current change then moves on to the next one still to decide. Null when nothing changes.
 */
export function decideChange(state: EditorState, index: number, decision: 'accepted' | 'rejected'): TransactionSpec | null {
  const value = getReviewChanges(state);
  const change = value?.changes[index];
  if (value === null || change === undefined || change.decision === decision) return null;
  const decided = value.changes.map((c) => (c.index === index ? { ...c, decision } : c));
  const current = nextPending(decided, index);
  const moveTo = current === index ? null : value.changes[current]!;
  let insert: Text | null = null;
  if (decision === 'rejected') insert = value.original.slice(change.fromA, change.toA);
  else if (change.decision === 'rejected') insert = value.proposal.slice(change.proposalFrom, change.proposalTo);
  const to = insert === null ? change.to : change.from + insert.length;
  const spec: TransactionSpec = {
    changes: insert === null ? undefined : { from: change.from, to: change.to, insert },
    effects: [decideEffect.of({ index, decision, from: change.from, to }), setCurrentEffect.of(current)],
    userEvent: decision === 'rejected' ? 'review.reject' : 'review.accept',
  };
  // The cursor follows the review to the next change (mapped through this change's swap).
  if (moveTo !== null) {
    const shift = insert === null ? 0 : insert.length - (change.to - change.from);
    const anchor = moveTo.from > change.from ? moveTo.from + shift : moveTo.from;
    spec.selection = { anchor };
  }
  return spec;
}

/** Make the next (1) or previous (-1) change current, wrapping; the cursor goes to it. */
export function stepChange(state: EditorState, direction: 1 | -1): TransactionSpec | null {
  const value = getReviewChanges(state);
  if (value === null || value.changes.length === 0) return null;
  const n = value.changes.length;
  const index = value.current === null ? (direction === 1 ? 0 : n - 1) : (value.current + direction + n) % n;
  return { selection: { anchor: value.changes[index]!.from }, effects: setCurrentEffect.of(index) };
}

/** The proposal with the person's per-change choices and nothing else. */
export function choicesText(value: ReviewChanges): Text {
  let text = value.proposal;
  // From the end, so earlier positions stay valid.
  for (const c of [...value.changes].reverse()) {
    if (c.decision === 'rejected') text = text.replace(c.proposalFrom, c.proposalTo, value.original.slice(c.fromA, c.toA));
  }
  return text;
}

/** Everything back as the agent proposed it: every choice and edit undone. */
export function startOver(state: EditorState): TransactionSpec | null {
  const value = getReviewChanges(state);
  if (value === null) return null;
  const fresh = buildChanges(value.original, value.proposal);
  return {
    changes: { from: 0, to: state.doc.length, insert: value.proposal },
    effects: mirrorChanges.of(fresh),
    selection: { anchor: fresh.changes[0]?.from ?? 0 },
  };
}

export function summarize(value: ReviewChanges | null): ChangeSummary {
  const changes = value?.changes ?? [];
  const count = (d: ChangeDecision): number => changes.filter((c) => c.decision === d).length;
  return {
    total: changes.length,
    current: value?.current ?? null,
    accepted: count('accepted'),
    rejected: count('rejected'),
    pending: count('pending'),
    added: changes.reduce((n, c) => n + (c.decision === 'rejected' ? 0 : c.added), 0),
    removed: changes.reduce((n, c) => n + (c.decision === 'rejected' ? 0 : c.removed), 0),
  };
}
