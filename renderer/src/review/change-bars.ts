// What the per-change review looks like in the editors: a bar above each change ("Change 2 of
// 3 · +3 −1", Accept / Reject), the current change's lines marked, a rejected change's lines
// shown as kept from disk. The proposal side carries the buttons; in a side-by-side view the
// disk side gets a matching bar so both sides' changes start level.
import { RangeSetBuilder } from '@codemirror/state';
import type { EditorState, Extension, TransactionSpec } from '@codemirror/state';
import { Decoration, EditorView, WidgetType } from '@codemirror/view';
import type { DecorationSet } from '@codemirror/view';
import { decideChange, getReviewChanges, reviewChangesField } from './changes-state.ts';
import type { ChangeDecision, ReviewChange } from './changes-state.ts';

export type BarSide = 'proposal' | 'disk';

/**
 * What a bar on the proposal side offers: nothing, the review's Accept / Reject, or (a written
 * edit, reviewed after) "Undo change 2 of 3" for each change not undone yet.
 */
export type BarControls = 'none' | 'review' | { undo(index: number): void; undone: ReadonlySet<number>; busy: boolean };

interface BarFacts {
  index: number;
  total: number;
  added: number;
  removed: number;
  decision: ChangeDecision;
  current: boolean;
}

const STATE_TEXT: Record<ChangeDecision, string> = {
  pending: '',
  accepted: '✓ accepted',
  rejected: 'rejected: the text on disk stays',
};

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

class ChangeBar extends WidgetType {
  constructor(
    readonly facts: BarFacts,
    readonly side: BarSide,
    readonly controls: BarControls,
  ) {
    super();
  }

  private get undone(): boolean {
    return typeof this.controls === 'object' && this.controls.undone.has(this.facts.index);
  }

  override eq(other: ChangeBar): boolean {
    const a = this.facts;
    const b = other.facts;
    return (
      this.side === other.side &&
      this.controls === other.controls &&
      this.undone === other.undone &&
      a.index === b.index &&
      a.total === b.total &&
      a.added === b.added &&
      a.removed === b.removed &&
      a.decision === b.decision &&
      a.current === b.current
    );
  }

  override get estimatedHeight(): number {
    return 28;
  }

  toDOM(view: EditorView): HTMLElement {
    const { index, total, added, removed, decision, current } = this.facts;
    const name = `change ${index + 1} of ${total}`;
    const bar = element('div', `cm-change-bar is-${decision}${current ? ' is-current' : ''}${this.undone ? ' is-undone' : ''}`);
    bar.dataset.change = String(index + 1);
    const title = bar.appendChild(element('span', 'cm-change-title', `Change ${index + 1} of ${total}`));
    if (current) title.appendChild(element('span', 'visually-hidden', ' (current)'));
    if (this.side === 'disk') {
      // The proposal side's bar says it all to a screen reader; this one only keeps both sides level.
      bar.setAttribute('aria-hidden', 'true');
      if (removed > 0) bar.appendChild(element('span', 'cm-change-count minus', `−${removed}`));
      return bar;
    }
    bar.setAttribute('role', 'group');
    bar.setAttribute('aria-label', name[0]!.toUpperCase() + name.slice(1));
    const counts = bar.appendChild(element('span', 'cm-change-count'));
    counts.title = `${added} ${added === 1 ? 'line' : 'lines'} added, ${removed} removed`;
    if (added > 0) counts.append(element('span', 'plus', `+${added}`));
    if (added > 0 && removed > 0) counts.append(' ');
    if (removed > 0) counts.append(element('span', 'minus', `−${removed}`));
    if (decision !== 'pending') bar.appendChild(element('span', 'cm-change-state', STATE_TEXT[decision]));
    if (this.undone) bar.appendChild(element('span', 'cm-change-state', 'undone: the file has its old lines here again'));
    if (this.controls === 'none') return bar;
    if (typeof this.controls === 'object') {
      if (this.undone) return bar;
      const { undo, busy } = this.controls;
      const b = bar.appendChild(element('span', 'cm-change-buttons')).appendChild(element('button', 'cm-change-undo', `Undo ${name}`));
      b.type = 'button';
      b.disabled = busy;
      b.title = 'Take this change back in the file as it is now';
      b.addEventListener('click', () => undo(index));
      return bar;
    }
    const buttons = bar.appendChild(element('span', 'cm-change-buttons'));
    const button = (verb: 'Accept' | 'Reject', outcome: 'accepted' | 'rejected', hint: string): void => {
      const b = buttons.appendChild(element('button', `cm-change-${outcome === 'accepted' ? 'accept' : 'reject'}`, verb));
      b.type = 'button';
      b.setAttribute('aria-label', `${verb} ${name}`);
      b.setAttribute('aria-pressed', String(decision === outcome));
      b.setAttribute('aria-keyshortcuts', outcome === 'accepted' ? 'y' : 'x');
      b.title = hint;
      b.addEventListener('click', () => applyAndReveal(view, decideChange(view.state, index, outcome), 'nearest'));
    };
    button('Accept', 'accepted', decision === 'rejected' ? 'Bring this change back (y)' : 'Keep this change (y)');
    button('Reject', 'rejected', 'Keep the text on disk here instead (x)');
    return bar;
  }

  override ignoreEvent(): boolean {
    // The buttons handle their own clicks; the editor must not move its cursor for them.
    return true;
  }
}

/**
 * Applies a review command and scrolls to where it left the cursor (the change it made current):
 * centred for keys, only as far as needed after a click (the page must not jump under the pointer).
 */
export function applyAndReveal(view: EditorView, spec: TransactionSpec | null, y: 'center' | 'nearest' = 'center'): void {
  if (spec === null) return;
  view.dispatch(spec);
  if (spec.selection !== undefined) view.dispatch({ effects: EditorView.scrollIntoView(view.state.selection.main.head, { y }) });
}

const currentLine = Decoration.line({ class: 'cm-currentChange' });
const rejectedLine = Decoration.line({ class: 'cm-rejectedChange' });
const acceptedLine = Decoration.line({ class: 'cm-acceptedChange' });

/** Whole lines in [from, to) of the proposal editor (a change's region starts and ends at line starts). */
function linesIn(state: EditorState, from: number, to: number): number {
  if (to <= from) return 0;
  return state.doc.lineAt(to - 1).number - state.doc.lineAt(from).number + 1;
}

function facts(state: EditorState, side: BarSide, change: ReviewChange, total: number, current: number | null): BarFacts {
  const { index, removed, decision } = change;
  // What the change adds as the proposal editor holds it now: the person's typing counts, as in the top's count.
  const added = side === 'proposal' && decision !== 'rejected' ? linesIn(state, change.from, change.to) : change.added;
  return { index, total, added, removed, decision, current: index === current };
}

function build(state: EditorState, side: BarSide, controls: BarControls): DecorationSet {
  const value = getReviewChanges(state);
  const builder = new RangeSetBuilder<Decoration>();
  if (value === null) return builder.finish();
  const total = value.changes.length;
  for (const change of value.changes) {
    const [from, to] = side === 'proposal' ? [change.from, change.to] : [change.fromA, change.toA];
    const start = state.doc.lineAt(from).from;
    const bar = new ChangeBar(facts(state, side, change, total, value.current), side, controls);
    if (from === to && start > 0) {
      // No lines on this side (lines removed, or added on the other): below the line before, not
      // above the next. The merge view lines both sides up by the top of the chunk's next line,
      // and a bar above it counted as the chunk's would push this side one bar lower than the other.
      builder.add(start - 1, start - 1, Decoration.widget({ widget: bar, block: true, side: 2 }));
    } else {
      // Above the change, and above the deleted lines a unified view draws there (side -1).
      builder.add(start, start, Decoration.widget({ widget: bar, block: true, side: -2 }));
    }
    const mark =
      change.index === value.current
        ? currentLine
        : side !== 'proposal' || change.decision === 'pending'
          ? null
          : change.decision === 'rejected'
            ? rejectedLine
            : acceptedLine;
    if (mark === null) continue;
    for (let pos = start; pos < to; ) {
      const line = state.doc.lineAt(pos);
      builder.add(line.from, line.from, mark);
      pos = line.to + 1;
    }
  }
  return builder.finish();
}

/** The bars and line marks for one side, with the controls its bars offer. */
export function changeBars(side: BarSide, controls: BarControls): Extension {
  // Block widgets must come from state, not from a view plugin.
  return EditorView.decorations.compute([reviewChangesField], (state) => build(state, side, controls));
}
