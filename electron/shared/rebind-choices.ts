// The editors a session can be moved to, best first: those whose folders contain the
// session's folder (deepest first), then the other live editors, then Patchbay itself; and
// "Automatic", which forgets the person's choice so the broker's rules decide again.
import type { EditorView, SessionView } from '../../src/api/types.ts';
import { chooseEditor } from '../../src/broker/choose-editor.ts';
import { containingDepth } from '../../src/broker/folders.ts';
import { PATCHBAY_REVIEW, boundLabel, editorLabel, localFolder } from './labels.ts';

export interface RebindChoice {
  /** null = Patchbay reviews the session's edits itself. */
  editorId: string | null;
  label: string;
  matchesFolder: boolean;
  current: boolean;
}

export function rebindChoices(
  session: Pick<SessionView, 'cwd' | 'editorId' | 'remote' | 'localCwd'>,
  editors: readonly EditorView[],
): RebindChoice[] {
  const cwd = localFolder(session);
  const ranked = editors
    .filter((editor) => editor.alive)
    .map((editor) => ({ editor, label: editorLabel(editor), depth: cwd === null ? -1 : containingDepth(editor.workspaceFolders, cwd) }))
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

/** No choice made or remembered for the session: the broker's rules bind it ("Automatic"). */
export function isAutomatic(session: Pick<SessionView, 'reason'>): boolean {
  return session.reason !== 'manual' && session.reason !== 'sticky';
}

/** "Automatic (Neovim · app)": what the rules pick for the session now, without any choice (the hub's answer). */
export function automaticLabel(session: Pick<SessionView, 'automaticEditorId'>, editors: readonly EditorView[]): string {
  return `Automatic (${boundLabel(session.automaticEditorId, editors)})`;
}

/** The editor serving the session when its folders do not contain the session's folder. */
export function editorOutsideFolder(session: Pick<SessionView, 'cwd' | 'editorId' | 'remote' | 'localCwd' | 'reason'>, editors: readonly EditorView[]): EditorView | null {
  const cwd = localFolder(session);
  // In another worktree of the editor's repository the files are the same project's.
  if (session.editorId === null || cwd === null || session.reason === 'worktree') return null;
  const editor = editors.find((e) => e.id === session.editorId);
  if (editor === undefined || containingDepth(editor.workspaceFolders, cwd) >= 0) return null;
  return editor;
}
