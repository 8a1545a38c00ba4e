// The editors a session can be moved to, best first: those whose folders contain the
// session's folder (deepest first), then the other live editors, then Patchbay itself.
import type { EditorView, SessionView } from '../../src/api/types.ts';
import { containingDepth } from '../../src/broker/folders.ts';
import { PATCHBAY_REVIEW, editorLabel } from './labels.ts';

export interface RebindChoice {
  /** null = Patchbay reviews the session's edits itself. */
  editorId: string | null;
  label: string;
  matchesFolder: boolean;
  current: boolean;
}

export function rebindChoices(
  session: Pick<SessionView, 'cwd' | 'editorId'>,
  editors: readonly EditorView[],
): RebindChoice[] {
  const ranked = editors
    .filter((editor) => editor.alive)
    .map((editor) => ({ editor, label: editorLabel(editor), depth: session.cwd === null ? -1 : containingDepth(editor.workspaceFolders, session.cwd) }))
    .sort((a, b) => b.depth - a.depth || a.label.localeCompare(b.label) || a.editor.id.localeCompare(b.editor.id));
  const choices: RebindChoice[] = ranked.map(({ editor, label, depth }) => ({
    editorId: editor.id,
    label,
    matchesFolder: depth >= 0,
    current: editor.id === session.editorId,
  }));
  choices.push({ editorId: null, label: PATCHBAY_REVIEW, matchesFolder: false, current: session.editorId === null });
  return choices;
}
