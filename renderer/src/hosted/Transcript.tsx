// The conversation as it streams: prompts, replies (thinking folded), tool calls with their
// arguments and output, notices. Stays scrolled to the end unless the person scrolled up.
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { TranscriptItem } from '../../../src/api/types.ts';
import { argsText, toolSubject } from './hosted-model.ts';

/** How close to the end still counts as "at the end" (px). */
const STICK_PX = 40;

export function Transcript({ items, streaming }: { items: readonly TranscriptItem[]; streaming: boolean }) {
  const log = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);

  useLayoutEffect(() => {
    const el = log.current;
    if (el !== null && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [items]);

  // A smaller window (or a taller prompt box) must not hide the end either.
  useEffect(() => {
    const el = log.current;
    if (el === null) return;
    const observer = new ResizeObserver(() => {
      if (atEnd.current) el.scrollTop = el.scrollHeight;
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const onScroll = (): void => {
    const el = log.current;
    if (el !== null) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
  };

  return (
    <div ref={log} className="transcript" role="log" aria-label="Transcript" aria-busy={streaming} tabIndex={0} onScroll={onScroll}>
      {items.length === 0 && <p className="empty">Nothing said yet. Write a prompt below.</p>}
      {items.map((item, index) => (
        <Item key={item.kind === 'tool' ? item.toolCallId : `${index}-${item.kind}`} item={item} />
      ))}
    </div>
  );
}

function Item({ item }: { item: TranscriptItem }) {
  switch (item.kind) {
    case 'user':
      return (
        <article className="turn user" aria-label="You">
          <span className="who">You</span>
          <div className="text">{item.text}</div>
        </article>
      );
    case 'assistant':
      return (
        <article className="turn assistant" aria-label="pi">
          <span className="who">pi</span>
          {item.thinking !== '' && (
            <details className="thinking">
              <summary>{item.done || item.text !== '' ? 'Thinking' : 'Thinking…'}</summary>
              <div className="text">{item.thinking}</div>
            </details>
          )}
          <div className="text">
            {item.text}
            {!item.done && <span className="caret" aria-hidden="true" />}
          </div>
        </article>
      );
    case 'tool': {
      const subject = toolSubject(item.args);
      const state = !item.done ? 'running' : item.isError ? 'failed' : 'done';
      return (
        <article className={`turn tool ${state}`} aria-label={`Tool ${item.name}`}>
          <header>
            <span className="tool-name">{item.name}</span>
            {subject !== null && <code className="tool-subject">{subject}</code>}
            <span className={`tool-state ${state}`}>{state}</span>
          </header>
          <details className="tool-args">
            <summary>Arguments</summary>
            <pre>{argsText(item.args)}</pre>
          </details>
          {item.output !== '' && (
            <pre className={`tool-output${item.isError ? ' error' : ''}`} aria-label={`${item.name} output`}>
              {item.output}
            </pre>
          )}
        </article>
      );
    }
    case 'notice':
      return (
        <p className={`notice ${item.level}`} role={item.level === 'error' ? 'alert' : undefined}>
          {item.level === 'info' ? '' : `${item.level}: `}
          {item.text}
        </p>
      );
  }
}
