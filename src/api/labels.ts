// How an editor is named to a person, the same in the CLI, the tray and the windows: its app
// and first folder ("Visual Studio Code · app"), which tells apart windows that share a pid.
// Browser-safe: paths are split by hand, not with node:path.
import type { EditorView } from './types.ts';

/** The last segment of a path, for either separator. */
export function baseName(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return trimmed.slice(cut + 1) || path;
}

export function editorLabel(editor: Pick<EditorView, 'ideName' | 'workspaceFolders'>): string {
  const folder = editor.workspaceFolders[0];
  return folder === undefined ? editor.ideName : `${editor.ideName} · ${baseName(folder)}`;
}
