// How a decision is told to the person: the notice after it, the history's lines, the facts
// above a decided diff. Apart from any component.
import type { DecisionRecord, EditorView, SessionView } from '../../../src/api/types.ts';
import { baseName, boundLabel } from '../../../electron/shared/labels.ts';
import { whatWasWritten } from '../../../src/review/decision-words.ts';

export interface DecisionContext {
  sessions: readonly Pick<SessionView, 'id' | 'cwd'>[];
  editors: readonly EditorView[];
}

/** Agents by the names they give (client name, else dialect), as people call them. */
const AGENTS: Record<string, string> = { 'pi-ide': 'pi', pi: 'pi', 'claude-code': 'Claude Code', claude: 'Claude Code' };

export function agentOf(record: Pick<DecisionRecord, 'agent'>): string {
  return AGENTS[record.agent] ?? (record.agent || 'the agent');
}

/** A path as short as it stays clear: relative to the session's folder when it is inside. */
export function shownPath(path: string, cwd: string | null | undefined): string {
  if (cwd) {
    const folder = cwd.replace(/[\\/]+$/, '');
    if (path.startsWith(`${folder}/`) || path.startsWith(`${folder}\\`)) return path.slice(folder.length + 1);
  }
  return baseName(path);
}

function fileOf(record: DecisionRecord, ctx: DecisionContext): string {
  return shownPath(record.path, ctx.sessions.find((s) => s.id === record.sessionId)?.cwd);
}

/** Where the decision was made: "in Patchbay", "in Neovim · proj"… */
export function whereDecided(record: DecisionRecord, ctx: DecisionContext): string {
  switch (record.by) {
    case 'patchbay':
      return 'in Patchbay';
    case 'editor':
      return `in ${record.editorId === null ? 'the editor' : boundLabel(record.editorId, ctx.editors)}`;
    case 'agent':
      return `by ${agentOf(record)} (a newer proposal replaced it)`;
    case 'shutdown':
      return 'as Patchbay stopped';
    case 'crash':
      return `by nobody: Patchbay stopped unexpectedly, and ${agentOf(record)} may have written it without review`;
    case 'review-after':
      return 'at once, to be reviewed after';
  }
}

/** The notice after a decision: what was written, where it was decided, what the agent heard. */
export function decisionNotice(record: DecisionRecord, ctx: DecisionContext): string {
  const file = fileOf(record, ctx);
  const agent = agentOf(record);
  const where = record.by === 'patchbay' ? '' : ` ${whereDecided(record, ctx)}`;
  const reason = record.reason ? ` Your reason went with it.` : '';
  if (record.outcome === 'accepted') {
    const told = record.changes ? ` ${agent} was told which changes it did not get.` : '';
    return `Accepted ${file}${whatWasWritten(record, ' (', ')')}${where}: written by ${agent}.${told}${reason}`;
  }
  if (record.outcome === 'applied') return `Applied ${file} at once: written by ${agent}, to review after.`;
  if (record.outcome === 'interrupted') {
    return `Not reviewed: ${file} was waiting when Patchbay stopped unexpectedly; ${agentOf(record)} may have written it without review. Check the file.`;
  }
  if (record.outcome === 'withdrawn') return `Withdrawn ${file}: ${agent} went away before a decision; nothing was written.`;
  if (record.by === 'agent') return `Replaced ${file}: ${agent} sent a newer proposal; this one was not written.`;
  return `Rejected ${file}${where}: ${agent} was told no; the file is unchanged.${reason}`;
}

/** One history line's detail: "in Patchbay, 2 of 3 changes" or "in Neovim, edited in the editor". */
export function historyDetail(record: DecisionRecord, ctx: DecisionContext): string {
  const undone = record.status !== 'undone' && record.undone?.length ? `, ${record.undone.length === 1 ? 'change' : 'changes'} ${record.undone.join(', ')} undone` : '';
  return `${whereDecided(record, ctx)}${whatWasWritten(record, ', ')}${undone}`;
}

/** Where the diff was offered for review besides Patchbay, for a decided diff's facts. */
export function offeredTo(record: DecisionRecord, ctx: DecisionContext): string {
  return record.editorId === null ? 'Patchbay only' : boundLabel(record.editorId, ctx.editors);
}
