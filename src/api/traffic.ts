// Reading a session's traffic, for every face: which frames a filter keeps, how long requests took, how to print them.
import type { TrafficEntry } from './types.ts';

export type Direction = TrafficEntry['dir'];

export const DIRECTIONS: readonly { dir: Direction; label: string; arrow: string }[] = [
  { dir: 'in', label: 'agent → Patchbay', arrow: '→P' },
  { dir: 'out', label: 'Patchbay → agent', arrow: 'P→' },
  { dir: 'up', label: 'Patchbay → editor', arrow: '→E' },
  { dir: 'down', label: 'editor → Patchbay', arrow: 'E→' },
];

export interface TrafficFilter {
  text: string;
  dirs: ReadonlySet<Direction>;
}

export function filterTraffic(entries: readonly TrafficEntry[], filter: TrafficFilter): TrafficEntry[] {
  const needle = filter.text.trim().toLowerCase();
  return entries.filter(
    (e) =>
      filter.dirs.has(e.dir) &&
      (needle === '' || methodLabel(e).toLowerCase().includes(needle) || e.preview.toLowerCase().includes(needle)),
  );
}

/** `tools/call openDiff`, `selection_changed`; '' for an answer. */
export function methodLabel(e: TrafficEntry): string {
  return e.tool === null ? (e.method ?? '') : `${e.method} ${e.tool}`;
}

/** Where the answer to a request travelling in `dir` comes back. */
const ANSWER_DIR: Partial<Record<Direction, Direction>> = { in: 'out', up: 'down', down: 'up' };

/**
 * Round-trip time per answered request, keyed by the request's index in `entries` (which
 * are oldest first). A request is a frame with a method and an id; its answer is the next
 * frame the other way with the same id and no method.
 */
export function requestTimings(entries: readonly TrafficEntry[]): Map<number, number> {
  const timings = new Map<number, number>();
  const waiting = new Map<string, number>();
  // Agent-side ids are the agent's own; editor-side ids are Patchbay's, per editor.
  const key = (dir: Direction, entry: TrafficEntry): string =>
    `${dir}|${dir === 'out' ? '' : entry.editorId ?? ''}|${typeof entry.id}:${entry.id}`;
  entries.forEach((entry, index) => {
    if (entry.id === null) return;
    if (entry.method !== null) {
      const answerDir = ANSWER_DIR[entry.dir];
      if (answerDir !== undefined) waiting.set(key(answerDir, entry), index);
      return;
    }
    const answerKey = key(entry.dir, entry);
    const requestIndex = waiting.get(answerKey);
    if (requestIndex === undefined) return;
    waiting.delete(answerKey);
    timings.set(requestIndex, entry.at - entries[requestIndex]!.at);
  });
  return timings;
}

export function clockTime(at: number): string {
  const d = new Date(at);
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
