// The prompt box, as pi's own editor: Enter sends (steers while pi works), Shift+Enter breaks
// the line, Alt+Enter queues a follow-up; a `/` offers pi's commands and the TUI's; images are
// pasted, dropped or attached. What pi has queued shows above it and can be taken back.
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { ClipboardEvent, DragEvent, KeyboardEvent } from 'react';
import type { HostedQueue, HostedReview, HostedStatus, PiCommandInfo, PromptOutcome } from '../../../src/api/types.ts';
import { useHub } from '../hub/HubProvider.tsx';
import { useCommand } from '../hub/useCommand.ts';
import { ErrorText } from '../ui/ErrorText.tsx';
import { PROMPT_SHORTCUTS, commandCompletions, controlsFor, promptKeyAction, promptParams } from './hosted-model.ts';
import type { PromptAction } from './hosted-model.ts';
import { readImage, type DraftImage } from './prompt-images.ts';

interface Props {
  id: string;
  status: HostedStatus;
  review: HostedReview;
  draft: string;
  setDraft(next: string | ((prev: string) => string)): void;
  /** What pi offers through `/` (its extensions' commands, templates, skills). */
  commands: readonly PiCommandInfo[];
  queue: HostedQueue;
  /** A command of pi's terminal UI ran (`/export`, `/fork`…): what it did, for the panel to say. */
  onOutcome(outcome: PromptOutcome): void;
}

export function PromptBox({ id, status, review, draft, setDraft, commands, queue, onOutcome }: Props) {
  const { api } = useHub();
  const ids = { input: useId(), hint: useId(), menu: useId(), attach: useId() };
  const [images, setImages] = useState<DraftImage[]>([]);
  const [imageError, setImageError] = useState<string | null>(null);
  const [active, setActive] = useState(0);
  const [menuClosedFor, setMenuClosedFor] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const send = useCommand();
  const abort = useCommand();
  const takeBack = useCommand();
  const controls = controlsFor(status);
  const empty = draft.trim() === '' && images.length === 0;

  const completions = useMemo(() => (menuClosedFor === draft ? [] : commandCompletions(draft, commands)), [draft, commands, menuClosedFor]);
  const menuOpen = completions.length > 0;
  useEffect(() => setActive(0), [draft]);

  const run = (action: PromptAction): void => {
    if (empty || send.busy) return;
    const sent = draft;
    const attached = images;
    const params = { ...promptParams(id, sent, action), ...(attached.length > 0 ? { images: attached.map(({ data, mimeType }) => ({ data, mimeType })) } : {}) };
    setImageError(null);
    void send.run(async () => {
      const outcome = await api.call('pi.prompt', params);
      setDraft((now) => (now === sent ? '' : now));
      setImages((now) => (now === attached ? [] : now));
      onOutcome(outcome);
    });
  };
  const complete = (index: number): void => {
    const choice = completions[index];
    if (choice !== undefined) setDraft(choice.insert);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>): void => {
    if (menuOpen) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault();
        setActive((i) => (i + (event.key === 'ArrowDown' ? 1 : completions.length - 1)) % completions.length);
        return;
      }
      if (event.key === 'Tab' || (event.key === 'Enter' && !event.shiftKey && !event.altKey && completions[active]?.insert !== draft)) {
        event.preventDefault();
        complete(active);
        return;
      }
      if (event.key === 'Escape') {
        event.preventDefault();
        setMenuClosedFor(draft);
        return;
      }
    }
    const action = promptKeyAction({ ...event, isComposing: event.nativeEvent.isComposing }, status);
    if (action === null) return;
    event.preventDefault();
    run(action);
  };
  const attach = (files: Iterable<File>): void => {
    setImageError(null);
    for (const file of files) {
      readImage(file).then(
        (image) => setImages((now) => [...now, image]),
        (err: Error) => setImageError(err.message),
      );
    }
  };
  const onPaste = (event: ClipboardEvent<HTMLTextAreaElement>): void => {
    const files = [...event.clipboardData.files].filter((f) => f.type.startsWith('image/'));
    if (files.length === 0) return;
    event.preventDefault();
    attach(files);
  };
  const onDrop = (event: DragEvent<HTMLDivElement>): void => {
    if (event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    attach(event.dataTransfer.files);
  };
  const takeQueueBack = (): void => {
    void takeBack.run(async () => {
      const queued = await api.call('pi.clearQueue', { id });
      const texts = [...queued.steering, ...queued.followUp];
      if (texts.length > 0) setDraft((now) => [now.trim(), ...texts].filter((t) => t !== '').join('\n\n'));
    });
  };

  const queued = [...queue.steering.map((text) => ({ text, how: 'steer' })), ...queue.followUp.map((text) => ({ text, how: 'follow-up' }))];
  return (
    <div className="prompt-box" onDragOver={(e) => e.dataTransfer.types.includes('Files') && e.preventDefault()} onDrop={onDrop}>
      {queued.length > 0 && (
        <section className="prompt-queue" aria-label="Queued for pi">
          <ul className="plain">
            {queued.map((q, i) => (
              <li key={`${i}-${q.how}`}>
                <span className="meta">{q.how}</span> {q.text}
              </li>
            ))}
          </ul>
          <button type="button" className="small" disabled={takeBack.busy} onClick={takeQueueBack}>
            Take back to edit
          </button>
        </section>
      )}
      <label htmlFor={ids.input}>Prompt</label>
      <textarea
        id={ids.input}
        value={draft}
        rows={3}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKeyDown}
        onPaste={onPaste}
        aria-describedby={ids.hint}
        aria-autocomplete="list"
        aria-controls={menuOpen ? ids.menu : undefined}
        aria-expanded={menuOpen}
        aria-activedescendant={menuOpen ? `${ids.menu}-${active}` : undefined}
        placeholder={controls.steer ? 'pi is working: steer it, or queue a follow-up' : 'Ask pi… (/ for commands, ! for a shell command)'}
      />
      {menuOpen && (
        <ul id={ids.menu} className="plain command-menu" role="listbox" aria-label="Commands">
          {completions.map((c, i) => (
            <li
              key={c.label}
              id={`${ids.menu}-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                e.preventDefault(); // keep the focus in the box
                complete(i);
              }}
            >
              <code>{c.label}</code> <span className="meta">{c.description}</span>
              <span className="meta from">{c.from}</span>
            </li>
          ))}
        </ul>
      )}
      {images.length > 0 && (
        <ul className="plain prompt-images" aria-label="Images to send">
          {images.map((image, i) => (
            <li key={`${i}-${image.name}`}>
              <img src={image.url} alt={image.name} />
              <button type="button" className="small" aria-label={`Remove ${image.name}`} onClick={() => setImages((now) => now.filter((x) => x !== image))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <div className="actions">
        {controls.send && (
          <button type="button" className="primary" disabled={empty || send.busy} onClick={() => run('send')} aria-keyshortcuts="Enter">
            Send
          </button>
        )}
        {controls.steer && (
          <button type="button" className="primary" disabled={empty || send.busy} onClick={() => run('steer')} aria-keyshortcuts="Enter">
            Steer
          </button>
        )}
        {controls.followUp && (
          <button type="button" disabled={empty || send.busy} onClick={() => run('followUp')} aria-keyshortcuts="Alt+Enter">
            Follow up
          </button>
        )}
        <button type="button" className="small" onClick={() => fileInput.current?.click()}>
          Attach image…
        </button>
        <input
          ref={fileInput}
          id={ids.attach}
          type="file"
          accept="image/png,image/jpeg,image/gif,image/webp"
          multiple
          hidden
          aria-label="Attach images"
          onChange={(e) => {
            attach(e.target.files ?? []);
            e.target.value = '';
          }}
        />
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
      <p id={ids.hint} className="meta shortcut-hint">
        {PROMPT_SHORTCUTS.map((s, i) => (
          <span key={s.key}>
            {i > 0 && ' · '}
            <kbd>{s.key}</kbd> {s.label}
          </span>
        ))}
      </p>
      {imageError !== null && <ErrorText>{imageError}</ErrorText>}
      {send.error !== null && <ErrorText>{`Could not send: ${send.error}`}</ErrorText>}
      {abort.error !== null && <ErrorText>{`Could not abort: ${abort.error}`}</ErrorText>}
      {takeBack.error !== null && <ErrorText>{`Could not take the queue back: ${takeBack.error}`}</ErrorText>}
    </div>
  );
}
