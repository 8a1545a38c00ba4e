// The one model of a proposal's changes: which lines of the file on disk the agent replaces
// with which lines of its proposal. The review editor (its bars, counts and highlighting), the
// CLI's `diffs show` and `--changes`, and what the agent and the history are told all cut a
// proposal into changes here, so "change 2 of 41" is the same lines everywhere.
// Lines are compared by a line-level Myers diff (the `diff` library), which stays exact for a
// big file with scattered one-line edits; character-level diffs give up on those.
import { diffArrays } from 'diff';
import type { NumberedChange } from '../api/types.ts';

/** One change: lines [fromA, toA) of the original become lines [fromB, toB) of the proposal (0-based). */
export interface LineChange {
  /** 0-based; people see `index + 1` "of" the total. */
  index: number;
  fromA: number;
  toA: number;
  fromB: number;
  toB: number;
}

export interface ChangeModel {
  /** The original's lines, each with its line break as in the file (the last may have none). */
  a: readonly string[];
  b: readonly string[];
  changes: readonly LineChange[];
  /**
   * false when the texts differ too much to be diffed line by line within the work limit: then
   * everything between the first and the last differing line is one change.
   */
  precise: boolean;
}

/**
 * The line separator a text uses, so what is written keeps the file's line endings: CRLF when
 * the proposal has one (then only CRLF breaks lines, as in the review editor), else any of
 * \n, \r\n, \r.
 */
export function lineSeparatorOf(text: string): '\r\n' | undefined {
  return text.includes('\r\n') ? '\r\n' : undefined;
}

const ANY_BREAK = /\r\n?|\n/g;
const CRLF = /\r\n/g;

/** The text's lines, each keeping its line break; no empty last line after a final break. */
export function splitLines(text: string, separator?: '\r\n'): string[] {
  // Most files have no \r at all: then a search for \n alone, far cheaper than the regex on a big file.
  if (separator === undefined && !text.includes('\r')) {
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      lines.push(text.slice(start, end + 1));
      start = end + 1;
    }
    if (start < text.length) lines.push(text.slice(start));
    return lines;
  }
  const breaks = separator === '\r\n' ? CRLF : ANY_BREAK;
  const lines: string[] = [];
  let start = 0;
  breaks.lastIndex = 0;
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    const end = m.index + m[0].length;
    lines.push(text.slice(start, end));
    start = end;
  }
  if (start < text.length) lines.push(text.slice(start));
  return lines;
}

const CR = 13;
const LF = 10;

/** Lines compare by their text and whether they end in a break, not by which break. */
function keyOf(line: string, separator: '\r\n' | undefined): string {
  const last = line.charCodeAt(line.length - 1);
  // Checked by character, not by a regex: this runs for every line of both texts.
  if (last === LF) return line.charCodeAt(line.length - 2) === CR ? `${line.slice(0, -2)}\n` : line;
  if (last === CR && separator === undefined) return `${line.slice(0, -1)}\n`;
  return line;
}

/**
 * The work the line diff may do, as (lines compared) × (edit length); past it the texts are
 * "too different" and one change covers the differing stretch. About a second at worst.
 */
const WORK_LIMIT = 40_000_000;

/** The changes between two lists of lines (already split). */
export function diffLines(a: readonly string[], b: readonly string[], separator?: '\r\n'): { changes: LineChange[]; precise: boolean } {
  const keysA = a.map((l) => keyOf(l, separator));
  const keysB = b.map((l) => keyOf(l, separator));
  // The common start and end cost nothing to find and need no diff.
  let head = 0;
  while (head < keysA.length && head < keysB.length && keysA[head] === keysB[head]) head++;
  let tail = 0;
  while (tail < keysA.length - head && tail < keysB.length - head && keysA[keysA.length - 1 - tail] === keysB[keysB.length - 1 - tail]) tail++;
  const midA = keysA.slice(head, keysA.length - tail);
  const midB = keysB.slice(head, keysB.length - tail);
  if (midA.length === 0 && midB.length === 0) return { changes: [], precise: true };
  const whole = (): LineChange[] => [{ index: 0, fromA: head, toA: head + midA.length, fromB: head, toB: head + midB.length }];
  if (midA.length === 0 || midB.length === 0) return { changes: whole(), precise: true };
  const maxEditLength = Math.max(64, Math.floor(WORK_LIMIT / (midA.length + midB.length)));
  const parts = diffArrays(midA, midB, { maxEditLength });
  if (parts === undefined) return { changes: whole(), precise: false };
  const changes: LineChange[] = [];
  let lineA = head;
  let lineB = head;
  let open: LineChange | null = null;
  for (const part of parts) {
    const count = part.value.length;
    if (!part.added && !part.removed) {
      open = null;
      lineA += count;
      lineB += count;
      continue;
    }
    if (open === null) {
      open = { index: changes.length, fromA: lineA, toA: lineA, fromB: lineB, toB: lineB };
      changes.push(open);
    }
    if (part.removed) {
      lineA += count;
      open.toA = lineA;
    } else {
      lineB += count;
      open.toB = lineB;
    }
  }
  return { changes, precise: true };
}

/** The changes a proposal makes to the file on disk (line endings as the review editor reads them). */
export function changeModel(original: string, proposal: string): ChangeModel {
  const separator = lineSeparatorOf(proposal);
  const a = splitLines(original, separator);
  const b = splitLines(proposal, separator);
  return { a, b, ...diffLines(a, b, separator) };
}

/** Lines the proposal adds and removes, all changes together. */
export function lineCounts(changes: readonly LineChange[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const c of changes) {
    added += c.toB - c.fromB;
    removed += c.toA - c.fromA;
  }
  return { added, removed };
}

/** The proposal with only the changes `accepted` (0-based indexes) taken: the others keep the disk's lines. */
export function applyChoices(model: ChangeModel, accepted: ReadonlySet<number>): string {
  const out: string[] = [];
  let lineA = 0;
  for (const c of model.changes) {
    for (; lineA < c.fromA; lineA++) out.push(model.a[lineA]!);
    if (accepted.has(c.index)) for (let i = c.fromB; i < c.toB; i++) out.push(model.b[i]!);
    else for (let i = c.fromA; i < c.toA; i++) out.push(model.a[i]!);
    lineA = c.toA;
  }
  for (; lineA < model.a.length; lineA++) out.push(model.a[lineA]!);
  return out.join('');
}

/**
 * Which changes a written text took, when it is exactly the proposal with some changes kept and
 * the others left as on disk; null when it is anything else (the person typed something).
 */
export function choicesIn(model: ChangeModel, written: string): Set<number> | null {
  const accepted = new Set<number>();
  // From the end: each change's sides are tried longest first, with the rest checked after it.
  const texts = model.changes.map((c) => ({
    a: model.a.slice(c.fromA, c.toA).join(''),
    b: model.b.slice(c.fromB, c.toB).join(''),
  }));
  const between = model.changes.map((c, i) => model.a.slice(i === 0 ? 0 : model.changes[i - 1]!.toA, c.fromA).join(''));
  const rest = model.a.slice(model.changes.at(-1)?.toA ?? 0).join('');
  const tried = new Set<string>();
  const match = (i: number, pos: number): boolean => {
    if (i === model.changes.length) return written.length - pos === rest.length && written.startsWith(rest, pos);
    const key = `${i}:${pos}`;
    if (tried.has(key)) return false;
    tried.add(key);
    const gap = between[i]!;
    if (!written.startsWith(gap, pos)) return false;
    const at = pos + gap.length;
    const { a, b } = texts[i]!;
    if (written.startsWith(b, at) && match(i + 1, at + b.length)) {
      accepted.add(i);
      return true;
    }
    if (written.startsWith(a, at) && match(i + 1, at + a.length)) {
      accepted.delete(i);
      return true;
    }
    return false;
  };
  return match(0, 0) ? accepted : null;
}

/** "lines 12–14" (1-based, of the given side), or "after line 11" for a change with no lines there. */
export function linesText(from: number, to: number): string {
  if (to - from === 0) return from === 0 ? 'at the start' : `after line ${from}`;
  return to - from === 1 ? `line ${from + 1}` : `lines ${from + 1}–${to}`;
}

/** 1-based change numbers as people write them: "2", "1 and 3", "1, 2 and 4". */
export function numbersText(indexes: readonly number[]): string {
  const n = indexes.map((i) => String(i + 1));
  return n.length <= 1 ? (n[0] ?? '') : `${n.slice(0, -1).join(', ')} and ${n.at(-1)}`;
}

/** The model's changes, numbered and placed as `diffs show` shows each (1-based lines, `diff -u` style). */
export function numberedChanges(model: ChangeModel): NumberedChange[] {
  // A side with no lines names the line before it (as diff -u does).
  const start = (from: number, to: number): number => (to === from ? from : from + 1);
  return model.changes.map((c) => ({
    number: c.index + 1,
    oldStart: start(c.fromA, c.toA),
    oldLines: c.toA - c.fromA,
    newStart: start(c.fromB, c.toB),
    newLines: c.toB - c.fromB,
  }));
}

const CONTEXT = 3;

/**
 * A unified diff of the model, each hunk's header naming the changes in it ("change 2 of 41"),
 * which `git apply` and `patch` accept (text after the second @@ is a comment to them).
 */
export function unifiedPatch(model: ChangeModel, names: { path: string; oldHeader: string; newHeader: string }): string {
  const { a, b, changes } = model;
  let out = `--- ${names.path}\t${names.oldHeader}\n+++ ${names.path}\t${names.newHeader}\n`;
  const total = changes.length;
  for (let i = 0; i < changes.length; ) {
    // Changes whose context touches join one hunk.
    let j = i;
    while (j + 1 < changes.length && changes[j + 1]!.fromA - changes[j]!.toA <= 2 * CONTEXT) j++;
    const first = changes[i]!;
    const last = changes[j]!;
    const startA = Math.max(0, first.fromA - CONTEXT);
    const startB = first.fromB - (first.fromA - startA);
    const endA = Math.min(a.length, last.toA + CONTEXT);
    const endB = last.toB + (endA - last.toA);
    const lines: string[] = [];
    let lineA = startA;
    for (let k = i; k <= j; k++) {
      const c = changes[k]!;
      for (; lineA < c.fromA; lineA++) lines.push(patchLine(' ', a[lineA]!));
      for (let x = c.fromA; x < c.toA; x++) lines.push(patchLine('-', a[x]!));
      for (let x = c.fromB; x < c.toB; x++) lines.push(patchLine('+', b[x]!));
      lineA = c.toA;
    }
    for (; lineA < endA; lineA++) lines.push(patchLine(' ', a[lineA]!));
    const which = i === j ? `change ${i + 1} of ${total}` : `changes ${i + 1}–${j + 1} of ${total}`;
    out += `@@ -${range(startA, endA - startA)} +${range(startB, endB - startB)} @@ ${which}\n${lines.join('')}`;
    i = j + 1;
  }
  return out;
}

function range(start: number, count: number): string {
  // A hunk with no lines on a side names the line before it (as diff -u does).
  return count === 0 ? `${start},0` : `${start + 1},${count}`;
}

function patchLine(sign: string, line: string): string {
  return /(\r\n?|\n)$/.test(line) ? `${sign}${line}` : `${sign}${line}\n\\ No newline at end of file\n`;
}
