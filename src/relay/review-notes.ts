// What a pi agent is told of a review, where the real pi-ide lets the model read it. pi-ide
// answers a FILE_SAVED by writing the file and reporting its own tool's success ("Successfully
// replaced 1 block(s)"), and a DIFF_REJECTED with a fixed "user rejected the edit in IDE": the
// words Patchbay adds to the answer (which changes were left out, the person's reason) never
// reach the model. pi-ide does put every Error and Warning diagnostic before the model at its
// next call, so the words also go, once, into that session's next getDiagnostics answer.
import type { Dialect } from '../api/types.ts';
import { translateDiagnostics } from '../protocol/dialect.ts';
import { resultTexts, textResult } from '../protocol/mcp.ts';

export interface ReviewNote {
  path: string;
  message: string;
  /** The line it is about (1-based), where there is one: pi-ide shows it with the message. */
  line?: number;
}

/** Notes kept per session until its next getDiagnostics (a burst of decisions keeps its latest few). */
export const MAX_NOTES = 5;

/** The agent's getDiagnostics result with the notes added as Warnings on their files; unknown shapes unchanged. */
export function addReviewNotes(result: unknown, notes: readonly ReviewNote[], to: Dialect): unknown {
  if (notes.length === 0) return result;
  // translateDiagnostics has checked the shape: what it could not read it returns unchanged.
  const translated = translateDiagnostics(result, to);
  if (translated === result) return result;
  const parsed: unknown = JSON.parse(resultTexts(translated)![0]!);
  const diagnostic = ({ message, line }: ReviewNote) => {
    const at = { line: Math.max(0, (line ?? 1) - 1), character: 0 };
    return { severity: 'Warning', source: 'Patchbay review', message, range: { start: at, end: at } };
  };
  if (to === 'pi') {
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return result;
    const byUri = new Map(Object.entries(parsed as Record<string, unknown[]>));
    for (const note of notes) {
      const uri = `file://${note.path}`;
      byUri.set(uri, [diagnostic(note), ...(byUri.get(uri) ?? [])]);
    }
    return textResult(JSON.stringify(Object.fromEntries(byUri)));
  }
  if (!Array.isArray(parsed)) return result;
  const list = [...(parsed as { uri: string; diagnostics: unknown[] }[])];
  for (const note of notes) list.unshift({ uri: `file://${note.path}`, diagnostics: [diagnostic(note)] });
  return textResult(JSON.stringify(list));
}
