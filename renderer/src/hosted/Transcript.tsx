// The conversation as it streams: prompts, replies (thinking folded), tool calls with their
// arguments (a write or edit as its change, with the review it waits on) and output, notices.
// Stays scrolled to the end unless the person scrolled up.
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { DecisionRecord, TranscriptItem } from '../../../src/api/types.ts';
import { routeHash } from '../app/route.ts';
import { argsText, toolSubject } from './hosted-model.ts';
import { CARD_LINES, toolChange } from './tool-change.ts';
import type { ToolChange } from './tool-change.ts';
import type { ReviewOf, ToolReview } from './useToolReviews.ts';

/** How close to the end still counts as "at the end" (px). */
const STICK_PX = 40;

interface Props {
  items: readonly TranscriptItem[];
  streaming: boolean;
  reviewOf: ReviewOf;
}

export function Transcript({ items, streaming, reviewOf }: Props) {
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
        <Item key={item.kind === 'tool' ? item.toolCallId : `${index}-${item.kind}`} item={item} reviewOf={reviewOf} />
      ))}
    </div>
  );
}

function Item({ item, reviewOf }: { item: TranscriptItem; reviewOf: ReviewOf }) {
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
      const review = reviewOf(item);
      const waiting = !item.done && review?.outcome === 'pending';
      const state = waiting ? 'waiting for review' : !item.done ? 'running' : item.isError ? 'failed' : 'done';
      const change = toolChange(item.name, item.args);
      return (
        <article className={`turn tool ${item.isError && item.done ? 'failed' : waiting ? 'waiting' : state}`} aria-label={`Tool ${item.name}`}>
          <header>
            <span className="tool-name">{item.name}</span>
            {subject !== null && <code className="tool-subject">{subject}</code>}
            <span className={`tool-state ${waiting ? 'waiting' : state}`}>{state}</span>
          </header>
          {review !== null && <ReviewNote review={review} />}
          {change !== null ? (
            <ChangeView change={change} />
          ) : (
            <details className="tool-args">
              <summary>Arguments</summary>
              <pre>{argsText(item.args)}</pre>
            </details>
          )}
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

const DECIDED_WHERE: Record<DecisionRecord['by'], string> = {
  editor: 'in the editor',
  patchbay: 'in Patchbay',
  agent: 'by pi',
  shutdown: 'as Patchbay stopped',
  crash: 'by nobody (Patchbay stopped unexpectedly)',
};

function ReviewNote({ review }: { review: ToolReview }) {
  if (review.outcome === 'pending') {
    return (
      <p className="tool-review">
        <strong>Waiting for your review:</strong> pi goes on once you accept or reject this edit.{' '}
        <a href={routeHash({ view: 'review', id: review.diffId })}>Review this edit</a>
      </p>
    );
  }
  const what = review.outcome === 'withdrawn' ? 'Withdrawn' : review.outcome === 'accepted' ? 'Accepted' : 'Rejected';
  return (
    <p className={`tool-review decided ${review.outcome}`}>
      {what} {DECIDED_WHERE[review.by]}
    </p>
  );
}

const SIGN: Record<'add' | 'del' | 'same', string> = { add: '+', del: '-', same: ' ' };

function ChangeView({ change }: { change: ToolChange }) {
  const total = change.blocks.reduce((n, b) => n + b.length, 0);
  let budget = CARD_LINES;
  const label = change.kind === 'write' ? `New contents (${total} ${total === 1 ? 'line' : 'lines'})` : 'Change';
  return (
    <pre className="tool-change" aria-label={label}>
      {change.blocks.map((block, b) => {
        const shown = block.slice(0, Math.max(0, budget));
        budget -= shown.length;
        return (
          <span key={b} className="change-block">
            {b > 0 && shown.length > 0 && <span className="line gap">{'⋯\n'}</span>}
            {shown.map((line, i) => (
              <span key={i} className={`line ${line.kind}`}>
                <span className="sign">{SIGN[line.kind]}</span>
                {line.text}
                {'\n'}
              </span>
            ))}
          </span>
        );
      })}
      {total > CARD_LINES && <span className="line gap">{`… ${total - CARD_LINES} more lines`}</span>}
    </pre>
  );
}
