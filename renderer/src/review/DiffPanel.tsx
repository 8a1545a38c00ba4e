// One pending diff: what it is, the diff with a decision per change, and the decision buttons.
import { useEffect, useRef, useState } from 'react';
import type { DecisionRecord, DiffDetail, DiffSummary } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { LoadBoundary } from '../ui/LoadBoundary.tsx';
import { DiffToolbar, SideNames } from './DiffToolbar.tsx';
import { acceptNote, acceptOutcome, acceptParams } from './inbox-model.ts';
import type { ChoiceFacts, SessionGroup } from './inbox-model.ts';
import { MergeEditor } from './lazy-merge-editor.ts';
import type { EditorReport, MergeEditorHandle } from './MergeEditor.tsx';
import type { ReviewCommand } from './shortcuts.ts';
import { useDiffDetail } from './useDiffDetail.ts';
import type { ReviewLayout } from './useReviewLayout.ts';

const PENDING_SIDES = { a: 'contents on disk', b: 'proposed contents (editable)' };

interface Props {
  diff: DiffSummary;
  group: SessionGroup;
  layout: ReviewLayout;
  /** The panel registers how it runs keyboard commands; the view owns the key listener. */
  bindCommands(run: ((command: ReviewCommand) => void) | null): void;
  /** After the person decided here: the record, and what only this window knows about it. */
  onDecided(record: DecisionRecord, note?: string): void;
  /** Just before this window sends its decision (the hub's event may come before the answer). */
  onDeciding(id: string, note?: string): void;
}

export function DiffPanel({ diff, group, layout, bindCommands, onDecided, onDeciding }: Props) {
  const state = useDiffDetail(diff.id);
  return (
    <section className="diff-panel" aria-labelledby="diff-title">
      <header className="diff-header">
        <h2 id="diff-title" title={diff.path}>
          {diff.path}
        </h2>
        <p className="meta">
          {diff.tool} from {group.agent} in {group.folder ?? 'an unknown folder'} · served by {group.editor}
          {diff.inEditor && ' · open in the editor too'}
        </p>
      </header>
      {state.status === 'loading' && <p className="empty">Loading the proposed contents…</p>}
      {state.status === 'failed' && <ErrorText>{`Could not load this diff: ${state.error}`}</ErrorText>}
      {state.status === 'ready' && (
        <DiffBody key={diff.id} detail={state.detail} layout={layout} bindCommands={bindCommands} onDecided={onDecided} onDeciding={onDeciding} />
      )}
    </section>
  );
}

function DiffBody({ detail, layout, bindCommands, onDecided, onDeciding }: { detail: DiffDetail } & Omit<Props, 'diff' | 'group'>) {
  const { api } = useHub();
  const command = useCommand();
  const editor = useRef<MergeEditorHandle>(null);
  const [report, setReport] = useState<EditorReport | null>(null);
  const facts: ChoiceFacts | null = report && { ...report, total: report.summary.total, rejected: report.summary.rejected };
  const nothingToWrite = report?.sameAsDisk ?? false;
  const touched = report !== null && (report.handEdited || report.summary.accepted + report.summary.rejected > 0);
  const outcome = acceptOutcome(facts);

  const accept = (): void => {
    if (nothingToWrite) return;
    const text = report?.text ?? null;
    const note = acceptNote(facts);
    onDeciding(detail.id, note);
    void command.run(async () => onDecided(await api.call('diffs.accept', acceptParams(detail.id, detail.newContents, text)), note));
  };
  const reject = (): void => {
    void command.run(async () => onDecided(await api.call('diffs.reject', { id: detail.id })));
  };

  const runRef = useRef<(c: ReviewCommand) => void>(() => {});
  runRef.current = (c) => {
    if (command.busy) return;
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

  const proposalOnly = detail.tooLarge;
  return (
    <>
      <div className="diff-state">
        {detail.isNew && <span className="tag">New file: it does not exist on disk yet</span>}
        {proposalOnly && <span className="tag warning">The file on disk is too large to show; only the proposal is shown</span>}
        {report?.handEdited && <span className="tag accent">Edited: Accept saves your version</span>}
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
          onReport={setReport}
        />
      </LoadBoundary>
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={accept}
          disabled={command.busy || nothingToWrite}
          aria-keyshortcuts="a"
          aria-describedby={outcome === null ? undefined : 'accept-outcome'}
        >
          Accept
        </button>
        <button type="button" onClick={reject} disabled={command.busy} aria-keyshortcuts="r">
          Reject
        </button>
        {outcome !== null && (
          <span id="accept-outcome" className="accept-outcome">
            {outcome}
          </span>
        )}
        <span className="spacer" />
        <button type="button" onClick={() => editor.current?.startOver()} disabled={!touched} title="Undo every per-change choice and edit">
          Start over
        </button>
      </div>
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </>
  );
}
