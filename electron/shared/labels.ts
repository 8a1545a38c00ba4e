// How editors, sessions and counts are named to a person, the same in the tray and the windows.
// Browser-safe: paths are split by hand, not with node:path.
import type { EditorView, SessionView } from '../../src/api/types.ts';
import { baseName, editorLabel } from '../../src/api/labels.ts';

export { baseName, editorLabel };

export const PATCHBAY_REVIEW = 'Patchbay review';

const AGENT_NAMES: Record<SessionView['kind'], string> = { pi: 'pi', claude: 'Claude Code', unknown: 'agent' };

export function agentName(kind: SessionView['kind']): string {
  return AGENT_NAMES[kind];
}

export function sessionLabel(session: Pick<SessionView, 'kind' | 'cwd' | 'pid' | 'id' | 'remote'>): string {
  const where = session.cwd !== null ? baseName(session.cwd) : session.pid !== null ? `pid ${session.pid}` : session.id;
  return `${agentName(session.kind)} · ${where}${session.remote === undefined ? '' : ` on ${session.remote}`}`;
}

/** The folder on this machine a session is bound by: its cwd, or a remote session's mapped one (null outside every map). */
export function localFolder(session: Pick<SessionView, 'cwd' | 'remote' | 'localCwd'>): string | null {
  return session.remote === undefined ? session.cwd : (session.localCwd ?? null);
}

/** The name of whatever serves a session: an editor, or Patchbay itself. */
export function boundLabel(editorId: string | null, editors: readonly EditorView[]): string {
  if (editorId === null) return PATCHBAY_REVIEW;
  const editor = editors.find((e) => e.id === editorId);
  return editor === undefined ? `editor ${editorId} (not running)` : editorLabel(editor);
}

export function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const REASON_TEXT: Record<SessionView['reason'], string> = {
  manual: 'chosen by you',
  sticky: 'remembered for this folder',
  terminal: 'runs in its terminal',
  cwd: 'its folder contains the session',
  focus: 'focused last among several matches',
  worktree: 'the session works in a git worktree of its repository',
  none: 'no editor matches; Patchbay reviews',
};
