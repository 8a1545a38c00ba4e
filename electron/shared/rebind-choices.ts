// The editors a session can be moved to, best first: those whose folders contain the
// session's folder (deepest first), then the other live editors, then Patchbay itself.
import type { EditorView, SessionView } from '../../src/api/types.ts';
import { PATCHBAY_REVIEW, editorLabel } from './labels.ts';

export interface RebindChoice {
  /** null = Patchbay reviews the session's edits itself. */
  editorId: string | null;
  label: string;
  matchesFolder: boolean;
  current: boolean;
}

/** Length of the deepest folder that contains `path` (segment-wise prefix, no realpath), or -1. */
export function containingDepth(folders: readonly string[], path: string): number {
  let best = -1;
  for (const raw of folders) {
    const folder = raw.length > 1 ? raw.replace(/[\\/]+$/, '') : raw;
    const inside = path === folder || path.startsWith(/[\\/]$/.test(folder) ? folder : `${folder}/`) || path.startsWith(`${folder}\\`);
    if (inside && folder.length > best) best = folder.length;
  }
  return best;
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
