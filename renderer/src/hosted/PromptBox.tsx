// The prompt box: Send while pi is idle; Steer, Follow up and Abort while it works.
import { useId, useState } from 'react';
import type { KeyboardEvent } from 'react';
import type { HostedReview, HostedStatus } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { PROMPT_SHORTCUTS, controlsFor, promptKeyAction, promptParams } from './hosted-model.ts';
import type { PromptAction } from './hosted-model.ts';

export function PromptBox({ id, status, review }: { id: string; status: HostedStatus; review: HostedReview }) {
  const { api } = useHub();
  const inputId = useId();
  const hintId = useId();
  const [text, setText] = useState('');
  const send = useCommand();
  const abort = useCommand();
  const controls = controlsFor(status);
  const empty = text.trim() === '';

  const run = (action: PromptAction): void => {
    if (empty || send.busy) return;
    const sent = text;
    void send.run(() => api.call('pi.prompt', promptParams(id, sent, action))).then((ok) => {
      if (ok) setText((now) => (now === sent ? '' : now));
    });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    const action = promptKeyAction(event, status);
    if (action === null) return;
    event.preventDefault();
    run(action);
  };

  return (
    <div className="prompt-box">
      <label htmlFor={inputId}>Prompt</label>
      <textarea
        id={inputId}
        value={text}
        rows={3}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
        aria-describedby={hintId}
        placeholder={controls.steer ? 'pi is working: steer it, or queue a follow-up' : 'Ask pi…'}
      />
      <div className="actions">
        {controls.send && (
          <button type="button" className="primary" disabled={empty || send.busy} onClick={() => run('send')} aria-keyshortcuts="Control+Enter">
            Send
          </button>
        )}
        {controls.steer && (
          <button type="button" className="primary" disabled={empty || send.busy} onClick={() => run('steer')} aria-keyshortcuts="Control+Enter">
            Steer
          </button>
        )}
        {controls.followUp && (
          <button type="button" disabled={empty || send.busy} onClick={() => run('followUp')} aria-keyshortcuts="Alt+Enter">
            Follow up
          </button>
        )}
        {send.busy && review === 'connecting' && (
          <span className="meta" role="status">
            connecting to review…
          </span>
        )}
        <span className="spacer" />
        {controls.abort && (
          <button type="button" className="danger" disabled={abort.busy} onClick={() => void abort.run(() => api.call('pi.abort', { id }))}>
            Abort
          </button>
        )}
      </div>
      <p id={hintId} className="meta shortcut-hint">
        {PROMPT_SHORTCUTS.map((s, i) => (
          <span key={s.key}>
            {i > 0 && ' · '}
            <kbd>{s.key}</kbd> {s.label}
          </span>
        ))}
      </p>
      {send.error !== null && <ErrorText>{`Could not send: ${send.error}`}</ErrorText>}
      {abort.error !== null && <ErrorText>{`Could not abort: ${abort.error}`}</ErrorText>}
    </div>
  );
}
