// The one typed surface every face (Electron IPC, the web bridge, the CLI) uses.
// Commands are a map so each transport is one generic `call(method, params)`.

export type Dialect = 'pi' | 'claude';
export type AgentKind = 'pi' | 'claude' | 'unknown';
export type BindReason = 'manual' | 'sticky' | 'terminal' | 'cwd' | 'focus' | 'worktree' | 'none';

export interface EditorView {
  /** Stable across restarts: derived from (ideName, first workspace folder). */
  id: string;
  ideName: string;
  workspaceFolders: string[];
  port: number;
  pid: number;
  dialect: Dialect;
  alive: boolean;
  /** Where its lockfile lives now (adopted into `.patchbay/` under takeover). */
  lockfile: string;
  /** Epoch ms of its last `selection_changed`, if any. */
  focusedAt: number | null;
  /** Patchbay's one link to it (every session's traffic goes over it); `taken`: another client has the editor. */
  link?: EditorLinkState;
  /** Why there is no link now, for the person (e.g. another client took it). */
  linkProblem?: string | null;
  /** Other git worktrees of the repositories it has open: agents there are bound to it (reason `worktree`). */
  worktrees?: string[];
}

export type EditorLinkState = 'open' | 'opening' | 'down' | 'taken';

export interface InvalidLockfile {
  path: string;
  reason: string;
}

export interface SessionView {
  id: string;
  kind: AgentKind;
  dialect: Dialect;
  clientName: string | null;
  /** Its process; for a remote session, the process over there. */
  pid: number | null;
  /** Its folder; for a remote session, as the remote names it. */
  cwd: string | null;
  /** The remote it came through (`patchbay remote add`); absent for an agent on this machine. */
  remote?: string;
  /** A remote session's folder on this machine (what binds it); null when no map covers it. */
  localCwd?: string | null;
  command: string | null;
  /**
   * Whether its process (so its folder) is known: `looking` while the lookup is retried (it is
   * bound the moment it is known), `unknown` once Patchbay gave up.
   */
  identity: 'looking' | 'known' | 'unknown';
  connectedAt: number;
  lastActiveAt: number;
  editorId: string | null;
  reason: BindReason;
  /** The editor the binding rules pick with no choice made (what "Automatic" means for it now). */
  automaticEditorId: string | null;
  /** The person's explicit choice, when there is one (`null` = Patchbay reviews). */
  manualEditorId?: string | null;
  pendingDiffs: number;
}

/** A pi process that runs but has not connected to the door. */
export interface IdleAgent {
  pid: number;
  cwd: string | null;
  command: string;
  reason: string;
}

/** `interrupted`: Patchbay stopped unexpectedly (a crash, kill -9) before any decision. */
export type DiffStatus = 'pending' | 'accepted' | 'rejected' | 'withdrawn' | 'interrupted';
/** `crash`: nobody decided; Patchbay went away with the diff pending (the agent may have written it unreviewed). */
export type DecidedBy = 'editor' | 'patchbay' | 'agent' | 'shutdown' | 'crash';

/** A remote agent's file, as its remote names it; `mapped` false: no map covers it, so it is reviewed in Patchbay only. */
export interface RemotePlace {
  name: string;
  path: string;
  mapped: boolean;
}

export interface DiffSummary {
  id: string;
  sessionId: string;
  editorId: string | null;
  tool: 'write' | 'edit' | 'other';
  path: string;
  tabName: string;
  status: DiffStatus;
  createdAt: number;
  /** The file did not exist when the diff arrived. */
  isNew: boolean;
  /** The on-disk file was over the size cap; its old contents are not kept. */
  tooLarge: boolean;
  /** Currently open in the bound editor. */
  inEditor: boolean;
  /** From an agent on a remote: its file as the remote names it (`path` is the file here, or the remote's when no map covers it). */
  remote?: RemotePlace;
}

/** A diff with its contents: pending (`decision` null) or from the history (decided). */
export interface DiffDetail extends DiffSummary {
  oldContents: string | null;
  newContents: string;
  /** Once decided: what was decided, by whom, where. */
  decision: DecisionRecord | null;
  /** What the agent was told to write (an accepted diff: the proposal or the person's edit); else null. */
  finalContents: string | null;
  /** A decided diff whose contents the history did not keep, and why (then both contents are empty). */
  contentsNotKept?: string;
}

/** Which of a proposal's changes (1-based, numbered as the review and `diffs show` number them) were taken. */
export interface ChangeChoices {
  total: number;
  accepted: number[];
  rejected: number[];
}

export interface DecisionRecord {
  id: string;
  sessionId: string;
  path: string;
  outcome: 'accepted' | 'rejected' | 'withdrawn' | 'interrupted';
  by: DecidedBy;
  at: number;
  /** The person typed into the proposal (beyond taking or leaving whole changes). */
  edited: boolean;
  /** Some of the proposal's changes were taken and others left as on disk (absent: all of them, or not known). */
  changes?: ChangeChoices;
  /** What the person wrote for the agent with the decision. */
  reason?: string;
  /** What the agent was told in words beside FILE_SAVED / DIFF_REJECTED, when anything. */
  told?: string;
  tool: DiffSummary['tool'];
  /** The editor the diff was offered to, if any (where it was decided when `by` is `editor`). */
  editorId: string | null;
  /** The agent as the person knows it: its client name (`pi-ide`, `claude-code`) or its dialect. */
  agent: string;
  /** From an agent on a remote: its file as the remote names it. */
  remote?: RemotePlace;
}

export interface TrafficEntry {
  at: number;
  /** in = agent → Patchbay, out = Patchbay → agent, up = → editor, down = editor →. */
  dir: 'in' | 'out' | 'up' | 'down';
  editorId: string | null;
  method: string | null;
  /** For `tools/call`, which tool: most of the traffic is tool calls. */
  tool: string | null;
  id: string | number | null;
  bytes: number;
  /** The frame, cut to a preview length. */
  preview: string;
}

export type ReviewRoute = 'editor-and-patchbay' | 'patchbay-only';

/** `--map <remote-dir>=<local-dir>`: a folder over there and the same folder here (a bind mount, sshfs, a synced copy). */
export interface PathMapping {
  remote: string;
  local: string;
}

/** A remote as the person added it (`patchbay remote add`): agents there reach the door over SSH. */
export interface RemoteConfig {
  /** Its name in Patchbay (a session's `remote`). */
  name: string;
  /** What `ssh` is given: `[user@]host`, a Host of ~/.ssh/config, or `ssh://…`. */
  destination: string;
  maps: PathMapping[];
}

export interface RemoteView {
  name: string;
  destination: string;
  maps: PathMapping[];
  state: 'connected' | 'connecting' | 'failed';
  /** `failed`: why it is down and what to fix; `connecting`: why the previous connection ended, while retrying. */
  reason: string | null;
  /** The loopback port over there that leads to the door, while connected. */
  remotePort: number | null;
  /** The door lockfiles written over there (remote paths), while connected. */
  lockfiles: string[];
  /** Lock dirs over there that could not be written, and why. */
  problems: string[];
  /** Epoch ms the current state began; `retryAt`: when the next attempt starts, while failed. */
  since: number;
  retryAt: number | null;
}

export interface PatchbaySettings {
  /** Adopt editors' lockfiles so agents see only the door. */
  takeover: boolean;
  /** Publish the door in Claude's lock dir too. */
  claude: boolean;
  /** Extra folders the door advertises, so agents with no editor still reach Patchbay. */
  reviewFolders: string[];
  diagnosticsDeadlineMs: number;
  maxFrameBytes: number;
  maxPendingPerSession: number;
  reviewRoute: ReviewRoute;
  /** `editor` | `session` | `provider/id`; applied where no per-editor choice exists. */
  suggestionModel: string;
  suggestionModelPerEditor: Record<string, string>;
  /** editorId → session key (`kind:cwd`) that serves its suggestions; absent = most recent. */
  suggestionSessionPerEditor: Record<string, string>;
  launchAtLogin: boolean;
  /** Let `pi.start` pass extension arguments (`-e <path>`): an extension is code pi runs. */
  allowPiExtensions: boolean;
  /**
   * Lock dirs trusted although others may write them: their lockfiles are adopted anyway.
   * Others' lockfiles are never used, trusted dir or not.
   */
  trustedLockDirs: string[];
  /**
   * How hosted sessions run pi, as typed: a path, or a JSON array of the program and its
   * leading arguments. '' = `$PATCHBAY_PI_COMMAND`, else `pi` on PATH.
   */
  piCommand: string;
  /** Remotes kept connected (`patchbay remote add`): what makes Patchbay run ssh, so only the person sets them. */
  remotes: RemoteConfig[];
}

export interface SuggestionModel {
  provider: string;
  id: string;
  name: string;
  model: string;
}

export interface SessionModels {
  sessionId: string;
  cliOverride: string | null;
  currentModel: string | null;
  models: SuggestionModel[];
  fetchedAt: number | null;
  error: string | null;
}

export interface AutoconnectView {
  globalFile: string;
  global: boolean | null;
  projectFile: string | null;
  project: boolean | null;
  /** Project overrides global; missing = enabled. */
  effective: boolean;
}

// ── Hosted pi sessions (pi --mode rpc, started by Patchbay) ─────────────────

export type HostedStatus = 'starting' | 'idle' | 'streaming' | 'exited';

/**
 * Whether a hosted pi's edits reach Patchbay's review: `reviewed` once its pi-ide is at the
 * door; `connecting` while a pi with pi-ide is not yet (prompts wait for it, else its first
 * edits would be written unreviewed); `unreviewed` for a pi without pi-ide.
 */
export type HostedReview = 'connecting' | 'reviewed' | 'unreviewed';

export interface HostedView {
  id: string;
  cwd: string;
  pid: number | null;
  status: HostedStatus;
  /** `provider/id` of the current model, when known. */
  model: string | null;
  thinkingLevel: string | null;
  startedAt: number;
  /** Why it exited (exit code / signal / error text), once it has. */
  exit: string | null;
  /** The door session this pi opened through pi-ide, when it did. */
  sessionId: string | null;
  review: HostedReview;
  /** Extension dialogs waiting for the person. */
  pendingDialogs: number;
  /** pi's session file (its saved conversation), once known; null for a `--no-session` pi. */
  sessionFile: string | null;
  /** The session's display name (`/name`, `set_session_name`), when it has one. */
  sessionName: string | null;
  /** A session that is not running but can be started again on its file (`pi.resume`). */
  resumable: boolean;
  /** The title an extension gave the session (`setTitle`), shown instead of its folder. */
  title: string | null;
}

/** One item of a hosted session's transcript, as the UI shows it. */
export type TranscriptItem =
  /** `images`: how many images went with the prompt. */
  | { kind: 'user'; text: string; at: number; images?: number }
  | { kind: 'assistant'; text: string; thinking: string; at: number; done: boolean }
  /** `diffId`: the inbox diff a write or edit was sent to for review (by its tab name `pi-write:<toolCallId>`). */
  | { kind: 'tool'; toolCallId: string; name: string; args: unknown; output: string; isError: boolean; done: boolean; at: number; diffId?: string }
  /** A shell command the person ran (`!cmd`; `excluded`: `!!cmd`, kept out of the model's context). */
  | {
      kind: 'bash';
      requestId: string | null;
      command: string;
      output: string;
      exitCode: number | null;
      cancelled: boolean;
      excluded: boolean;
      done: boolean;
      at: number;
    }
  /** What stands for earlier messages after a compaction, or for a branch left behind. */
  | { kind: 'summary'; of: 'compaction' | 'branch'; text: string; at: number }
  | { kind: 'notice'; level: 'info' | 'warning' | 'error'; text: string; at: number };

/** An extension UI dialog (`extension_ui_request`) waiting for an answer. */
export interface HostedDialog {
  requestId: string;
  method: 'select' | 'confirm' | 'input' | 'editor';
  title: string;
  message?: string;
  options?: string[];
  placeholder?: string;
  prefill?: string;
  /** Epoch ms when pi gives up on it, if it set a timeout. */
  expiresAt: number | null;
}

/** An extension's widget (`setWidget`): lines shown above or below the prompt box. */
export interface HostedWidget {
  key: string;
  lines: string[];
  placement: 'aboveEditor' | 'belowEditor';
}

export type QueueMode = 'all' | 'one-at-a-time';

/** Prompts pi holds until it can take them (`queue_update`): steering first, then follow-ups. */
export interface HostedQueue {
  steering: string[];
  followUp: string[];
}

/** How pi runs this session, as far as pi reports it (null: not reported, pi's own setting applies). */
export interface HostedSettings {
  steeringMode: QueueMode | null;
  followUpMode: QueueMode | null;
  autoCompaction: boolean | null;
  autoRetry: boolean | null;
}

export interface HostedDetail extends HostedView {
  transcript: TranscriptItem[];
  dialogs: HostedDialog[];
  /** Latest `setStatus` lines by key. */
  statusLines: Record<string, string>;
  widgets: HostedWidget[];
  queue: HostedQueue;
  settings: HostedSettings;
  stats: unknown | null;
}

export type DialogAnswer = { value: string } | { confirmed: boolean } | { cancelled: true };

/** An image for a prompt: base64 data of a PNG, JPEG, GIF or WebP. */
export interface PromptImage {
  data: string;
  mimeType: 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
}

/** pi's answer to a shell command (`bash`): its output (cut by pi when long) and how it ended. */
export interface BashResult {
  output: string;
  /** Absent when it was cancelled. */
  exitCode?: number;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
}

/**
 * What a prompt did: pi's own prompt, or one of the commands of pi's terminal UI that
 * Patchbay carries out with pi's RPC commands (`/compact`, `/name`, `!cmd`…), never sent to the model.
 */
export type PromptOutcome =
  | { ran: 'prompt' }
  | { ran: 'compact'; result: unknown }
  | { ran: 'name'; name: string }
  | { ran: 'new' | 'clone'; cancelled: boolean }
  | { ran: 'fork'; text: string; cancelled: boolean }
  | { ran: 'export'; path: string }
  | { ran: 'model'; model: string }
  | { ran: 'thinking'; level: string }
  | { ran: 'bash'; result: BashResult };

/** A command pi offers through `prompt` (`get_commands`): an extension's, a prompt template or a skill. */
export interface PiCommandInfo {
  name: string;
  description?: string;
  source: 'extension' | 'prompt' | 'skill';
}

/** One of pi's saved sessions (its sessions dir), TUI ones included. */
export interface PiSessionInfo {
  file: string;
  id: string;
  /** The folder pi ran in. */
  cwd: string;
  name: string | null;
  firstPrompt: string | null;
  /** Epoch ms: the header's time, and the file's last change. */
  createdAt: number | null;
  modifiedAt: number;
  bytes: number;
  messages: number;
  /** The hosted session on this file, when Patchbay has one (running or resumable). */
  hostedId: string | null;
}

/** A user message of the session that a fork can start from. */
export interface ForkPoint {
  entryId: string;
  text: string;
}

/**
 * What runs hosted pi sessions. Set only where the person alone writes, never over this API:
 * config.json (`patchbay settings set …` in a terminal, or by hand), or `$PATCHBAY_PI_COMMAND`
 * where Patchbay was started.
 */
export interface HostedPiView {
  /** The program and leading arguments Patchbay runs now. */
  command: string[];
  /** Where `command` comes from: the piCommand setting, `$PATCHBAY_PI_COMMAND`, or neither (`pi` on PATH). */
  commandSource: 'settings' | 'environment' | 'default';
  /** The allowPiExtensions setting. */
  allowExtensions: boolean;
  /** The file that holds both settings (config.json in Patchbay's home). */
  settingsFile: string;
}

export interface Snapshot {
  version: string;
  pid: number;
  paused: boolean;
  door: {
    port: number | null;
    lockfiles: string[];
    /** Door lockfiles that are out of date and why (agents in those dirs do not see the door as it is). */
    problems: string[];
  };
  editors: EditorView[];
  invalidLockfiles: InvalidLockfile[];
  sessions: SessionView[];
  idleAgents: IdleAgent[];
  diffs: DiffSummary[];
  history: DecisionRecord[];
  settings: PatchbaySettings;
  hostedPi: HostedPiView;
  hosted: HostedView[];
  /** Remotes whose agents reach the door over SSH, and how each is doing. */
  remotes: RemoteView[];
  /** Problems the person should see (unparsable store moved aside, another instance…). */
  warnings: string[];
}

export interface RestoreReport {
  restored: string[];
  removed: string[];
  /** What the person should know: a file in an editor's way moved aside, a lockfile that could not go back. */
  warnings?: string[];
}

/** command → [params, result] */
export interface HubCommands {
  snapshot: [void, Snapshot];
  bind: [{ sessionId: string; editorId: string | null }, SessionView];
  /** Forget the person's choice for a session (and its folder): the broker's rules decide again. */
  unpin: [{ sessionId: string }, SessionView];
  restore: [void, RestoreReport];
  setPaused: [{ paused: boolean }, void];
  'diffs.get': [{ id: string }, DiffDetail];
  /**
   * `changes`: the proposal's changes to take (1-based); the others keep the disk's lines.
   * `contents`: what to write instead (the person's edits); `reason`: words for the agent.
   */
  'diffs.accept': [{ id: string; contents?: string; changes?: number[]; reason?: string }, DecisionRecord];
  'diffs.reject': [{ id: string; reason?: string }, DecisionRecord];
  'diffs.acceptAll': [{ sessionId: string }, DecisionRecord[]];
  'diffs.rejectAll': [{ sessionId: string }, DecisionRecord[]];
  traffic: [{ sessionId: string; limit?: number }, TrafficEntry[]];
  'settings.get': [void, PatchbaySettings];
  'settings.set': [{ patch: Partial<PatchbaySettings> }, PatchbaySettings];
  /**
   * Takes up the remotes as config.json has them now (the CLI writes them there, as the person):
   * removed ones stop (their lockfiles over there go), new ones connect. `wait`: a remote to wait
   * for until it is connected or has failed (at most 20 s).
   */
  'remotes.reload': [{ wait?: string }, RemoteView[]];
  'autoconnect.get': [{ project?: string }, AutoconnectView];
  'autoconnect.set': [{ project?: string; value: boolean | null }, AutoconnectView];
  'models.list': [{ sessionId?: string }, SessionModels[]];
  'models.refresh': [{ sessionId: string }, SessionModels];
  'suggestionModel.set': [{ choice: string; editorId?: string }, PatchbaySettings];
  /**
   * `worktree`: a branch; pi runs in that branch's git worktree beside the repository `cwd` is in
   * (`<parent>/<branch>`, made with `git worktree add` unless it exists), bound to the editor that
   * has the repository open (reason `worktree`).
   */
  'pi.start': [{ cwd: string; model?: string; args?: string[]; worktree?: string }, HostedView];
  /**
   * Starts a stopped hosted session again on its file (same id, transcript rebuilt), or opens
   * one of pi's saved sessions by its file. A pi already running on that file is returned.
   */
  'pi.resume': [{ id: string } | { sessionFile: string }, HostedView];
  /** pi's saved sessions, newest first (its sessions dir, or `sessionDir`). */
  'pi.sessions': [{ sessionDir?: string }, PiSessionInfo[]];
  'pi.get': [{ id: string }, HostedDetail];
  /**
   * `streamingBehavior` is needed while the session streams (steer = interrupt, followUp = queue).
   * `/compact`, `/name`, `/new`, `/fork <text>`, `/clone`, `/export`, `/model`, `/thinking`,
   * `!cmd` and `!!cmd` run as pi's RPC commands.
   */
  'pi.prompt': [{ id: string; text: string; streamingBehavior?: 'steer' | 'followUp'; images?: PromptImage[] }, PromptOutcome];
  'pi.abort': [{ id: string }, void];
  'pi.state': [{ id: string }, unknown];
  'pi.models': [{ id: string }, unknown];
  'pi.setModel': [{ id: string; provider: string; modelId: string }, HostedView];
  'pi.setThinking': [{ id: string; level: string }, HostedView];
  'pi.stats': [{ id: string }, unknown];
  'pi.answer': [{ id: string; requestId: string; answer: DialogAnswer }, void];
  /** `keep`: the stopped session stays listed (exited) with its transcript; without it, it is forgotten. */
  'pi.stop': [{ id: string; keep?: boolean }, void];
  'pi.commands': [{ id: string }, PiCommandInfo[]];
  'pi.thinkingLevels': [{ id: string }, string[]];
  'pi.forkPoints': [{ id: string }, ForkPoint[]];
  /** Continues from before that user message in a new session file; its text comes back to edit. */
  'pi.fork': [{ id: string; entryId: string }, { text: string; cancelled: boolean }];
  'pi.clone': [{ id: string }, { cancelled: boolean }];
  'pi.newSession': [{ id: string }, { cancelled: boolean }];
  'pi.switchSession': [{ id: string; sessionFile: string }, { cancelled: boolean }];
  /** pi's session tree (`get_tree`), as pi sends it. */
  'pi.tree': [{ id: string }, unknown];
  'pi.compact': [{ id: string; instructions?: string }, unknown];
  'pi.setName': [{ id: string; name: string }, void];
  /** Writes the session as HTML (`outputPath` must end in .html); answers where. */
  'pi.exportHtml': [{ id: string; outputPath?: string }, { path: string }];
  'pi.bash': [{ id: string; command: string; excludeFromContext?: boolean }, BashResult];
  'pi.abortBash': [{ id: string }, void];
  /** Takes the queued prompts back out of pi (to edit them); answers what was queued. */
  'pi.clearQueue': [{ id: string }, HostedQueue];
  'pi.setQueueModes': [{ id: string; steering?: QueueMode; followUp?: QueueMode }, void];
  'pi.setAutoCompaction': [{ id: string; enabled: boolean }, void];
  'pi.setAutoRetry': [{ id: string; enabled: boolean }, void];
  'pi.abortRetry': [{ id: string }, void];
}

export type HubMethod = keyof HubCommands;
export type ParamsOf<M extends HubMethod> = HubCommands[M][0];
export type ResultOf<M extends HubMethod> = HubCommands[M][1];

export type HubEvent =
  | { type: 'snapshot'; snapshot: Snapshot }
  | { type: 'diffAdded'; diff: DiffSummary }
  | { type: 'diffDecided'; record: DecisionRecord }
  /** A hosted session's raw RPC event (message_update deltas, tool_execution_*, agent_end…). */
  | { type: 'pi'; id: string; event: Record<string, unknown> };

export interface HubApi {
  call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /** Returns an unsubscribe function. */
  subscribe(listener: (event: HubEvent) => void): () => void;
}

/** A command failed for a reason the caller should show as is (unknown id, bad value). */
export class HubError extends Error {
  constructor(
    message: string,
    readonly code: 'not-found' | 'invalid' | 'conflict' | 'unavailable' = 'invalid',
  ) {
    super(message);
    this.name = 'HubError';
  }
}

/** Every method, as a record so the compiler refuses a missing one (the wire and IPC accept only these). */
const METHODS: Record<HubMethod, true> = {
  snapshot: true,
  bind: true,
  unpin: true,
  restore: true,
  setPaused: true,
  'diffs.get': true,
  'diffs.accept': true,
  'diffs.reject': true,
  'diffs.acceptAll': true,
  'diffs.rejectAll': true,
  traffic: true,
  'settings.get': true,
  'settings.set': true,
  'remotes.reload': true,
  'autoconnect.get': true,
  'autoconnect.set': true,
  'models.list': true,
  'models.refresh': true,
  'suggestionModel.set': true,
  'pi.start': true,
  'pi.resume': true,
  'pi.sessions': true,
  'pi.get': true,
  'pi.prompt': true,
  'pi.abort': true,
  'pi.state': true,
  'pi.models': true,
  'pi.setModel': true,
  'pi.setThinking': true,
  'pi.stats': true,
  'pi.answer': true,
  'pi.stop': true,
  'pi.commands': true,
  'pi.thinkingLevels': true,
  'pi.forkPoints': true,
  'pi.fork': true,
  'pi.clone': true,
  'pi.newSession': true,
  'pi.switchSession': true,
  'pi.tree': true,
  'pi.compact': true,
  'pi.setName': true,
  'pi.exportHtml': true,
  'pi.bash': true,
  'pi.abortBash': true,
  'pi.clearQueue': true,
  'pi.setQueueModes': true,
  'pi.setAutoCompaction': true,
  'pi.setAutoRetry': true,
  'pi.abortRetry': true,
};

export const HUB_METHODS = Object.keys(METHODS) as readonly HubMethod[];

export function isHubMethod(value: unknown): value is HubMethod {
  return typeof value === 'string' && (HUB_METHODS as readonly string[]).includes(value);
}
