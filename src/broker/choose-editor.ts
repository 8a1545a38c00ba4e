// Which editor serves a session (DESIGN §5). Pure: no I/O, table-tested.
import type { BindReason } from '../api/types.ts';
import { containingDepth } from './folders.ts';

export interface CandidateEditor {
  id: string;
  workspaceFolders: string[];
  /** Epoch ms of the editor's latest `selection_changed`. */
  focusedAt: number | null;
}

export interface SessionFacts {
  cwd: string | null;
  /** The person's explicit choice: an editor id, `null` for Patchbay itself, `undefined` for none made. */
  manual: string | null | undefined;
  /** Remembered choice for the session's key, same encoding as `manual`. */
  memory: string | null | undefined;
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

/**
 * Rules in order: (1) the person's choice, (2) sticky memory, (3) the one editor whose
 * folders contain cwd (deepest wins), (4) among equally deep ones the last focused,
 * (5) none: Patchbay reviews. Choices naming an editor that is not live fall through,
 * so the session returns to it by itself when it comes back.
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
  const cwd = session.cwd;
  const scored = live.map((editor) => ({ editor, depth: containingDepth(editor.workspaceFolders, cwd) }));
  const deepest = Math.max(-1, ...scored.map((s) => s.depth));
  if (deepest < 0) return { editorId: null, reason: 'none' };
  const tied = scored.filter((s) => s.depth === deepest).map((s) => s.editor);
  if (tied.length === 1) return { editorId: tied[0]!.id, reason: 'cwd' };
  const focused = [...tied].sort((a, b) => (b.focusedAt ?? -1) - (a.focusedAt ?? -1) || a.id.localeCompare(b.id));
  return { editorId: focused[0]!.id, reason: 'focus' };
}
