// Which editor serves a session (DESIGN §5). Pure: no I/O, table-tested.
import type { BindReason } from '../api/types.ts';
import { containingDepth } from './folders.ts';

export interface CandidateEditor {
  id: string;
  workspaceFolders: string[];
  /** Epoch ms of the editor's latest `selection_changed`. */
  focusedAt: number | null;
  /** The git worktrees of the repositories its folders are in (`git worktree list`), its own included. */
  worktrees?: readonly string[];
}

export interface SessionFacts {
  cwd: string | null;
  /** The person's explicit choice: an editor id, `null` for Patchbay itself, `undefined` for none made. */
  manual: string | null | undefined;
  /** Remembered choice for the session's key, same encoding as `manual`. */
  memory: string | null | undefined;
  /** Editors whose terminal the agent runs in (its process descends from theirs): windows of one app. */
  terminalOf?: readonly string[];
}

export interface Choice {
  editorId: string | null;
  reason: BindReason;
}

/** Editors ordered by how well their folders contain `cwd` (deepest first); non-matching left out. */
export function editorsForFolder<E extends CandidateEditor>(editors: readonly E[], cwd: string): E[] {
  return editors
    .map((editor) => ({ editor, depth: containingDepth(editor.workspaceFolders, cwd) }))
    .filter((x) => x.depth >= 0)
    .sort((a, b) => b.depth - a.depth)
    .map((x) => x.editor);
}

/** The editor among `editors` whose folders contain `cwd` deepest; the last focused among equals; null for none. */
function deepestFocused(editors: readonly CandidateEditor[], cwd: string): { editor: CandidateEditor; tied: boolean } | null {
  const scored = editors.map((editor) => ({ editor, depth: containingDepth(editor.workspaceFolders, cwd) }));
  const deepest = Math.max(-1, ...scored.map((s) => s.depth));
  if (deepest < 0) return null;
  const tied = scored.filter((s) => s.depth === deepest).map((s) => s.editor);
  const focused = [...tied].sort((a, b) => (b.focusedAt ?? -1) - (a.focusedAt ?? -1) || a.id.localeCompare(b.id));
  return { editor: focused[0]!, tied: tied.length > 1 };
}

/**
 * Rules in order: (1) the person's choice, (2) sticky memory, (3) the editor whose terminal
 * the agent runs in, when its folders contain cwd, (4) the one editor whose folders contain
 * cwd (deepest wins), (5) among equally deep ones the last focused, (6) with no editor
 * containing cwd, the one whose repository has a worktree containing it (another checkout of
 * the project it has open; deepest, then last focused), (7) none: Patchbay reviews. Choices
 * naming an editor that is not live fall through, so the session returns to it by itself
 * when it comes back.
 */
export function chooseEditor(session: SessionFacts, live: readonly CandidateEditor[]): Choice {
  const isLive = (id: string): boolean => live.some((e) => e.id === id);
  if (session.manual === null) return { editorId: null, reason: 'manual' };
  if (session.manual !== undefined && isLive(session.manual)) return { editorId: session.manual, reason: 'manual' };
  if (session.manual === undefined) {
    if (session.memory === null) return { editorId: null, reason: 'sticky' };
    if (session.memory !== undefined && isLive(session.memory)) return { editorId: session.memory, reason: 'sticky' };
  }
  if (session.cwd === null) return { editorId: null, reason: 'none' };
  const terminal = session.terminalOf ?? [];
  const inTerminal = terminal.length > 0 ? deepestFocused(live.filter((e) => terminal.includes(e.id)), session.cwd) : null;
  if (inTerminal) return { editorId: inTerminal.editor.id, reason: 'terminal' };
  const best = deepestFocused(live, session.cwd);
  if (best) return { editorId: best.editor.id, reason: best.tied ? 'focus' : 'cwd' };
  const worktree = deepestFocused(
    live.map((e) => ({ ...e, workspaceFolders: [...(e.worktrees ?? [])] })),
    session.cwd,
  );
  if (worktree) return { editorId: worktree.editor.id, reason: 'worktree' };
  return { editorId: null, reason: 'none' };
}
