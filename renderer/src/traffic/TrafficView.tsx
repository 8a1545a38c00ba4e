// Recent frames of one session, both ways, newest at the bottom, with request timings.
import { useId, useMemo, useState } from 'react';
import { sessionLabel } from '../../../electron/shared/labels.ts';
import { useSnapshot } from '../hub/HubProvider.tsx';
import { ErrorText } from '../ui/ErrorText.tsx';
import { DIRECTIONS, byteSize, clockTime, filterTraffic, methodLabel, requestTimings } from '../../../src/api/traffic.ts';
import type { Direction } from '../../../src/api/traffic.ts';
import { useTraffic } from './useTraffic.ts';

interface Props {
  sessionId: string | null;
  selectSession(id: string | null): void;
}

export function TrafficView({ sessionId, selectSession }: Props) {
  const snapshot = useSnapshot();
  const ids = { session: useId(), filter: useId() };
  const [text, setText] = useState('');
  const [dirs, setDirs] = useState<ReadonlySet<Direction>>(() => new Set(DIRECTIONS.map((d) => d.dir)));
  const [paused, setPaused] = useState(false);
  const session = snapshot.sessions.find((s) => s.id === sessionId) ?? snapshot.sessions[0] ?? null;
  const { entries, error } = useTraffic(session?.id ?? null, paused);
  const timings = useMemo(() => requestTimings(entries), [entries]);
  const indexed = useMemo(() => entries.map((entry, index) => ({ entry, index })), [entries]);
  const shown = useMemo(() => {
    const kept = new Set(filterTraffic(entries, { text, dirs }));
    return indexed.filter(({ entry }) => kept.has(entry));
  }, [indexed, entries, text, dirs]);

  const toggle = (dir: Direction): void =>
    setDirs((prev) => {
      const next = new Set(prev);
      if (next.has(dir)) next.delete(dir);
      else next.add(dir);
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
      <fieldset className="toolbar">
        <legend>Directions</legend>
        {DIRECTIONS.map((d) => (
          <label key={d.dir} className="check">
            <input type="checkbox" checked={dirs.has(d.dir)} onChange={() => toggle(d.dir)} /> {d.label}
          </label>
        ))}
      </fieldset>
      {error !== null && <ErrorText>{`Could not read the traffic: ${error}`}</ErrorText>}
      {session === null ? (
        <p className="empty">No agent session is connected.</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption>
              {shown.length} of {entries.length} recent frames of {sessionLabel(session)}
            </caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Way</th>
                <th scope="col">Method</th>
                <th scope="col">Id</th>
                <th scope="col">Took</th>
                <th scope="col">Size</th>
                <th scope="col">Frame</th>
              </tr>
            </thead>
            <tbody>
              {shown.map(({ entry, index }) => {
                const took = timings.get(index);
                const way = DIRECTIONS.find((d) => d.dir === entry.dir);
                return (
                  <tr key={index}>
                    <td className="num">{clockTime(entry.at)}</td>
                    <td title={way?.label}>{way?.arrow}</td>
                    <td>{entry.method === null ? (entry.id !== null ? 'reply' : '') : methodLabel(entry)}</td>
                    <td>{entry.id ?? ''}</td>
                    <td className="num">{took === undefined ? '' : `${took} ms`}</td>
                    <td className="num">{byteSize(entry.bytes)}</td>
                    <td>
                      <code className="preview">{entry.preview}</code>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
