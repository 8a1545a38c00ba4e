// The hosted-session panel's rules, apart from any component: which controls a status
// allows, what a dialog answer sends, how pi's loosely shaped data (models, stats, raw
// events) becomes something to show.
import type {
  DialogAnswer,
  HostedDialog,
  HostedReview,
  HostedStatus,
  HostedView,
  PiCommandInfo,
  PiSessionInfo,
  PromptOutcome,
  Snapshot,
} from '../../../src/api/types.ts';
import { BUILTIN_COMMANDS } from '../../../src/rpc/builtins.ts';
import { baseName } from '../../../electron/shared/labels.ts';
import { isObject } from '../../../src/api/json.ts';

export const THINKING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;

export const STATUS_TEXT: Record<HostedStatus, string> = {
  starting: 'starting',
  idle: 'idle',
  streaming: 'working',
  exited: 'exited',
};

/** Where this pi's edits go, in a sentence for its panel. */
export const REVIEW_TEXT: Record<HostedReview, string> = {
  connecting: 'Connecting to review… Prompts wait until pi-ide in this pi reaches Patchbay, so no edit is written unreviewed.',
  reviewed: 'Edits wait for your review (pi-ide is connected to Patchbay).',
  unreviewed: 'This pi has no pi-ide: its edits are written without review.',
};

/** How a session is called in the list: its name, else an extension's title, else its folder. */
export function hostedTitle(view: Pick<HostedView, 'cwd'> & Partial<Pick<HostedView, 'sessionName' | 'title'>>): string {
  return view.sessionName ?? view.title ?? `pi · ${baseName(view.cwd)}`;
}

/** The status word in the list: a pi stopped on purpose is "stopped", one that died "exited". */
export function statusWord(view: Pick<HostedView, 'status' | 'exit'>): string {
  return view.status === 'exited' && view.exit !== null && stoppedOnPurpose(view.exit) ? 'stopped' : STATUS_TEXT[view.status];
}

/** Extension questions waiting across every hosted session (for the Sessions tab's badge). */
export function questionsWaiting(hosted: readonly Pick<HostedView, 'pendingDialogs'>[] | undefined): number {
  return (hosted ?? []).reduce((n, h) => n + h.pendingDialogs, 0);
}

/** The hub's exit reason as a sentence ("pi exited with code 1", or a bare "SIGKILL"). */
export function exitText(exit: string): string {
  return /^pi\b/i.test(exit) ? exit : `pi exited: ${exit}`;
}

/** A stop the person asked for (the hub says "pi stopped …" / "pi was stopped by …"), not a failure. */
export function stoppedOnPurpose(exit: string): boolean {
  return /^pi (stopped|was stopped)\b/.test(exit);
}

/** Sessions that still run first, then newest first. */
export function sortHosted(list: readonly HostedView[]): HostedView[] {
  return [...list].sort(
    (a, b) => Number(a.status === 'exited') - Number(b.status === 'exited') || b.startedAt - a.startedAt || a.id.localeCompare(b.id),
  );
}

// ── Controls ────────────────────────────────────────────────────────────────

export interface Controls {
  /** The prompt box is shown and accepts text. */
  prompt: boolean;
  /** Send a new prompt (idle). */
  send: boolean;
  /** Steer / Follow up / Abort (streaming). */
  steer: boolean;
  followUp: boolean;
  abort: boolean;
  /** Model and thinking pickers. */
  configure: boolean;
  stop: boolean;
}

export function controlsFor(status: HostedStatus): Controls {
  const streaming = status === 'streaming';
  const running = status === 'idle' || streaming;
  return {
    prompt: running,
    send: status === 'idle',
    steer: streaming,
    followUp: streaming,
    abort: streaming,
    configure: running,
    stop: status !== 'exited',
  };
}

export type PromptAction = 'send' | 'steer' | 'followUp';

/** What a prompt sends: while streaming pi needs to be told how to queue it. */
export function promptParams(
  id: string,
  text: string,
  action: PromptAction,
): { id: string; text: string; streamingBehavior?: 'steer' | 'followUp' } {
  return action === 'send' ? { id, text } : { id, text, streamingBehavior: action };
}

export interface PromptKeyFacts {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

export const PROMPT_SHORTCUTS: readonly { key: string; label: string }[] = [
  { key: 'Enter', label: 'Send (steer while pi works)' },
  { key: 'Shift+Enter', label: 'New line' },
  { key: 'Alt+Enter', label: 'Follow up' },
  { key: 'Tab', label: 'Complete a /command' },
];

/** The prompt box's keys, as in pi's own editor: Enter sends, Shift+Enter breaks the line. */
export function promptKeyAction(facts: PromptKeyFacts & { isComposing?: boolean }, status: HostedStatus): PromptAction | null {
  if (facts.key !== 'Enter' || facts.shiftKey || facts.isComposing === true) return null;
  const controls = controlsFor(status);
  if (facts.altKey && !facts.ctrlKey && !facts.metaKey) return controls.followUp ? 'followUp' : null;
  if (facts.altKey) return null;
  return controls.send ? 'send' : controls.steer ? 'steer' : null;
}

export interface Completion {
  /** What replaces the typed command: `/name ` (with a space when it takes words). */
  insert: string;
  label: string;
  description: string;
  /** Who runs it: Patchbay (a command of pi's terminal UI), or pi's extension, template or skill. */
  from: 'patchbay' | PiCommandInfo['source'];
}

/**
 * The commands a `/` at the start of the prompt box may become, matching what is typed so far:
 * pi's own (`get_commands`) and those Patchbay runs for pi's terminal UI. None once a space is typed.
 */
export function commandCompletions(text: string, piCommands: readonly PiCommandInfo[]): Completion[] {
  const match = /^\/([\w:-]*)$/.exec(text);
  if (match === null) return [];
  const typed = match[1]!.toLowerCase();
  const builtins = BUILTIN_COMMANDS.filter((c) => !piCommands.some((p) => p.name === c.name)).map(
    (c): Completion => ({ insert: `/${c.name}${c.args ? ' ' : ''}`, label: `/${c.name}${c.args ? ` ${c.args}` : ''}`, description: c.description, from: 'patchbay' }),
  );
  const own = piCommands.map((c): Completion => ({ insert: `/${c.name} `, label: `/${c.name}`, description: c.description ?? '', from: c.source }));
  return [...builtins, ...own].filter((c) => c.insert.slice(1).toLowerCase().startsWith(typed));
}

// ── Start form ──────────────────────────────────────────────────────────────

/**
 * Splits extra pi arguments the way a shell would for the simple cases: whitespace
 * separates, single or double quotes keep spaces, a backslash escapes one character.
 */
export function parseArgs(text: string): { ok: true; args: string[] } | { ok: false; error: string } {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < text.length) current += text.charAt(++i);
      else current += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inArg = true;
    } else if (c === '\\' && i + 1 < text.length) {
      current += text.charAt(++i);
      inArg = true;
    } else if (/\s/.test(c)) {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
    } else {
      current += c;
      inArg = true;
    }
  }
  if (quote !== null) return { ok: false, error: `extra arguments: the ${quote} quote is not closed` };
  if (inArg) args.push(current);
  return { ok: true, args };
}

export interface StartForm {
  cwd: string;
  model: string;
  args: string;
}

/** Folders the person likely means: editors' workspaces and where agents already run. */
export function folderSuggestions(snapshot: Pick<Snapshot, 'editors' | 'sessions'> & { hosted?: readonly HostedView[] }): string[] {
  const folders = new Set<string>();
  for (const e of snapshot.editors) for (const f of e.workspaceFolders) folders.add(f);
  for (const s of snapshot.sessions) if (s.cwd !== null) folders.add(s.cwd);
  for (const h of snapshot.hosted ?? []) folders.add(h.cwd);
  return [...folders].sort();
}

export function startParams(
  form: StartForm,
): { ok: true; params: { cwd: string; model?: string; args?: string[] } } | { ok: false; error: string } {
  const cwd = form.cwd.trim();
  if (cwd === '') return { ok: false, error: 'Folder: enter the folder pi should work in' };
  const model = form.model.trim();
  if (model !== '' && /\s/.test(model)) return { ok: false, error: `Model: "${model}" has spaces; use provider/id` };
  const parsed = parseArgs(form.args);
  if (!parsed.ok) return parsed;
  return {
    ok: true,
    params: { cwd, ...(model === '' ? {} : { model }), ...(parsed.args.length === 0 ? {} : { args: parsed.args }) },
  };
}

// ── Models ──────────────────────────────────────────────────────────────────

export interface ModelChoice {
  provider: string;
  modelId: string;
  name: string;
  /** `provider/id`, as HostedView.model names it. */
  key: string;
}

/** pi's get_available_models data (`{models: [...]}` or a bare list), whatever it leaves out. */
export function parseModels(data: unknown): ModelChoice[] {
  const list = Array.isArray(data) ? data : isObject(data) && Array.isArray(data.models) ? data.models : [];
  const seen = new Set<string>();
  const out: ModelChoice[] = [];
  for (const m of list) {
    if (!isObject(m) || typeof m.provider !== 'string' || typeof m.id !== 'string') continue;
    const key = `${m.provider}/${m.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ provider: m.provider, modelId: m.id, name: typeof m.name === 'string' && m.name !== '' ? m.name : m.id, key });
  }
  return out;
}

/** The choices to offer: the current model stays listed even when pi did not report it. */
export function modelOptions(models: readonly ModelChoice[], current: string | null): ModelChoice[] {
  if (current === null || models.some((m) => m.key === current)) return [...models];
  const cut = current.indexOf('/');
  const provider = cut > 0 ? current.slice(0, cut) : '';
  const modelId = cut > 0 ? current.slice(cut + 1) : current;
  return [{ provider, modelId, name: modelId, key: current }, ...models];
}

/** What a command of pi's terminal UI did, for the line under the session's buttons (null: the transcript shows it). */
export function outcomeText(outcome: PromptOutcome): string | null {
  switch (outcome.ran) {
    case 'name':
      return `Named this session “${outcome.name}”.`;
    case 'new':
      return outcome.cancelled ? 'An extension cancelled the new session.' : 'Started a new session.';
    case 'clone':
      return outcome.cancelled ? 'An extension cancelled the clone.' : 'Cloned into a new session.';
    case 'fork':
      return outcome.cancelled ? 'An extension cancelled the fork.' : 'Forked into a new session from before that prompt: it is in the prompt box to edit and send again.';
    case 'export':
      return `Exported the session to ${outcome.path}`;
    case 'prompt':
      // pi 0.99 and later say when an extension's command took the input: no run follows.
      return outcome.disposition === 'handled' ? 'An extension’s command took it: nothing went to the model.' : null;
    case 'compact':
    case 'model':
    case 'thinking':
    case 'bash':
      return null;
  }
}

// ── Saved sessions ──────────────────────────────────────────────────────────

/** Whether a saved session matches what the person typed: every word in its name, first prompt or folder. */
export function pastSessionMatches(session: Pick<PiSessionInfo, 'name' | 'firstPrompt' | 'cwd'>, filter: string): boolean {
  const haystack = [session.name, session.firstPrompt, session.cwd].filter((s) => s !== null).join(' ').toLowerCase();
  return filter
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '')
    .every((word) => haystack.includes(word));
}

/** "just now", "5 min ago", "3 h ago", "2 days ago". */
export function sessionAge(then: number, now: number): string {
  const minutes = Math.max(0, Math.round((now - then) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} h ago`;
  const days = Math.round(hours / 24);
  return days === 1 ? 'yesterday' : `${days} days ago`;
}

/** 900 B, 20 KiB, 1.5 MiB. */
export function fileSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

// ── Stats ───────────────────────────────────────────────────────────────────

/** pi's counters in words ("3 prompts · 12 tool calls · 45k tokens ($0.42) · context 30% of 128k"). */
export { statsSummary } from '../../../src/rpc/stats-words.ts';

// ── Dialogs ─────────────────────────────────────────────────────────────────

export function selectAnswer(option: string): DialogAnswer {
  return { value: option };
}

export function confirmAnswer(yes: boolean): DialogAnswer {
  return { confirmed: yes };
}

/** input and editor dialogs answer with their text, even an empty one (that is not a cancel). */
export function textAnswer(text: string): DialogAnswer {
  return { value: text };
}

export const CANCELLED: DialogAnswer = { cancelled: true };

/** The first dialog still waiting that the person has not answered here yet. */
export function currentDialog(dialogs: readonly HostedDialog[], answered: ReadonlySet<string>, now: number): HostedDialog | null {
  return dialogs.find((d) => !answered.has(d.requestId) && (d.expiresAt === null || d.expiresAt > now)) ?? null;
}

/** "12 s left", or null when pi set no timeout. */
export function countdownText(expiresAt: number | null, now: number): string | null {
  if (expiresAt === null) return null;
  const s = Math.max(0, Math.ceil((expiresAt - now) / 1000));
  return s >= 120 ? `${Math.ceil(s / 60)} min left` : `${s} s left`;
}

// ── Transcript ──────────────────────────────────────────────────────────────

/** Tool arguments as readable text: JSON, with a lone string shown as itself. */
export function argsText(args: unknown): string {
  if (args === undefined || args === null) return '';
  if (typeof args === 'string') return args;
  try {
    return JSON.stringify(args, null, 2);
  } catch {
    return String(args);
  }
}

/** One line for a tool call's header: the path or command it is about, when it has one. */
export function toolSubject(args: unknown): string | null {
  if (!isObject(args)) return null;
  for (const key of ['path', 'file_path', 'command', 'pattern', 'url']) {
    const value = args[key];
    if (typeof value === 'string' && value !== '') return value.split('\n')[0]!;
  }
  return null;
}

/** Events after which pi's token, cost and context stats have moved (each reply counts). */
export function movesStats(event: Record<string, unknown>): boolean {
  return ['message_end', 'turn_end', 'agent_end', 'agent_settled', 'compaction_end', 'hosted_transcript'].includes(String(event.type));
}

/**
 * Raw pi events that change the transcript's shape (a new item, a status); the hub's own
 * transcript is re-read after those. Streamed text, thinking, shell output and the queue are
 * applied locally instead.
 */
export function needsRefetch(event: Record<string, unknown>): boolean {
  if (event.type === 'bash_execution_update' || event.type === 'queue_update') return false;
  if (event.type !== 'message_update') return true;
  const inner = event.assistantMessageEvent;
  if (!isObject(inner)) return true;
  return !['text_delta', 'thinking_delta', 'toolcall_delta'].includes(String(inner.type));
}
