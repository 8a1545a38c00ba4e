// One hosted session: header with Stop (asked first; the transcript stays) or Remove once it
// has exited, pickers, stats and status lines, the transcript, the prompt box, and whatever
// extension dialog pi is waiting on.
import { useEffect, useState } from 'react';
import type { DialogAnswer, HostedReview, HostedView } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { useNow } from '../ui/useNow.ts';
import { ExtensionDialog } from './ExtensionDialog.tsx';
import { REVIEW_TEXT, STATUS_TEXT, controlsFor, currentDialog, exitText, stoppedOnPurpose } from './hosted-model.ts';
import { PromptBox } from './PromptBox.tsx';
import { SessionFacts } from './SessionFacts.tsx';
import { SessionPickers } from './SessionPickers.tsx';
import { Transcript } from './Transcript.tsx';
import { useHostedSession } from './useHostedSession.ts';
import { useToolReviews } from './useToolReviews.ts';
import './hosted.css';

export function HostedPanel({ view }: { view: HostedView }) {
  const { api } = useHub();
  const session = useHostedSession(view.id);
  const stop = useCommand();
  const answer = useCommand();
  const [answered, setAnswered] = useState<ReadonlySet<string>>(() => new Set());
  const [askStop, setAskStop] = useState(false);
  const reviewOf = useToolReviews(view.sessionId);
  const { detail, refresh, refreshStats } = session;
  // Dialogs expire; re-check once a second only while some wait.
  const waiting = (detail?.dialogs.length ?? 0) > 0;
  const now = useNow(waiting ? 1000 : 60_000);

  // The snapshot moves on its own (status, model, a new dialog): read the detail again.
  useEffect(refresh, [refresh, view.status, view.model, view.thinkingLevel, view.pendingDialogs, view.exit]);
  // A pi that has just started has stats to read (asked while starting, it had none).
  useEffect(() => {
    if (view.status === 'idle') refreshStats();
  }, [refreshStats, view.status]);

  const status = detail?.status ?? view.status;
  const controls = controlsFor(status);
  const dialog = detail === null ? null : currentDialog(detail.dialogs, answered, now);

  const sendAnswer = (requestId: string, value: DialogAnswer): void => {
    setAnswered((prev) => new Set(prev).add(requestId));
    void answer
      .run(() => api.call('pi.answer', { id: view.id, requestId, answer: value }))
      .then((ok) => {
        if (ok) return;
        // Show it again: pi still waits for an answer.
        setAnswered((prev) => {
          const next = new Set(prev);
          next.delete(requestId);
          return next;
        });
      });
  };

  return (
    <section className="hosted-panel" aria-labelledby="hosted-title">
      <header className="hosted-header">
        <div className="hosted-heading">
          <h2 id="hosted-title" title={view.cwd}>
            {view.cwd}
          </h2>
          <p className="meta">
            <span className={`status-dot ${status}`}>{STATUS_TEXT[status]}</span>
            {view.pid !== null && status !== 'exited' && ` · pid ${view.pid}`}
          </p>
        </div>
        {controls.stop ? (
          <button type="button" className="danger" disabled={stop.busy} onClick={() => setAskStop(true)}>
            Stop
          </button>
        ) : (
          <button type="button" disabled={stop.busy} onClick={() => void stop.run(() => api.call('pi.stop', { id: view.id }))}>
            Remove from list
          </button>
        )}
      </header>
      {askStop && (
        <ConfirmDialog
          title="Stop this pi session?"
          message={`pi in ${view.cwd} ends${status === 'streaming' ? ', and the turn it is working on is cut short' : ''}. Its transcript stays here until you remove the session.`}
          confirmLabel="Stop pi"
          cancel={() => setAskStop(false)}
          confirm={() => {
            setAskStop(false);
            void stop.run(() => api.call('pi.stop', { id: view.id, keep: true }));
          }}
        />
      )}
      {view.exit !== null && <p className={stoppedOnPurpose(view.exit) ? 'meta' : 'warning-text'}>{exitText(view.exit)}</p>}
      {status !== 'exited' && <ReviewNotice review={view.review} />}
      {stop.error !== null && <ErrorText>{`Could not ${controls.stop ? 'stop pi' : 'remove the session'}: ${stop.error}`}</ErrorText>}
      {session.error !== null && <ErrorText>{session.error}</ErrorText>}
      {status !== 'exited' && <SessionPickers view={{ ...view, ...(detail ?? {}) }} enabled={controls.configure} merge={session.merge} />}
      <SessionFacts stats={session.stats} statsError={status === 'starting' ? null : session.statsError} statusLines={detail?.statusLines ?? {}} />
      {detail === null ? (
        session.error === null && <p className="empty">Loading the transcript…</p>
      ) : (
        <Transcript items={detail.transcript} streaming={status === 'streaming'} reviewOf={reviewOf} />
      )}
      {controls.prompt ? (
        <PromptBox id={view.id} status={status} review={view.review} />
      ) : (
        status === 'starting' && <p className="empty">pi is starting…</p>
      )}
      {answer.error !== null && <ErrorText>{`Could not answer pi: ${answer.error}`}</ErrorText>}
      {dialog !== null && <ExtensionDialog key={dialog.requestId} dialog={dialog} now={now} answer={(a) => sendAnswer(dialog.requestId, a)} />}
    </section>
  );
}

/** Whether this pi's edits reach review: said plainly when they do not (yet). */
function ReviewNotice({ review }: { review: HostedReview }) {
  const text = REVIEW_TEXT[review];
  return (
    <p className={`review-notice ${review}`} role="status">
      {text}
    </p>
  );
}
