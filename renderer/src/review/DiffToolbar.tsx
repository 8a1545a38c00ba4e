// Above the diff: where the review is ("Change 2 of 3"), the file's +/− line counts, moving
// between changes, and how the diff is laid out (unified or side by side, soft wrap).
import type { ChangeSummary } from './changes-state.ts';
import { positionText } from './inbox-model.ts';
import type { LayoutChoice } from './layout.ts';
import type { ReviewLayout } from './useReviewLayout.ts';

interface Props {
  /** null until the diff editor has loaded. */
  summary: ChangeSummary | null;
  layout: ReviewLayout;
  /** Only the proposal is shown (the old contents are unknown): no changes, no layouts. */
  proposalOnly: boolean;
  step(direction: 1 | -1): void;
}

const LAYOUT_LABELS: Record<LayoutChoice, string> = { auto: 'Automatic', split: 'Side by side', unified: 'Unified' };

export function DiffToolbar({ summary, layout, proposalOnly, step }: Props) {
  return (
    <div className="diff-toolbar">
      {!proposalOnly && summary !== null && (
        <>
          {/* Announced as n and p move through the changes. */}
          <span className="change-position" aria-live="polite">
            {positionText(summary)}
          </span>
          <span className="change-counts" title={`${summary.added} lines added, ${summary.removed} removed`}>
            <span className="plus">+{summary.added}</span> <span className="minus">−{summary.removed}</span>
            <span className="visually-hidden"> lines</span>
          </span>
          <button type="button" onClick={() => step(-1)} disabled={summary.total === 0} aria-keyshortcuts="p">
            Previous change
          </button>
          <button type="button" onClick={() => step(1)} disabled={summary.total === 0} aria-keyshortcuts="n">
            Next change
          </button>
        </>
      )}
      <span className="spacer" />
      {!proposalOnly && (
        <label className="toolbar-field">
          Layout{' '}
          <select value={layout.choice} onChange={(e) => layout.choose(e.target.value as LayoutChoice)} aria-keyshortcuts="v">
            {(['auto', 'split', 'unified'] as const).map((choice) => (
              <option key={choice} value={choice}>
                {choice === 'auto' ? `${LAYOUT_LABELS.auto} (${LAYOUT_LABELS[layout.layout].toLowerCase()})` : LAYOUT_LABELS[choice]}
              </option>
            ))}
          </select>
        </label>
      )}
      <label className="toolbar-field">
        <input type="checkbox" checked={layout.wrap} onChange={(e) => layout.setWrap(e.target.checked)} /> Wrap lines
      </label>
    </div>
  );
}

/** What each side of the diff is, above it (the editors carry the same names for screen readers). */
export function SideNames({ layout, isNew, names }: { layout: 'split' | 'unified' | 'proposal'; isNew: boolean; names?: { a: string; b: string } }) {
  const a = names?.a ?? (isNew ? 'On disk: nothing yet' : 'On disk');
  const b = names?.b ?? 'Proposed (editable)';
  if (layout === 'proposal') return null;
  if (layout === 'unified') {
    return (
      <div className="diff-columns unified" aria-hidden="true">
        <span>
          <span className="minus">−</span> {a} · <span className="plus">+</span> {b}
        </span>
      </div>
    );
  }
  return (
    <div className="diff-columns" aria-hidden="true">
      <span>{a}</span>
      <span>{b}</span>
    </div>
  );
}
