// A decided diff from the history, read-only: what was decided, by whom and where, and the
// diff of what was written (or refused) against the file as it was on disk.
import { useEffect, useRef, useState } from 'react';
import type { DiffDetail } from '../../../src/api/types.ts';
import { clockTime } from '../../../src/api/traffic.ts';
import { whatWasWritten } from '../../../src/review/decision-words.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { LoadBoundary } from '../ui/LoadBoundary.tsx';
import type { ChangeSummary } from './changes-state.ts';
import { agentOf, offeredTo, whereDecided } from './decision-text.ts';
import { DiffToolbar, SideNames } from './DiffToolbar.tsx';
import { MergeEditor } from './lazy-merge-editor.ts';
import type { MergeEditorHandle } from './MergeEditor.tsx';
import type { ReviewCommand } from './shortcuts.ts';
import { useDiffDetail } from './useDiffDetail.ts';
import type { ReviewLayout } from './useReviewLayout.ts';

/** What the diff compares: on disk → written, on disk → proposed, proposed → written (the person's edits). */
export type Comparison = 'written' | 'proposed' | 'edits';

export function comparisons(detail: Pick<DiffDetail, 'finalContents' | 'newContents'>): Comparison[] {
  if (detail.finalContents === null) return ['proposed'];
  return detail.finalContents === detail.newContents ? ['written'] : ['written', 'proposed', 'edits'];
}

const COMPARISON_LABELS: Record<Comparison, string> = {
  written: 'On disk → written',
  proposed: 'On disk → proposed',
  edits: 'Proposed → written (the edits)',
};

function sides(detail: DiffDetail, comparison: Comparison): { original: string | null; proposed: string; names: { a: string; b: string } } {
  const before = detail.tooLarge || detail.unreadable !== undefined ? null : (detail.oldContents ?? '');
  const disk = detail.isNew ? 'on disk before: nothing' : detail.unreadable !== undefined ? 'on disk before: could not be read' : 'on disk before';
  if (comparison === 'edits') return { original: detail.newContents, proposed: detail.finalContents ?? '', names: { a: 'proposed', b: 'written' } };
  if (comparison === 'written') return { original: before, proposed: detail.finalContents ?? '', names: { a: disk, b: 'written' } };
  return { original: before, proposed: detail.newContents, names: { a: disk, b: 'proposed' } };
}

interface Props {
  id: string;
  layout: ReviewLayout;
  bindCommands(run: ((command: ReviewCommand) => void) | null): void;
  close(): void;
}

export function DecidedPanel({ id, layout, bindCommands, close }: Props) {
  const state = useDiffDetail(id);
  const snapshot = useSnapshot();
  // The record in the history is enough for the facts when the contents are not kept.
  const listed = snapshot.history.find((r) => r.id === id);
  const record = (state.status === 'ready' ? state.detail.decision : null) ?? listed ?? null;
  const path = state.status === 'ready' ? state.detail.path : (listed?.path ?? id);
  return (
    <section className="diff-panel decided" aria-labelledby="diff-title">
      <header className="diff-header">
        <div className="decided-heading">
          <h2 id="diff-title" title={path}>
            {path}
          </h2>
          <button type="button" onClick={close}>
            Back to the inbox
          </button>
        </div>
        {record !== null && (
          <>
            <p className="meta">
              <span className={`outcome ${record.outcome}`}>{record.outcome}</span> {whereDecided(record, snapshot)}
              {whatWasWritten(record, ', ')} at {clockTime(record.at).slice(0, 8)} · {record.tool} from {agentOf(record)} · offered to{' '}
              {offeredTo(record, snapshot)}
            </p>
            {record.reason !== undefined && <p className="meta">Your reason: {record.reason}</p>}
            {record.told !== undefined && (
              <p className="meta told">
                {agentOf(record)} was told: {record.told}
              </p>
            )}
          </>
        )}
      </header>
      {state.status === 'loading' && <p className="empty">Loading what was decided…</p>}
      {state.status === 'failed' && <ErrorText>{`What was decided could not be loaded: ${state.error}`}</ErrorText>}
      {state.status === 'ready' && state.detail.decision === null && (
        <p className="empty">This diff is still waiting for a decision.</p>
      )}
      {state.status === 'ready' && state.detail.decision !== null && state.detail.contentsNotKept !== undefined && (
        <p className="empty contents-not-kept">{`What was proposed and written is not kept: ${state.detail.contentsNotKept}.`}</p>
      )}
      {state.status === 'ready' && state.detail.decision !== null && state.detail.contentsNotKept === undefined && (
        <DecidedBody key={id} detail={state.detail} layout={layout} bindCommands={bindCommands} />
      )}
    </section>
  );
}

function DecidedBody({ detail, layout, bindCommands }: { detail: DiffDetail } & Pick<Props, 'layout' | 'bindCommands'>) {
  const options = comparisons(detail);
  const [comparison, setComparison] = useState<Comparison>(options[0]!);
  const [summary, setSummary] = useState<ChangeSummary | null>(null);
  const editor = useRef<MergeEditorHandle>(null);
  const shown = sides(detail, comparison);

  useEffect(() => {
    bindCommands((c) => {
      if (c === 'nextChange') editor.current?.nextChange();
      else if (c === 'previousChange') editor.current?.previousChange();
    });
    return () => bindCommands(null);
  }, [bindCommands]);

  return (
    <>
      {detail.unreadable !== undefined && (
        <div className="diff-state">
          <span className="tag warning">The file on disk could not be read ({detail.unreadable}); only what was proposed and written is shown</span>
        </div>
      )}
      {options.length > 1 && (
        <fieldset className="comparison">
          <legend>Show</legend>
          {options.map((option) => (
            <label key={option}>
              <input type="radio" name="comparison" checked={comparison === option} onChange={() => setComparison(option)} />{' '}
              {COMPARISON_LABELS[option]}
            </label>
          ))}
        </fieldset>
      )}
      <DiffToolbar
        summary={summary}
        layout={layout}
        proposalOnly={shown.original === null}
        step={(direction) => (direction === 1 ? editor.current?.nextChange() : editor.current?.previousChange())}
      />
      <SideNames layout={shown.original === null ? 'proposal' : layout.layout} isNew={detail.isNew} names={shown.names} />
      <LoadBoundary what="the diff editor" className="merge-editor">
        <MergeEditor
          ref={editor}
          path={detail.path}
          original={shown.original}
          proposed={shown.proposed}
          layout={layout.layout}
          wrap={layout.wrap}
          readOnly
          sideNames={shown.names}
          onReport={(report) => setSummary(report.summary)}
        />
      </LoadBoundary>
    </>
  );
}
