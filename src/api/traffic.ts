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

/**
 * The frames the filter keeps. Text matches the method, the frame, or for an answer the request
 * it answers ("openDiff" keeps its reply too).
 */
export function filterTraffic(entries: readonly TrafficEntry[], filter: TrafficFilter): TrafficEntry[] {
  const needle = filter.text.trim().toLowerCase();
  const answered = needle === '' ? new Map<number, number>() : answers(entries);
  return entries.filter((e, index) => {
    if (!filter.dirs.has(e.dir)) return false;
    if (needle === '') return true;
    const request = answered.get(index);
    const asked = request === undefined ? '' : `${methodLabel(entries[request]!)} ${entries[request]!.preview}`;
    return methodLabel(e).toLowerCase().includes(needle) || e.preview.toLowerCase().includes(needle) || asked.toLowerCase().includes(needle);
  });
}

/** `tools/call openDiff`, `selection_changed`; '' for an answer. */
export function methodLabel(e: TrafficEntry): string {
  return e.tool === null ? (e.method ?? '') : `${e.method} ${e.tool}`;
}

/** Where the answer to a request travelling in `dir` comes back. */
const ANSWER_DIR: Partial<Record<Direction, Direction>> = { in: 'out', up: 'down', down: 'up' };

/**
 * Which request each answer answers: answer index → request index (entries oldest first). A
 * request is a frame with a method and an id; its answer is the next frame the other way with
 * the same id and no method.
 */
export function answers(entries: readonly TrafficEntry[]): Map<number, number> {
  const answered = new Map<number, number>();
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
    answered.set(index, requestIndex);
  });
  return answered;
}

/** Round-trip time per answered request, keyed by the request's index in `entries`. */
export function requestTimings(entries: readonly TrafficEntry[]): Map<number, number> {
  const timings = new Map<number, number>();
  for (const [answer, request] of answers(entries)) timings.set(request, entries[answer]!.at - entries[request]!.at);
  return timings;
}

/** What a row's method column says: the method, or for an answer what it answers ("↳ tools/call openDiff"). */
export function rowLabels(entries: readonly TrafficEntry[]): string[] {
  const answered = answers(entries);
  return entries.map((e, index) => {
    if (e.method !== null) return methodLabel(e);
    if (e.id === null) return '';
    const request = answered.get(index);
    return request === undefined ? 'reply' : `↳ ${methodLabel(entries[request]!)}`;
  });
}

/** "840 ms", "12.4 s", "2 min 36 s". */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return hours > 0 ? `${hours} h ${minutes} min` : `${minutes} min ${rest} s`;
}

/** A request id as a column shows it: long ones (UUIDs) by their start. */
export function shortId(id: string | number | null, max = 8): string {
  if (id === null) return '';
  const text = String(id);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The session to show first: the one busy most recently. */
export function busiestSession<S extends { lastActiveAt: number }>(sessions: readonly S[]): S | null {
  return sessions.reduce<S | null>((best, s) => (best === null || s.lastActiveAt > best.lastActiveAt ? s : best), null);
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
