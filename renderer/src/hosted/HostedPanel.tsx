// One hosted session: its title (an extension's, else its folder), name and session file; Stop
// (asked first; the transcript stays), Resume once stopped, Remove; whether its edits are
// reviewed; pickers, session actions, counters in words and status lines; the transcript; the
// widgets pi places around the prompt box; and whatever extension dialog pi is waiting on.
import { useCallback, useEffect, useState } from 'react';
import type { DialogAnswer, HostedReview, HostedView, HostedWidget, PiCommandInfo, PromptOutcome } from '../../../src/api/types.ts';
import { baseName } from '../../../electron/shared/labels.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ConfirmDialog } from '../ui/ConfirmDialog.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { useNow } from '../ui/useNow.ts';
import { ExtensionDialog } from './ExtensionDialog.tsx';
import { REVIEW_TEXT, STATUS_TEXT, controlsFor, currentDialog, exitText, outcomeText, stoppedOnPurpose } from './hosted-model.ts';
import { PromptBox } from './PromptBox.tsx';
import { SessionActions } from './SessionActions.tsx';
import { SessionFacts } from './SessionFacts.tsx';
import { SessionPickers } from './SessionPickers.tsx';
import { Transcript } from './Transcript.tsx';
import { useDraft } from './useDraft.ts';
import { useHostedSession } from './useHostedSession.ts';
import { useToolReviews } from './useToolReviews.ts';
import './hosted.css';

export function HostedPanel({ view, select }: { view: HostedView; select(id: string): void }) {
  const { api } = useHub();
  const session = useHostedSession(view.id);
  const stop = useCommand();
  const resume = useCommand();
  const answer = useCommand();
  const shell = useCommand();
  const [answered, setAnswered] = useState<ReadonlySet<string>>(() => new Set());
  const [askStop, setAskStop] = useState(false);
  const [draft, setDraft] = useDraft(view.id);
  const [said, say] = useState<string | null>(null);
  const [commands, setCommands] = useState<PiCommandInfo[]>([]);
  const reviewOf = useToolReviews(view.sessionId);
  const { detail, refresh, refreshStats } = session;
  // Dialogs expire; re-check once a second only while some wait.
  const waiting = (detail?.dialogs.length ?? 0) > 0;
  const now = useNow(waiting ? 1000 : 60_000);

  const status = detail?.status ?? view.status;
  const controls = controlsFor(status);
  const running = controls.prompt;

  // The snapshot moves on its own (status, model, a new dialog, another session file): read the detail again.
  useEffect(refresh, [refresh, view.status, view.model, view.thinkingLevel, view.pendingDialogs, view.exit, view.sessionFile, view.sessionName, view.title]);
  // A pi that has just started has stats to read (asked while starting, it had none).
  useEffect(() => {
    if (view.status === 'idle') refreshStats();
  }, [refreshStats, view.status]);
  // What pi offers through `/`, for the prompt box's completion.
  useEffect(() => {
    if (!running) return;
    let current = true;
    api.call('pi.commands', { id: view.id }).then(
      (list) => current && setCommands(list),
      () => current && setCommands([]),
    );
    return () => {
      current = false;
    };
  }, [api, view.id, running]);
  // An extension may fill the prompt box (`set_editor_text`).
  useEffect(
    () =>
      api.subscribe((event) => {
        if (event.type !== 'pi' || event.id !== view.id) return;
        const e = event.event;
        if (e.type === 'extension_ui_request' && e.method === 'set_editor_text' && typeof e.text === 'string') setDraft(e.text);
      }),
    [api, view.id, setDraft],
  );

  const onOutcome = useCallback(
    (outcome: PromptOutcome) => {
      if (outcome.ran === 'fork' && !outcome.cancelled) setDraft(outcome.text);
      say(outcomeText(outcome));
    },
    [setDraft],
  );

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

  const dialog = detail === null ? null : currentDialog(detail.dialogs, answered, now);
  const title = view.title ?? view.cwd;
  const widgets = detail?.widgets ?? [];
  return (
    <section className="hosted-panel" aria-labelledby="hosted-title">
      <header className="hosted-header">
        <div className="hosted-heading">
          <h2 id="hosted-title" title={view.cwd}>
            {title}
          </h2>
          <p className="meta">
            <span className={`status-dot ${status}`}>{STATUS_TEXT[status]}</span>
            {view.pid !== null && status !== 'exited' && ` · pid ${view.pid}`}
            {status !== 'exited' && view.review === 'reviewed' && <span title={REVIEW_TEXT.reviewed}> · edits reviewed</span>}
            {view.title !== null && ` · ${view.cwd}`}
            {view.sessionName !== null && (
              <>
                {' · '}
                <strong className="session-name">{view.sessionName}</strong>
              </>
            )}
            {view.sessionFile !== null && (
              <>
                {' · '}
                <span className="session-file" title={view.sessionFile}>
                  {baseName(view.sessionFile)}
                </span>
              </>
            )}
          </p>
        </div>
        <div className="actions">
          {view.resumable && (
            <button type="button" className="primary" disabled={resume.busy} onClick={() => void resume.run(async () => select((await api.call('pi.resume', { id: view.id })).id))}>
              {resume.busy ? 'Resuming…' : 'Resume'}
            </button>
          )}
          {controls.stop ? (
            <button type="button" className="danger" disabled={stop.busy} onClick={() => setAskStop(true)}>
              Stop
            </button>
          ) : (
            <button type="button" disabled={stop.busy} onClick={() => void stop.run(() => api.call('pi.stop', { id: view.id }))}>
              Remove from list
            </button>
          )}
        </div>
      </header>
      {askStop && (
        <ConfirmDialog
          title="Stop this pi session?"
          message={`pi in ${view.cwd} ends${status === 'streaming' ? ', and the turn it is working on is cut short' : ''}. Its transcript stays here${view.sessionFile !== null ? ', and it can be resumed later' : ''} until you remove the session.`}
          confirmLabel="Stop pi"
          cancel={() => setAskStop(false)}
          confirm={() => {
            setAskStop(false);
            void stop.run(() => api.call('pi.stop', { id: view.id, keep: true }));
          }}
        />
      )}
      {view.exit !== null && <p className={stoppedOnPurpose(view.exit) ? 'meta' : 'warning-text'}>{exitText(view.exit)}</p>}
      {stop.error !== null && <ErrorText>{`Could not ${controls.stop ? 'stop pi' : 'remove the session'}: ${stop.error}`}</ErrorText>}
      {resume.error !== null && <ErrorText>{`Could not resume: ${resume.error}`}</ErrorText>}
      {session.error !== null && <ErrorText>{session.error}</ErrorText>}
      {status !== 'exited' && view.review !== 'reviewed' && <ReviewNotice review={view.review} />}
      {status !== 'exited' && (
        <div className="hosted-controls">
          <SessionPickers view={{ ...view, ...(detail ?? {}) }} enabled={controls.configure} merge={session.merge} />
          {detail !== null && (
            <SessionActions id={view.id} enabled={controls.configure} sessionName={view.sessionName} settings={detail.settings} fill={setDraft} say={say} refresh={refresh} />
          )}
        </div>
      )}
      {said !== null && (
        <p className="meta action-note" role="status">
          {said}
        </p>
      )}
      <SessionFacts stats={session.stats} statsError={status === 'starting' ? null : session.statsError} statusLines={detail?.statusLines ?? {}} />
      {detail === null ? (
        session.error === null && <p className="empty">Loading the transcript…</p>
      ) : (
        <Transcript
          items={detail.transcript}
          streaming={status === 'streaming'}
          reviewOf={reviewOf}
          abortShell={() => void shell.run(() => api.call('pi.abortBash', { id: view.id }))}
          {...(view.resumable && detail.transcript.length === 0 ? { emptyText: 'Resume this session to see its conversation and go on.' } : {})}
        />
      )}
      {shell.error !== null && <ErrorText>{`Could not stop the command: ${shell.error}`}</ErrorText>}
      <Widgets widgets={widgets} placement="aboveEditor" />
      {controls.prompt ? (
        <PromptBox
          id={view.id}
          status={status}
          review={view.review}
          draft={draft}
          setDraft={setDraft}
          commands={commands}
          queue={detail?.queue ?? { steering: [], followUp: [] }}
          onOutcome={onOutcome}
        />
      ) : (
        status === 'starting' && <p className="empty">pi is starting…</p>
      )}
      <Widgets widgets={widgets} placement="belowEditor" />
      {answer.error !== null && <ErrorText>{`Could not answer pi: ${answer.error}`}</ErrorText>}
      {dialog !== null && <ExtensionDialog key={dialog.requestId} dialog={dialog} now={now} answer={(a) => sendAnswer(dialog.requestId, a)} />}
    </section>
  );
}

/** Whether this pi's edits reach review: said plainly when they do not (yet). */
function ReviewNotice({ review }: { review: HostedReview }) {
  return (
    <p className={`review-notice ${review}`} role="status">
      {REVIEW_TEXT[review]}
    </p>
  );
}

/** Lines an extension shows with the prompt box (`setWidget`), where it asked for them. */
function Widgets({ widgets, placement }: { widgets: readonly HostedWidget[]; placement: HostedWidget['placement'] }) {
  const here = widgets.filter((w) => w.placement === placement);
  if (here.length === 0) return null;
  return (
    <div className={`widgets ${placement}`}>
      {here.map((w) => (
        <pre key={w.key} className="widget" aria-label={`Widget ${w.key}`}>
          {w.lines.join('\n')}
        </pre>
      ))}
    </div>
  );
}
