// Recent frames of one session, both ways, newest at the bottom, with request timings. A
// frame opens in place, indented, with a copy button.
import { Fragment, useId, useMemo, useState } from 'react';
import type { TrafficEntry } from '../../../src/api/types.ts';
import { sessionLabel } from '../../../electron/shared/labels.ts';
import { routeHash } from '../app/route.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { DIRECTIONS, busiestSession, byteSize, clockTime, durationText, filterTraffic, requestTimings, rowLabels, shortId } from '../../../src/api/traffic.ts';
import type { Direction } from '../../../src/api/traffic.ts';
import { frameKey } from './frame-text.ts';
import { FrameDetail } from './FrameDetail.tsx';
import { useTraffic } from './useTraffic.ts';
import './traffic.css';

interface Props {
  sessionId: string | null;
  selectSession(id: string | null): void;
}

/** Columns in the table, for the opened frame's row to span. */
const COLUMNS = 7;

export function TrafficView({ sessionId, selectSession }: Props) {
  const snapshot = useSnapshot();
  const ids = { session: useId(), filter: useId() };
  const [text, setText] = useState('');
  const [dirs, setDirs] = useState<ReadonlySet<Direction>>(() => new Set(DIRECTIONS.map((d) => d.dir)));
  const [paused, setPaused] = useState(false);
  const [open, setOpen] = useState<ReadonlySet<string>>(() => new Set());
  // Unless one is chosen, the session busy most recently: that is usually the one to look at.
  const session = snapshot.sessions.find((s) => s.id === sessionId) ?? busiestSession(snapshot.sessions);
  const { entries, error } = useTraffic(session?.id ?? null, paused);
  const timings = useMemo(() => requestTimings(entries), [entries]);
  const labels = useMemo(() => rowLabels(entries), [entries]);
  const indexed = useMemo(() => entries.map((entry, index) => ({ entry, index })), [entries]);
  const shown = useMemo(() => {
    const kept = new Set(filterTraffic(entries, { text, dirs }));
    return indexed.filter(({ entry }) => kept.has(entry));
  }, [indexed, entries, text, dirs]);

  const toggle = <T,>(set: (update: (prev: ReadonlySet<T>) => ReadonlySet<T>) => void, item: T): void =>
    set((prev) => {
      const next = new Set(prev);
      if (next.has(item)) next.delete(item);
      else next.add(item);
      return next;
    });

  return (
    <div className="traffic">
      <h1>Traffic inspector</h1>
      <div className="toolbar">
        <label htmlFor={ids.session}>Session</label>
        <select id={ids.session} value={session?.id ?? ''} onChange={(e) => selectSession(e.target.value || null)}>
          {snapshot.sessions.length === 0 && <option value="">No sessions</option>}
          {snapshot.sessions.map((s) => (
            <option key={s.id} value={s.id}>
              {sessionLabel(s)} ({s.id})
            </option>
          ))}
        </select>
        <label htmlFor={ids.filter}>Filter</label>
        <input id={ids.filter} type="search" value={text} placeholder="method or text" onChange={(e) => setText(e.target.value)} />
        <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
          {paused ? 'Resume' : 'Pause'}
        </button>
      </div>
      <fieldset className="toolbar directions">
        <legend>Directions (P is Patchbay)</legend>
        {DIRECTIONS.map((d) => (
          <label key={d.dir} className="check">
            <input type="checkbox" checked={dirs.has(d.dir)} onChange={() => toggle(setDirs, d.dir)} />{' '}
            <span className="way" aria-hidden="true">
              {d.arrow}
            </span>{' '}
            {d.label}
          </label>
        ))}
      </fieldset>
      {error !== null && <ErrorText>{`Could not read the traffic: ${error}`}</ErrorText>}
      {session === null ? (
        <p className="empty">
          No agent session is connected. Frames show here once an agent connects;{' '}
          <a href={routeHash({ view: 'pairing', id: null })}>Pairing</a> says who is connected and why others are not.
        </p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption>
              {shown.length} of {entries.length} recent frames of {sessionLabel(session)}
            </caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Direction</th>
                <th scope="col">Method</th>
                <th scope="col">Id</th>
                <th scope="col">Took</th>
                <th scope="col">Size</th>
                <th scope="col">Frame</th>
              </tr>
            </thead>
            <tbody>
              {shown.map(({ entry, index }) => {
                const key = frameKey(entry);
                const expanded = open.has(key);
                return (
                  <Fragment key={`${index}|${key}`}>
                    <FrameRow entry={entry} label={labels[index]!} took={timings.get(index)} expanded={expanded} toggle={() => toggle(setOpen, key)} />
                    {expanded && (
                      <tr className="frame-detail-row">
                        <td colSpan={COLUMNS}>
                          <FrameDetail entry={entry} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

interface RowProps {
  entry: TrafficEntry;
  /** The method, or what an answer answers. */
  label: string;
  took: number | undefined;
  expanded: boolean;
  toggle(): void;
}

function FrameRow({ entry, label, took, expanded, toggle }: RowProps) {
  const way = DIRECTIONS.find((d) => d.dir === entry.dir);
  const method = label;
  return (
    <tr>
      <td className="num">{clockTime(entry.at)}</td>
      <td title={way?.label}>
        <span className="way" aria-hidden="true">
          {way?.arrow}
        </span>
        <span className="visually-hidden">{way?.label}</span>
      </td>
      <td className={method.startsWith('↳') ? 'answer' : undefined}>
        {method.startsWith('↳') && <span className="visually-hidden">reply to </span>}
        {method}
      </td>
      <td className="frame-id" title={entry.id === null ? undefined : String(entry.id)}>
        {shortId(entry.id)}
      </td>
      <td className="num" title={took === undefined ? undefined : `${took} ms`}>
        {took === undefined ? '' : durationText(took)}
      </td>
      <td className="num">{byteSize(entry.bytes)}</td>
      <td>
        <button
          type="button"
          className="frame-toggle"
          aria-expanded={expanded}
          aria-label={`${expanded ? 'Hide' : 'Show'} the ${method || 'frame'} frame of ${clockTime(entry.at)}`}
          onClick={toggle}
        >
          <span className="frame-arrow" aria-hidden="true">
            {expanded ? '▾' : '▸'}
          </span>
          <code className="preview">{entry.preview}</code>
        </button>
      </td>
    </tr>
  );
}
