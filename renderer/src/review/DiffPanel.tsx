// One pending diff: what it is, the diff with a decision per change, and the decision: one
// primary button (Accept, or "Apply 2 of 3 changes" once every change has a decision), Reject,
// and words for the agent. Decisions go through the waiting line (Undo) before the agent hears them.
import { useEffect, useRef, useState } from 'react';
import type { DiffDetail, DiffSummary, LineNote } from '../../../src/api/types.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { LoadBoundary } from '../ui/LoadBoundary.tsx';
import { LineNotes } from './LineNotes.tsx';
import { shownPath } from './decision-text.ts';
import { DiffToolbar, SideNames } from './DiffToolbar.tsx';
import { acceptParams, primaryDecision } from './inbox-model.ts';
import type { ChoiceFacts, SessionGroup } from './inbox-model.ts';
import { MergeEditor } from './lazy-merge-editor.ts';
import type { EditorReport, MergeEditorHandle } from './MergeEditor.tsx';
import type { ReviewCommand } from './shortcuts.ts';
import { useDiffDetail } from './useDiffDetail.ts';
import type { ReviewLayout } from './useReviewLayout.ts';
import type { DecisionRequest } from './useScheduledDecisions.ts';

const PENDING_SIDES = { a: 'contents on disk', b: 'proposed contents (editable)' };

interface Props {
  diff: DiffSummary;
  group: SessionGroup;
  layout: ReviewLayout;
  /** The panel registers how it runs keyboard commands; the view owns the key listener. */
  bindCommands(run: ((command: ReviewCommand) => void) | null): void;
  /** A decision, to be sent once its few seconds to undo are over. */
  schedule(request: DecisionRequest): void;
  /** The proposal editor's text after each change, and whether the person typed it. */
  onDraft(id: string, path: string, text: string, typed: boolean): void;
}

export function DiffPanel({ diff, group, ...rest }: Props) {
  const state = useDiffDetail(diff.id);
  const file = shownPath(diff.path, group.folder);
  return (
    <section className="diff-panel" aria-labelledby="diff-title">
      <header className="diff-header">
        <h2 id="diff-title" title={diff.path}>
          {file}
        </h2>
        <p className="meta">
          {diff.tool} from {group.agent} in {group.folder ?? 'an unknown folder'} · served by {group.editor}
          {diff.inEditor && ' · open in the editor too'}
        </p>
        {diff.remote !== undefined && (
          <p className="meta">
            {diff.remote.mapped
              ? `From ${diff.remote.name}, where it is ${diff.remote.path}`
              : `On ${diff.remote.name} only (no map covers it): reviewed here, never offered to an editor on this machine`}
          </p>
        )}
      </header>
      {state.status === 'loading' && <p className="empty">Loading the proposed contents…</p>}
      {state.status === 'failed' && <ErrorText>{`Could not load this diff: ${state.error}`}</ErrorText>}
      {state.status === 'ready' && <DiffBody key={diff.id} detail={state.detail} file={file} {...rest} />}
    </section>
  );
}

function DiffBody({ detail, file, layout, bindCommands, schedule, onDraft }: { detail: DiffDetail; file: string } & Omit<Props, 'diff' | 'group'>) {
  const editor = useRef<MergeEditorHandle>(null);
  const primaryButton = useRef<HTMLButtonElement>(null);
  const [report, setReport] = useState<EditorReport | null>(null);
  const [reason, setReason] = useState('');
  const [notes, setNotes] = useState<LineNote[]>([]);
  const [cursorLine, setCursorLine] = useState<number | null>(null);
  const facts: ChoiceFacts | null = report && { ...report, ...report.summary };
  const primary = primaryDecision(facts);
  const touched = report !== null && (report.handEdited || report.summary.accepted + report.summary.rejected > 0);

  const onReport = (next: EditorReport): void => {
    // The moment the last change gets its decision, the one thing left to do gets the focus.
    const wasOpen = report !== null && report.summary.pending > 0;
    setReport(next);
    onDraft(detail.id, detail.path, next.text, next.handEdited);
    if (wasOpen && next.summary.pending === 0 && next.summary.total > 1) setTimeout(() => primaryButton.current?.focus(), 0);
  };

  const accept = (): void => {
    if (primary.kind !== 'accept') return;
    // The undecided changes go with it as proposed ("Apply 2 of 3 changes").
    const taken = primary.perChange && report !== null ? [...report.taken, ...report.undecided].sort((a, b) => a - b) : null;
    const params = acceptParams(detail.id, detail.newContents, report?.text ?? null, taken, reason, notes);
    const verb = primary.label === 'Accept' ? 'Accepting' : `Applying ${primary.label.slice('Apply '.length)} to`;
    const { id: _id, ...words } = params;
    schedule({ ids: [detail.id], outcome: 'accept', params: words, verb, what: file });
  };
  const reject = (): void => {
    const why = reason.trim();
    schedule({ ids: [detail.id], outcome: 'reject', params: { ...(why === '' ? {} : { reason: why }), ...(notes.length > 0 ? { notes } : {}) }, verb: 'Rejecting', what: file });
  };

  const runRef = useRef<(c: ReviewCommand) => void>(() => {});
  runRef.current = (c) => {
    if (c === 'accept') accept();
    else if (c === 'reject') reject();
    else if (c === 'nextChange') editor.current?.nextChange();
    else if (c === 'previousChange') editor.current?.previousChange();
    else if (c === 'acceptChange') editor.current?.decideCurrent('accepted');
    else if (c === 'rejectChange') editor.current?.decideCurrent('rejected');
  };
  useEffect(() => {
    bindCommands((c) => runRef.current(c));
    return () => bindCommands(null);
  }, [bindCommands]);

  // Without an old side (too large to keep, or it could not be read) only the proposal is shown.
  const proposalOnly = detail.tooLarge || detail.unreadable !== undefined;
  const note = primary.note;
  return (
    <>
      <div className="diff-state">
        {detail.isNew && <span className="tag">New file: it does not exist on disk yet</span>}
        {detail.tooLarge && <span className="tag warning">The file on disk is too large to show; only the proposal is shown</span>}
        {detail.unreadable !== undefined && (
          <span className="tag warning">The file on disk could not be read ({detail.unreadable}); only the proposal is shown</span>
        )}
        {report?.handEdited && <span className="tag accent">Edited by you: Accept saves your version</span>}
        {report !== null && !report.precise && (
          <span className="tag warning">The proposal differs too much from the file to split it into separate changes</span>
        )}
      </div>
      <DiffToolbar
        summary={report?.summary ?? null}
        layout={layout}
        proposalOnly={proposalOnly}
        step={(direction) => (direction === 1 ? editor.current?.nextChange() : editor.current?.previousChange())}
      />
      <SideNames layout={proposalOnly ? 'proposal' : layout.layout} isNew={detail.isNew} />
      <LoadBoundary what="the diff editor" className="merge-editor">
        <MergeEditor
          ref={editor}
          path={detail.path}
          original={proposalOnly ? null : (detail.oldContents ?? '')}
          proposed={detail.newContents}
          layout={layout.layout}
          wrap={layout.wrap}
          sideNames={PENDING_SIDES}
          onReport={onReport}
          onCursorLine={setCursorLine}
        />
      </LoadBoundary>
      <div className="actions">
        {primary.kind === 'reject' ? (
          <button ref={primaryButton} type="button" className="primary" onClick={reject} aria-keyshortcuts="r" aria-describedby="decision-note">
            Reject
          </button>
        ) : (
          <>
            <button
              ref={primaryButton}
              type="button"
              className="primary"
              onClick={accept}
              aria-keyshortcuts="a"
              aria-describedby={note === null ? undefined : 'decision-note'}
            >
              {primary.label}
            </button>
            <button type="button" onClick={reject} aria-keyshortcuts="r">
              Reject
            </button>
          </>
        )}
        <label className="reason-field">
          <span className="visually-hidden">Reason for the agent (optional)</span>
          <input
            type="text"
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="Reason for the agent (optional)"
            maxLength={2000}
            onKeyDown={(e) => {
              if (e.key === 'Escape') e.currentTarget.blur();
            }}
          />
        </label>
        <span className="spacer" />
        <button type="button" onClick={() => editor.current?.startOver()} disabled={!touched} title="Undo every per-change choice and edit">
          Start over
        </button>
      </div>
      {note !== null && (
        <p id="decision-note" className="accept-outcome">
          {note}
        </p>
      )}
      <LineNotes cursorLine={cursorLine} notes={notes} change={setNotes} />
    </>
  );
}
