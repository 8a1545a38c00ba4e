// One pending diff: what it is, the side-by-side editor, and the decision buttons.
import { lazy, useEffect, useRef, useState } from 'react';
import type { DiffDetail, DiffSummary } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { LoadBoundary } from '../ui/LoadBoundary.tsx';
import { acceptParams } from './inbox-model.ts';
import type { SessionGroup } from './inbox-model.ts';
import type { MergeEditorHandle } from './MergeEditor.tsx';
import type { ReviewCommand } from './shortcuts.ts';
import { useDiffDetail } from './useDiffDetail.ts';

// CodeMirror is most of the bundle and only this panel needs it: the other views load without it.
const MergeEditor = lazy(() => import('./MergeEditor.tsx').then((m) => ({ default: m.MergeEditor })));

interface Props {
  diff: DiffSummary;
  group: SessionGroup;
  /** The panel registers how it runs keyboard commands; the view owns the key listener. */
  bindCommands(run: ((command: ReviewCommand) => void) | null): void;
}

export function DiffPanel({ diff, group, bindCommands }: Props) {
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
      {state.status === 'ready' && <DiffBody key={diff.id} detail={state.detail} bindCommands={bindCommands} />}
    </section>
  );
}

function DiffBody({ detail, bindCommands }: { detail: DiffDetail; bindCommands: Props['bindCommands'] }) {
  const { api } = useHub();
  const command = useCommand();
  const editor = useRef<MergeEditorHandle>(null);
  const [edited, setEdited] = useState<string | null>(null);
  const isEdited = edited !== null && edited !== detail.newContents;

  const accept = (): void => {
    void command.run(() => api.call('diffs.accept', acceptParams(detail.id, detail.newContents, edited)));
  };
  const reject = (): void => {
    void command.run(() => api.call('diffs.reject', { id: detail.id }));
  };

  const runRef = useRef<(c: ReviewCommand) => void>(() => {});
  runRef.current = (c) => {
    if (command.busy) return;
    if (c === 'accept') accept();
    else if (c === 'reject') reject();
    else if (c === 'nextChange') editor.current?.nextChange();
    else if (c === 'previousChange') editor.current?.previousChange();
  };
  useEffect(() => {
    bindCommands((c) => runRef.current(c));
    return () => bindCommands(null);
  }, [bindCommands]);

  return (
    <>
      <div className="diff-state">
        {detail.isNew && <span className="tag">New file: it does not exist on disk yet</span>}
        {detail.tooLarge && (
          <span className="tag warning">The file on disk is too large to show; only the proposal is shown</span>
        )}
        {isEdited && <span className="tag accent">Edited: Accept saves your version</span>}
      </div>
      {!detail.tooLarge && (
        <div className="diff-columns" aria-hidden="true">
          <span>{detail.isNew ? 'On disk: nothing yet' : 'On disk'}</span>
          <span>Proposed (editable)</span>
        </div>
      )}
      <LoadBoundary what="the diff editor" className="merge-editor">
        <MergeEditor
          ref={editor}
          label={detail.path}
          original={detail.tooLarge ? null : (detail.oldContents ?? '')}
          proposed={detail.newContents}
          onEdit={setEdited}
        />
      </LoadBoundary>
      <div className="actions">
        <button type="button" className="primary" onClick={accept} disabled={command.busy} aria-keyshortcuts="a">
          Accept
        </button>
        <button type="button" onClick={reject} disabled={command.busy} aria-keyshortcuts="r">
          Reject
        </button>
        <span className="spacer" />
        <button type="button" onClick={() => editor.current?.previousChange()} aria-keyshortcuts="p">
          Previous change
        </button>
        <button type="button" onClick={() => editor.current?.nextChange()} aria-keyshortcuts="n">
          Next change
        </button>
        <button type="button" onClick={() => editor.current?.resetEdits()} disabled={!isEdited}>
          Undo my edits
        </button>
      </div>
      {command.error !== null && <ErrorText>{command.error}</ErrorText>}
    </>
  );
}
