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
  /**
   * Whether the editor asks for a token: false for one whose lockfile has none (claude-code-ide.el
   * in Emacs), whose server any local user can reach. Patchbay sends it none.
   */
  authenticated: boolean;
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

/**
 * Another protocol's lockfile in a lock dir, such as the "Pi IDE Protocol v1" of other pi
 * extensions: another tool's, which Patchbay lists and never moves, rewrites or deletes.
 */
export interface OtherLockfile {
  path: string;
  /** Its `protocol` field. */
  protocol: string;
  /** "Pi IDE Protocol v1 (VS Code, pid 4242)". */
  description: string;
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

/**
 * `interrupted`: Patchbay stopped unexpectedly (a crash, kill -9) before any decision.
 * Reviewed after (`review-mode after`): `applied` (written at once, not reviewed yet), `kept`
 * (reviewed, left as written), `undone` (every change taken back; see `undone` for some of them).
 */
export type DiffStatus = 'pending' | 'accepted' | 'rejected' | 'withdrawn' | 'interrupted' | 'applied' | 'kept' | 'undone';
/**
 * `crash`: nobody decided; Patchbay went away with the diff pending (the agent may have written it unreviewed).
 * `review-after`: nobody decided yet: the folder's edits are applied at once and reviewed after.
 */
export type DecidedBy = 'editor' | 'patchbay' | 'agent' | 'shutdown' | 'crash' | 'review-after';

/** When a folder's edits are reviewed: `before` they are written (the agent waits), or `after`. */
export type ReviewMode = 'before' | 'after';

/**
 * One change of an edit, numbered as `diffs show` numbers it: lines `oldStart`… (`oldLines` of
 * them) of the file before become lines `newStart`… of what was written (1-based; a side with no
 * lines names the line before it, as `diff -u` does).
 */
export interface NumberedChange {
  number: number;
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
}

/** The agent's turn an edit was made in (a hosted pi's run, a Claude Code prompt), for grouping. */
export interface AgentTurn {
  /** The same for every edit of one turn. */
  key: string;
  /** For people: the prompt that started it, or when it started. */
  label: string;
  startedAt: number;
}

/** A person's note on one line of an edit, sent to the agent with the decision. */
export interface LineNote {
  /** 1-based, in the text that is written (the proposal as the person left it). */
  line: number;
  text: string;
}

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
  /**
   * Why the on-disk file could not be read (not a regular file, a kernel file, no permission): the
   * diff has no old side. Absent when it was read, is new, or is too large.
   */
  unreadable?: string;
  /** Currently open in the bound editor. */
  inEditor: boolean;
  /** From an agent on a remote: its file as the remote names it (`path` is the file here, or the remote's when no map covers it). */
  remote?: RemotePlace;
  /** Applied edits (status `applied`): their changes, numbered as `diffs show` numbers them. */
  changes?: NumberedChange[];
  /** Changes of what was written that were taken back since (1-based). */
  undone?: number[];
  /** The agent's turn it came in. */
  turn?: AgentTurn;
  /** In a folder reviewed after, why this edit waits for review before all the same. */
  reviewedBefore?: string;
  /** Decided by a person, and sent to the agent at `dueAt` unless taken back before (`diffs.decideLater`). */
  deciding?: Deciding;
}

/** A decision made that the agent hears a few seconds later, so that a slip can be taken back. */
export interface Deciding {
  outcome: 'accept' | 'reject';
  dueAt: number;
  /** Decisions made together (a group's Accept all) share it, and are taken back together. */
  batch: string;
  /** For people: "Applying 2 of 3 changes to", and what: "src/a.ts", "3 edits from pi · proj". */
  verb: string;
  what: string;
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
  /** `applied`: written at once, to be reviewed after (review-mode after). */
  outcome: 'accepted' | 'rejected' | 'withdrawn' | 'interrupted' | 'applied';
  /** Where the edit is now: its outcome, or what a review after (keep, undo) made of it. */
  status: DiffStatus;
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
  /** The person's notes on lines of the edit, sent to the agent with the decision. */
  notes?: LineNote[];
  /** The agent's turn it came in. */
  turn?: AgentTurn;
  /** Changes of what was written that were taken back later (1-based, numbered as `diffs show` numbers them). */
  undone?: number[];
  /** When it was last kept or undone. */
  reviewedAt?: number;
  /** What the agent was told of the last keep or undo, and how it heard it. */
  afterwards?: { told: string; heard: 'steered' | 'diagnostics' | 'not connected' };
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
  /** When edits are reviewed where no folder says otherwise (`patchbay review-mode`). */
  reviewMode: ReviewMode;
  /** Folder → when its edits (and its subfolders', unless a deeper folder says) are reviewed. */
  reviewModePerFolder: Record<string, ReviewMode>;
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

/** When edits are reviewed: globally, for a folder, and what holds there. */
export interface ReviewModeView {
  global: ReviewMode;
  /** The folder asked about, when one was. */
  project: string | null;
  /** The folder's own setting (null: none). */
  projectMode: ReviewMode | null;
  /** The folder whose setting holds there (itself or a parent), null when the global one holds. */
  from: string | null;
  effective: ReviewMode;
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
  /**
   * `parentToolCallId` (pi 0.99 and later): a call another tool made (codemode, `ctx.executeTool`);
   * its id is `<parent>/<n>`. Such calls are no messages of their own: a resumed session shows them
   * from their parent's result (`nestedCalls`), without their output.
   */
  | { kind: 'tool'; toolCallId: string; name: string; args: unknown; output: string; isError: boolean; done: boolean; at: number; diffId?: string; parentToolCallId?: string }
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
  /**
   * `disposition` (pi 0.99 and later): the prompt `started` a run, was `queued` into the running
   * one, or was `handled` by an extension's command with no run (then no agent_settled follows).
   */
  | { ran: 'prompt'; disposition?: 'started' | 'queued' | 'handled' }
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

/** What Patchbay's core is and how it came to run (it restarts under the daemon's keeper). */
export interface CoreView {
  /** Why this core started: the daemon's first, after `patchbay restart`, or after the one before died. */
  reason: 'start' | 'restart' | 'crash';
  startedAt: number;
  /** Cores the daemon started before this one (restarts and crashes). */
  restarts: number;
  /** When the daemon (the keeper) started; null when the core runs in one process with it (the desktop app's own hub). */
  daemonSince: number | null;
}

/** Something the person should know about until they dismiss it (`notices.dismiss`). */
export interface Notice {
  id: string;
  kind: 'core-crashed' | 'crash-trace' | 'port-taken';
  /** When it happened (a crash: the last moment the dead run was known to be alive). */
  at: number;
  message: string;
  /** crash-trace: what became of each edit that was waiting for review. */
  files?: TraceEntry[];
}

/** An edit that waited for review when Patchbay died, and what its file holds now. */
export interface TraceEntry {
  diffId: string;
  path: string;
  agent: string;
  sessionId: string;
  /**
   * `written`: the file now equals the proposal (written without review); `not-written`: it is
   * as it was; `changed`: it is neither (changed since); `unknown`: the proposal was not kept.
   */
  verdict: 'written' | 'not-written' | 'changed' | 'unknown';
}

/** An agent that was connected when Patchbay last stopped and has not come back (it will not by itself: pi-ide). */
export interface LostSession {
  /** Its session id before the stop: it gets it back when it reconnects. */
  sessionId: string;
  pid: number;
  kind: Dialect;
  cwd: string | null;
  clientName: string | null;
  /** When Patchbay stopped. */
  since: number;
  /** What to do: `/ide` in that pi. */
  hint: string;
}

export interface Snapshot {
  version: string;
  /** The daemon's pid (the keeper's: what lockfiles name, what a full stop signals). */
  pid: number;
  /** The core's pid (the hub and control server; it restarts under the daemon). */
  corePid: number;
  core: CoreView;
  paused: boolean;
  door: {
    port: number | null;
    lockfiles: string[];
    /** Door lockfiles that are out of date and why (agents in those dirs do not see the door as it is). */
    problems: string[];
  };
  editors: EditorView[];
  invalidLockfiles: InvalidLockfile[];
  /** Other tools' lockfiles sharing the lock dirs (another protocol's): left alone. */
  otherLockfiles: OtherLockfile[];
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
  /** What happened that the person should know until they dismiss it (a crash, its trace). */
  notices: Notice[];
  /** Agents connected before the last stop that have not come back. */
  notReconnected: LostSession[];
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
  /** Restarts the core (agents and editors stay connected); answers with the pid of the core that is stopping. */
  restart: [void, { corePid: number }];
  'notices.dismiss': [{ id: string }, void];
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
  'diffs.accept': [{ id: string; contents?: string; changes?: number[]; reason?: string; notes?: LineNote[] }, DecisionRecord];
  'diffs.reject': [{ id: string; reason?: string; notes?: LineNote[] }, DecisionRecord];
  'diffs.acceptAll': [{ sessionId: string }, DecisionRecord[]];
  /**
   * A person's decision, heard by the agent after `graceMs` (every face shows the diff as deciding
   * meanwhile); the same checks as accept / reject, now. Taken back with `diffs.takeBack`.
   */
  'diffs.decideLater': [
    {
      id: string;
      outcome: 'accept' | 'reject';
      contents?: string;
      changes?: number[];
      reason?: string;
      notes?: LineNote[];
      graceMs: number;
      batch: string;
      verb: string;
      what: string;
    },
    DiffSummary,
  ];
  /** Decisions still waiting to be sent are dropped: the diffs wait again. Returns the ids taken back. */
  'diffs.takeBack': [{ ids: string[] }, string[]];
  /** Decisions still waiting are sent at once. */
  'diffs.sendNow': [{ ids: string[] }, DecisionRecord[]];
  /** An applied edit (review after) is reviewed and stays as written; `notes` go to the agent. */
  'diffs.keep': [{ id: string; notes?: LineNote[]; reason?: string }, DecisionRecord];
  /**
   * Takes back an applied or accepted edit's `changes` (1-based; all by default) in the file as it
   * is now: later edits elsewhere stay. Refuses, changing nothing, where those lines changed since.
   */
  'diffs.undo': [{ id: string; changes?: number[]; notes?: LineNote[]; reason?: string }, DecisionRecord];
  /** Several edits at once (a turn's): all are kept, or all undone (newest first), or none is. */
  'diffs.keepAll': [{ ids: string[] }, DecisionRecord[]];
  'diffs.undoAll': [{ ids: string[]; reason?: string }, DecisionRecord[]];
  'reviewMode.get': [{ project?: string }, ReviewModeView];
  /** `value` null removes the folder's own setting (the global one: back to `before`). */
  'reviewMode.set': [{ project?: string; value: ReviewMode | null }, ReviewModeView];
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
  | { type: 'pi'; id: string; event: Record<string, unknown> }
  /** Something the person should know (the core died and came back, a dead run's trace…). */
  | { type: 'notice'; notice: Notice };

export interface HubApi {
  call<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>>;
  /**
   * For a face that sends results on as JSON text (the control server): the same result, but a
   * big text in it may still be the JSON bytes it arrived or was kept in (src/protocol/lazy-json.ts),
   * to be written out as they are. Optional: `call` where it is missing.
   */
  callForJson?<M extends HubMethod>(method: M, params: ParamsOf<M>): Promise<unknown>;
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
  restart: true,
  'notices.dismiss': true,
  bind: true,
  unpin: true,
  restore: true,
  setPaused: true,
  'diffs.get': true,
  'diffs.accept': true,
  'diffs.reject': true,
  'diffs.acceptAll': true,
  'diffs.rejectAll': true,
  'diffs.decideLater': true,
  'diffs.takeBack': true,
  'diffs.sendNow': true,
  'diffs.keep': true,
  'diffs.undo': true,
  'diffs.keepAll': true,
  'diffs.undoAll': true,
  'reviewMode.get': true,
  'reviewMode.set': true,
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
