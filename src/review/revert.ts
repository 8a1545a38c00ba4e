// Taking changes of an edit back in the file as it is now (a three-way revert): the edit's changes
// are the line diff from the file before it to what it wrote (numbered as everywhere, changes.ts);
// where the file went since is the line diff from what was written to the file now, which finds each
// change's lines wherever later edits moved them. A change is taken back only when the lines it
// produced are all still there unchanged; later edits to other lines stay. Pure.
import { changeModel, diffLines, linesText, lineSeparatorOf, splitLines, type LineChange } from './changes.ts';

export interface RevertInput {
  /** The file before the edit ('' for a file it created). */
  before: string;
  /** What the edit wrote. */
  written: string;
  /** The file now. */
  current: string;
  /** The edit's changes to take back, 0-based. */
  which: readonly number[];
}

/** A change that cannot be taken back, and why (for people: "lines 12–14 of what was written changed since"). */
export interface RevertConflict {
  index: number;
  why: string;
}

export type RevertResult = { ok: true; text: string } | { ok: false; conflicts: RevertConflict[] };

/** Whether a later change (`later`, in the written text's lines) touches the lines [from, to) of a change. */
function touches(later: LineChange, from: number, to: number): boolean {
  const { fromA: a, toA: b } = later;
  if (from < to) return a === b ? from < a && a < to : a < to && from < b;
  // Lines the edit removed go back between two lines: not where something else was put since.
  return a === b ? a === from : a < from && from < b;
}

/** Where line `at` of the written text (unchanged since) is in the file now: after every later change before it. */
function mapped(later: readonly LineChange[], at: number): number {
  let shift = 0;
  for (const c of later) if (c.toA <= at) shift += c.toB - c.fromB - (c.toA - c.fromA);
  return at + shift;
}

/**
 * The file now with the changes `which` taken back, or the changes that cannot be (their lines
 * changed since). All or nothing: with any conflict, no text.
 */
export function revertChanges(input: RevertInput): RevertResult {
  const edit = changeModel(input.before, input.written);
  const separator = lineSeparatorOf(input.written);
  const now = splitLines(input.current, separator);
  const later = diffLines(edit.b, now, separator).changes;
  const conflicts: RevertConflict[] = [];
  const replacements: { at: number; length: number; lines: string[] }[] = [];
  for (const index of [...new Set(input.which)].sort((x, y) => x - y)) {
    const change = edit.changes[index];
    if (change === undefined) {
      conflicts.push({ index, why: `the edit has ${edit.changes.length} ${edit.changes.length === 1 ? 'change' : 'changes'}` });
      continue;
    }
    if (later.some((l) => touches(l, change.fromB, change.toB))) {
      const where = change.fromB === change.toB ? `where it removed lines (${linesText(change.fromB, change.toB)} of what was written)` : `${linesText(change.fromB, change.toB)} of what was written`;
      conflicts.push({ index, why: `${where} changed since` });
      continue;
    }
    replacements.push({ at: mapped(later, change.fromB), length: change.toB - change.fromB, lines: edit.a.slice(change.fromA, change.toA) });
  }
  if (conflicts.length > 0) return { ok: false, conflicts };
  const out = [...now];
  // From the end, so earlier positions stay valid.
  for (const r of replacements.reverse()) {
    const lines = [...r.lines];
    const last = lines.length - 1;
    // A restored last line without a break needs one when lines follow it now.
    if (last >= 0 && r.at + r.length < out.length && !/(\r\n?|\n)$/.test(lines[last]!)) lines[last] += separator ?? '\n';
    out.splice(r.at, r.length, ...lines);
  }
  return { ok: true, text: out.join('') };
}
