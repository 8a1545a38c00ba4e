// A write or edit tool call as the change it proposes, for its card in the transcript: the
// lines an edit replaces and adds, the lines a write puts in the file; and the pending diff
// in the review inbox it waits on.
import { diffLines } from 'diff';
import type { DiffSummary } from '../../../src/api/types.ts';
import { isObject } from '../../../src/api/json.ts';

export type ChangeLine = { kind: 'add' | 'del' | 'same'; text: string };

export interface ToolChange {
  /** "write": the whole new contents; "edit": each replacement, old lines then new. */
  kind: 'write' | 'edit';
  path: string | null;
  /** One block per replacement (a write has one). */
  blocks: ChangeLine[][];
}

/** Lines shown on a card before "… N more lines": the inbox shows the whole change. */
export const CARD_LINES = 80;

const lines = (text: string): string[] => {
  const list = text.split('\n');
  if (list.length > 1 && list[list.length - 1] === '') list.pop();
  return list;
};

/** pi's edit arguments: `{path, edits: [{oldText, newText}]}`, or the older `{path, oldText, newText}`. */
function replacements(args: Record<string, unknown>): { oldText: string; newText: string }[] | null {
  const one = (e: unknown) => (isObject(e) && typeof e.oldText === 'string' && typeof e.newText === 'string' ? { oldText: e.oldText, newText: e.newText } : null);
  if (Array.isArray(args.edits)) {
    const list = args.edits.map(one);
    return list.every((e) => e !== null) && list.length > 0 ? (list as { oldText: string; newText: string }[]) : null;
  }
  const legacy = one(args);
  return legacy === null ? null : [legacy];
}

/** The change a write/edit call proposes; null for other tools or arguments of another shape. */
export function toolChange(name: string, args: unknown): ToolChange | null {
  if (!isObject(args)) return null;
  const path = typeof args.path === 'string' ? args.path : null;
  if (name === 'write' && typeof args.content === 'string') {
    return { kind: 'write', path, blocks: [lines(args.content).map((text) => ({ kind: 'add', text }))] };
  }
  if (name !== 'edit') return null;
  const edits = replacements(args);
  if (edits === null) return null;
  const blocks = edits.map(({ oldText, newText }) =>
    diffLines(oldText.endsWith('\n') ? oldText : `${oldText}\n`, newText.endsWith('\n') ? newText : `${newText}\n`).flatMap((part) =>
      lines(part.value).map((text): ChangeLine => ({ kind: part.added ? 'add' : part.removed ? 'del' : 'same', text })),
    ),
  );
  return { kind: 'edit', path, blocks };
}

/** pi-ide names its diff tabs `pi-write:<toolCallId>` / `pi-edit:<toolCallId>`. */
export function reviewTabName(tool: string, toolCallId: string): string | null {
  return tool === 'write' || tool === 'edit' ? `pi-${tool}:${toolCallId}` : null;
}

/** The inbox's pending diff for a hosted session's tool call, when there is one. */
export function pendingDiffFor(
  diffs: readonly DiffSummary[],
  sessionId: string | null,
  tool: { name: string; toolCallId: string },
): DiffSummary | null {
  const tab = reviewTabName(tool.name, tool.toolCallId);
  if (sessionId === null || tab === null) return null;
  return diffs.find((d) => d.status === 'pending' && d.sessionId === sessionId && d.tabName === tab) ?? null;
}
