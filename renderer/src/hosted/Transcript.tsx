// The conversation as it streams: prompts, replies (markdown, thinking folded), tool calls with
// their arguments (a write or edit as its change, with its review) and output, shell runs,
// summaries, notices. Stays scrolled to the end unless the person scrolled up.
import { memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { TranscriptItem } from '../../../src/api/types.ts';
import { count } from '../../../electron/shared/labels.ts';
import { routeHash } from '../app/route.ts';
import { argsText, toolSubject } from './hosted-model.ts';
import { Markdown } from './Markdown.tsx';
import { reviewText } from './tool-review.ts';
import { CARD_LINES, toolChange } from './tool-change.ts';
import type { ToolChange } from './tool-change.ts';
import type { ReviewOf, ToolReview } from './useToolReviews.ts';

/** How close to the end still counts as "at the end" (px). */
const STICK_PX = 40;

interface Props {
  items: readonly TranscriptItem[];
  streaming: boolean;
  reviewOf: ReviewOf;
  /** Stops the shell command still running (a `!cmd`). */
  abortShell(): void;
  /** Shown when there is nothing yet (a stopped session not resumed, a new one). */
  emptyText?: string;
}

export function Transcript({ items, streaming, reviewOf, abortShell, emptyText = 'Nothing said yet. Write a prompt below.' }: Props) {
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

  // A nested call's card names the tool that made it (pi's codemode, an extension's executeTool).
  const toolNames = useMemo(() => new Map(items.flatMap((item) => (item.kind === 'tool' ? [[item.toolCallId, item.name] as const] : []))), [items]);

  const onScroll = (): void => {
    const el = log.current;
    if (el !== null) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < STICK_PX;
  };

  return (
    <div ref={log} className="transcript" role="log" aria-label="Transcript" aria-busy={streaming} tabIndex={0} onScroll={onScroll}>
      {items.length === 0 && <p className="empty">{emptyText}</p>}
      {items.map((item, index) =>
        item.kind === 'tool' ? (
          <ToolItem
            key={item.toolCallId}
            item={item}
            review={reviewOf(item)}
            calledBy={item.parentToolCallId === undefined ? null : (toolNames.get(item.parentToolCallId) ?? 'another tool')}
          />
        ) : (
          <Item key={`${index}-${item.kind}`} item={item} abortShell={abortShell} />
        ),
      )}
    </div>
  );
}

/** Only an item that changed draws again: a long conversation streams at the cost of its last reply. */
const Item = memo(function Item({ item, abortShell }: { item: Exclude<TranscriptItem, { kind: 'tool' }>; abortShell(): void }) {
  switch (item.kind) {
    case 'user':
      return (
        <article className="turn user" aria-label="You">
          <span className="who">You</span>
          <div className="text">{item.text}</div>
          {item.images !== undefined && item.images > 0 && <span className="meta">{`with ${count(item.images, 'image')}`}</span>}
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
          <Markdown text={item.text} />
          {!item.done && <span className="caret" aria-hidden="true" />}
        </article>
      );
    case 'bash': {
      const state = !item.done ? 'running' : item.cancelled ? 'cancelled' : item.exitCode === 0 ? 'done' : `exit code ${item.exitCode ?? '?'}`;
      return (
        <article className={`turn tool shell${item.done && item.exitCode !== 0 ? ' failed' : ''}`} aria-label="Shell command">
          <header>
            <span className="tool-name">{item.excluded ? '!!' : '!'}</span>
            <code className="tool-subject">{item.command}</code>
            <span className={`tool-state ${item.done ? (item.exitCode === 0 ? 'done' : 'failed') : 'running'}`}>{state}</span>
            {!item.done && (
              <button type="button" className="danger small" onClick={abortShell}>
                Stop command
              </button>
            )}
          </header>
          {item.excluded && <p className="meta">Kept out of the model’s context.</p>}
          {item.output !== '' && (
            <pre className="tool-output" aria-label="Shell output">
              {item.output}
            </pre>
          )}
        </article>
      );
    }
    case 'summary':
      return (
        <details className="turn summary">
          <summary>{item.of === 'compaction' ? 'Earlier conversation, compacted' : 'Summary of a branch left behind'}</summary>
          <Markdown text={item.text} />
        </details>
      );
    case 'notice':
      return (
        <p className={`notice ${item.level}`} role={item.level === 'error' ? 'alert' : undefined}>
          {item.level === 'info' ? '' : `${item.level}: `}
          {item.text}
        </p>
      );
  }
});

interface ToolItemProps {
  item: Extract<TranscriptItem, { kind: 'tool' }>;
  review: ToolReview | null;
  /** The tool that made this call (a nested call), or null for the model's own. */
  calledBy: string | null;
}

const ToolItem = memo(function ToolItem({ item, review, calledBy }: ToolItemProps) {
  const subject = toolSubject(item.args);
  const waiting = !item.done && review?.outcome === 'pending';
  const state = waiting ? 'waiting for review' : !item.done ? 'running' : item.isError ? 'failed' : 'done';
  const change = toolChange(item.name, item.args);
  return (
    <article
      className={`turn tool ${item.isError && item.done ? 'failed' : waiting ? 'waiting' : state}${calledBy !== null ? ' nested' : ''}`}
      aria-label={calledBy !== null ? `Tool ${item.name}, called by ${calledBy}` : `Tool ${item.name}`}
    >
      <header>
        {calledBy !== null && <span className="tool-caller">{`${calledBy} →`}</span>}
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
}, (a, b) => a.item === b.item && a.calledBy === b.calledBy && sameReview(a.review, b.review));

function sameReview(a: ToolReview | null, b: ToolReview | null): boolean {
  if (a === null || b === null) return a === b;
  return a.diffId === b.diffId && a.outcome === b.outcome && (a.outcome !== 'decided' || (b.outcome === 'decided' && a.record === b.record));
}

function ReviewNote({ review }: { review: ToolReview }) {
  const link = <a href={routeHash({ view: 'review', id: review.diffId })}>{review.outcome === 'pending' ? 'Review this edit' : 'See what was written'}</a>;
  if (review.outcome === 'pending') {
    return (
      <p className="tool-review">
        <strong>Waiting for your review:</strong> pi goes on once you accept or reject this edit. {link}
      </p>
    );
  }
  if (review.outcome === 'forgotten') return <p className="tool-review decided">Reviewed (the decision is older than the history Patchbay keeps)</p>;
  return (
    <p className={`tool-review decided ${review.record.outcome}`}>
      {reviewText(review.record)} · {link}
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
