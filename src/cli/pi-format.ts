// What `patchbay pi …` prints for people (the `--json` forms print HubApi values as they are).
// Pure functions of HubApi values, so the wording is tested without a daemon.
import type { ForkPoint, HostedQueue, HostedView, PiCommandInfo, PiSessionInfo } from '../api/types.ts';
import { isObject } from '../api/json.ts';
import { BUILTIN_COMMANDS, SHELL_PREFIXES } from '../rpc/builtins.ts';
import { compactNumber, statsSummary } from '../rpc/stats-words.ts';
import { age, table } from './table.ts';

const REVIEW_WORDS: Record<HostedView['review'], string> = {
  reviewed: 'reviewed',
  connecting: 'connecting',
  unreviewed: 'not reviewed',
};

function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function formatHosted(views: HostedView[]): string {
  if (views.length === 0) return 'No hosted pi sessions.\n';
  const rows = views.map((v) => [
    v.id,
    v.resumable ? 'stopped (resumable)' : v.status,
    v.status === 'exited' ? '-' : v.sessionId === null ? REVIEW_WORDS[v.review] : `${REVIEW_WORDS[v.review]} (${v.sessionId})`,
    v.model ?? '-',
    v.pid === null ? '-' : String(v.pid),
    v.cwd,
    v.sessionName ?? '-',
  ]);
  return table([['ID', 'STATUS', 'REVIEW', 'MODEL', 'PID', 'FOLDER', 'NAME'], ...rows], '');
}

export function formatState(state: unknown): string {
  if (!isObject(state)) return `${JSON.stringify(state)}\n`;
  const model = isObject(state.model) ? `${String(state.model.provider)}/${String(state.model.id)}` : '-';
  const rows: [string, string][] = [
    ['Model', model],
    ['Thinking', String(state.thinkingLevel ?? '-')],
    ['Streaming', state.isStreaming === true ? 'yes' : 'no'],
    ['Messages', String(state.messageCount ?? '-')],
    ['Queued', String(state.pendingMessageCount ?? '-')],
    ['Name', typeof state.sessionName === 'string' ? state.sessionName : '-'],
    ['Session', String(state.sessionFile ?? state.sessionId ?? '-')],
    ['Steering', String(state.steeringMode ?? '-')],
    ['Follow-ups', String(state.followUpMode ?? '-')],
    ['Auto-compaction', state.autoCompactionEnabled === true ? 'on' : state.autoCompactionEnabled === false ? 'off' : '-'],
  ];
  return table(rows, '');
}

/** pi's saved sessions: when, how big, where, what it was about; the file to resume it by. */
export function formatSessions(sessions: PiSessionInfo[], now: number): string {
  if (sessions.length === 0) return 'No saved pi sessions.\n';
  const rows = sessions.map((s) => [
    `${age(s.modifiedAt, now)} ago`,
    s.bytes < 1024 ? `${s.bytes} B` : `${compactNumber(s.bytes / 1024)} KiB`,
    s.cwd,
    s.name ?? (s.firstPrompt === null ? '(no prompt yet)' : `“${oneLine(s.firstPrompt, 50)}”`),
    s.hostedId ?? '-',
    s.file,
  ]);
  return `${table([['CHANGED', 'SIZE', 'FOLDER', 'NAME OR FIRST PROMPT', 'HOSTED', 'FILE'], ...rows], '')}Resume one with: patchbay pi resume <file>\n`;
}

/** pi's own commands (run with `/name`) after the ones Patchbay carries out for pi's TUI. */
export function formatCommands(commands: PiCommandInfo[]): string {
  const rows = [
    ...BUILTIN_COMMANDS.map((c) => [`/${c.name}${c.args ? ` ${c.args}` : ''}`, 'patchbay', c.description]),
    ...SHELL_PREFIXES.map((p) => [`${p.prefix}<command>`, 'patchbay', p.description]),
    ...commands.map((c) => [`/${c.name}`, c.source, c.description ?? '']),
  ];
  return table([['COMMAND', 'FROM', 'WHAT IT DOES'], ...rows], '');
}

export function formatQueue(queue: HostedQueue): string {
  if (queue.steering.length + queue.followUp.length === 0) return 'Nothing is queued.\n';
  const lines = [...queue.steering.map((t) => `steer      ${oneLine(t, 100)}`), ...queue.followUp.map((t) => `follow-up  ${oneLine(t, 100)}`)];
  return `${lines.join('\n')}\n`;
}

export function formatForkPoints(points: ForkPoint[]): string {
  if (points.length === 0) return 'No earlier prompt to fork from.\n';
  return `${points.map((p, i) => `${i + 1}. ${oneLine(p.text, 100)}`).join('\n')}\nFork from one with: --at <the start of its text>\n`;
}

export function formatStats(stats: unknown): string {
  return `${statsSummary(stats) ?? 'No stats yet.'}\n`;
}

/** pi's session tree (`get_tree`), one entry a line, indented by depth; `*` marks where pi is. */
export function formatTree(data: unknown): string {
  const tree = isObject(data) && Array.isArray(data.tree) ? data.tree : [];
  const leafId = isObject(data) && typeof data.leafId === 'string' ? data.leafId : null;
  const lines: string[] = [];
  const walk = (node: unknown, depth: number): void => {
    if (!isObject(node) || !isObject(node.entry)) return;
    const label = entryLabel(node.entry);
    const children = Array.isArray(node.children) ? node.children : [];
    if (label !== null) lines.push(`${'  '.repeat(depth)}${node.entry.id === leafId ? '* ' : '- '}${label}`);
    // A straight line of entries stays at one depth; only where it branches does it indent.
    for (const child of children) walk(child, children.length > 1 ? depth + 1 : depth);
  };
  for (const root of tree) walk(root, 0);
  return lines.length === 0 ? 'The session is empty.\n' : `${lines.join('\n')}\n`;
}

function entryLabel(entry: Record<string, unknown>): string | null {
  if (entry.type === 'message' && isObject(entry.message)) {
    const { role, content } = entry.message;
    const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join(' ') : '';
    if (role === 'user') return `you: ${oneLine(text, 80)}`;
    if (role === 'assistant') return `pi: ${oneLine(text, 80) || '(tool calls)'}`;
    return null;
  }
  if (entry.type === 'compaction') return 'compacted';
  if (entry.type === 'branch_summary') return 'summary of a branch left';
  if (entry.type === 'session_info') return typeof entry.name === 'string' ? `named “${entry.name}”` : null;
  return null;
}
