// The merge view's diff, fed from Patchbay's change model (src/review/changes.ts): lines are
// matched there, so the editor paints exactly the changes the bars, counts and CLI count; only
// within each changed stretch does CodeMirror's character diff mark the words that differ.
// Without this the merge view runs its own character diff over the whole file, which gives up
// on a big file with scattered edits and paints long stretches as deleted and re-added.
import { Change, diff } from '@codemirror/merge';
import type { DiffConfig } from '@codemirror/merge';
import { diffLines, splitLines, type ChangeModel, type LineChange } from '../../../src/review/changes.ts';

/** Small stretches only reach the character diff; this bounds it all the same. */
const WORD_DIFF = { scanLimit: 500 };

function offsets(lines: readonly string[]): number[] {
  const at = [0];
  for (const line of lines) at.push(at[at.length - 1]! + line.length);
  return at;
}

/** The character-level changes between two texts (CodeMirror joins lines with \n), line-matched first. */
export function lineMatchedDiff(a: string, b: string): readonly Change[] {
  const linesA = splitLines(a);
  const linesB = splitLines(b);
  return charChanges(a, b, linesA, linesB, diffLines(linesA, linesB).changes);
}

/** Each line change of `a` → `b`, with the words that differ inside it marked. */
function charChanges(a: string, b: string, linesA: readonly string[], linesB: readonly string[], changes: readonly LineChange[]): readonly Change[] {
  const atA = offsets(linesA);
  const atB = offsets(linesB);
  const result: Change[] = [];
  for (const c of changes) {
    const fromA = atA[c.fromA]!;
    const toA = atA[c.toA]!;
    const fromB = atB[c.fromB]!;
    const toB = atB[c.toB]!;
    if (fromA === toA || fromB === toB) {
      result.push(new Change(fromA, toA, fromB, toB));
      continue;
    }
    for (const inner of diff(a.slice(fromA, toA), b.slice(fromB, toB), WORD_DIFF)) {
      result.push(new Change(inner.fromA + fromA, inner.toA + fromA, inner.fromB + fromB, inner.toB + fromB));
    }
  }
  return result;
}

export const REVIEW_DIFF: DiffConfig = { override: lineMatchedDiff };

/**
 * The review's diff for the texts `a` and `b` whose change model is already worked out (the review
 * editor's): the merge view's first diff, made as it is built from those very texts, is that
 * model's, not a second line diff of a big file; later ones (the person typed) are diffed afresh.
 * The first is known by the texts' lengths, not compared whole: the merge view's copies are ropes
 * of every line, and comparing them would first copy both files.
 */
export function reviewDiffFor(model: ChangeModel, a: string, b: string): DiffConfig {
  let first = true;
  return {
    override: (textA, textB) => {
      const built = first && textA.length === a.length && textB.length === b.length;
      first = false;
      return built ? charChanges(a, b, model.a, model.b, model.changes) : lineMatchedDiff(textA, textB);
    },
  };
}
