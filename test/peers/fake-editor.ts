/**
 * FakeEditor: an editor's MCP server as the real ones behave (DESIGN §1), quirks included.
 *
 * Dialect 'pi' imitates pi-ide.nvim: accepts the token in `x-pi-ide-authorization` or
 * `x-claude-code-ide-authorization` and answers a bad one with HTTP 400; four tools, with
 * `getOpenEditorTabs`' empty `inputSchema.properties` serialized as `[]` (a Lua empty table);
 * `getDiagnostics` answers a map `{uri:[…]}`, and `[]` when it is empty; it sends
 * `getSuggestions` / `listSuggestionModels` (with `params: []`) requests to one client;
 * its `selection_changed` is `{text,filePath,selection}`, without `fileUrl`; a message sent in
 * fragments closes the connection with 1003 "Unsupported data" (so does claudecode.nvim's).
 * Dialect 'claude' imitates claudecode.nvim / VS Code: Claude header only, HTTP 401; the
 * full Claude tool set; `getDiagnostics` answers an array `[{uri,diagnostics}]`;
 * `selection_changed` carries `fileUrl` too.
 * Both echo the `mcp` subprotocol, answer `initialize` with 2024-11-05, ping every 30 s,
 * block `openDiff` until `decide()`, and broadcast `selection_changed` to every client.
 * A client that disconnects leaves its diff tabs open, as pi-ide.nvim does: only a decision,
 * `close_tab` (or a same-named openDiff, closeAllDiffTabs) closes them; deciding one then
 * answers nobody. `closeDiffsOnDisconnect` restores closing them (reason 'client gone').
 * `claudecode: true` imitates claudecode.nvim (coder/claudecode.nvim at 2390c6e), Claude dialect:
 * a decided diff stays open (status saved/rejected, its proposed buffer on screen) until a
 * `close_tab` or `closeAllDiffTabs` closes it, as Claude Code sends one after each decision;
 * `close_tab` treats only names holding both `✻` and `⧉` as diffs: any other name is looked up
 * as a buffer (exact, then as a prefix, then by a file name in it), so a diff's own
 * `<name> (proposed)` buffer or a modified file answers error -32000 "Failed to close buffer…"
 * and an unmodified open file is closed under the person (it leaves `tabs`, see closedBuffers);
 * `closeAllDiffTabs` closes and counts diffs in any state; a client that disconnects has its
 * pending diffs rejected and closed, its decided ones stay; `close_tab` is callable but not in
 * tools/list, and there is no executeCode; in visual mode (`setMode`) every tool answers late
 * (~3 s against ~3 ms: `visualModeDelayMs`).
 * `vscode: true` imitates Anthropic's Claude Code extension in VS Code and its forks (what was
 * seen of 1.0.100 in code-server; `vscodeVersion` below for what changed since), Claude dialect,
 * ide name 'Visual Studio Code': the lockfile's pid is the extension host's parent (VS Code's main
 * process: here, this process) while the port is held
 * by a child process (test/peers/listener-child.mjs pipes it here), so several windows (several
 * doubles) share one pid; a bad token is let through the upgrade and closed with 1008
 * "Unauthorized"; it serves **one client at a time**: a new connection closes the previous one
 * without a close code (the old client sees 1005); a decided diff stays open (as claudecode.nvim)
 * until close_tab or closeAllDiffTabs; close_tab closes whatever tab has that label, saving a
 * diff's proposed side first, which VS Code does only when the person edited it
 * (`editProposed`): a pending diff closed so answers FILE_SAVED with the edit, or DIFF_REJECTED
 * when unedited (seen with the real one); closeAllDiffTabs closes only diffs whose name holds
 * "[Claude Code]", and so does every openDiff before it opens (a pending Claude Code diff is
 * thereby decided); Accept (`decide(…, 'saved')`) or a save sends the proposed side as edited;
 * the person closing a diff's tab (`closeTab`) rejects it; getDiagnostics answers a pretty-printed array whose severities are
 * names ("Error"); a client that disconnects leaves its diffs open.
 * `vscodeVersion` (with `vscode`): the extension since 2.1.327 ('current', the default: the one a
 * person installs today, versioned with the CLI) serves no openFile, saveDocument or
 * getOpenEditors, and a save (`save()`) accepts a diff only once the person clicked or typed in
 * its proposed side (`touchProposed`, `editProposed`, `revertChange`); '1.0.100' (the one that
 * runs here, in code-server) has all twelve tools and a save always accepts. Either sends what
 * the person made of the proposal (edits, changes reverted with the diff's Revert Block: a partial
 * rejection) as FILE_SAVED's text: that is how Claude Code 2.1.332 tells it (it compares it with its
 * proposal: "The user modified your proposed changes"); an openDiff answer has no other place.
 * `jetbrains: true` imitates Anthropic's JetBrains plugin (com.anthropic.code.plugin), from the
 * facts known of it, no IDE running here: Claude dialect, ide name 'IntelliJ IDEA' (the product's
 * name); its server is the MCP Kotlin SDK's WebSocket transport, which refuses a connection whose
 * `Sec-WebSocket-Protocol` is not exactly `mcp` (here: HTTP 400 before the upgrade; the SDK's check
 * runs in its session, so the real one may instead close right after it); `initialize` answers
 * serverInfo "Claude Code JetBrains Plugin" with `tools.listChanged`; the tools are the VS Code
 * extension's (1.0.100) but executeCode; a decided diff stays open until close_tab (as VS Code's and
 * claudecode.nvim's do); several clients at once (the SDK's server keeps a session per connection).
 * `emacs: true` imitates manzaltu/claude-code-ide.el 0.2.7 (e2072ce): its lockfile has **no
 * authToken** (`{pid, workspaceFolders, ideName: "Emacs", transport: "ws"}`) and any connection is
 * taken, echoing `mcp` when offered; serverInfo "claude-code-ide-mcp", and 100 ms after `initialize`
 * a `notifications/tools/list_changed`; tools openFile, getDiagnostics, close_tab, openDiff,
 * closeAllDiffTabs, executeCode; a decided diff (ediff quit, then "Accept the changes?") stays until
 * close_tab; close_tab of a pending diff closes it and answers its openDiff never; a second openDiff
 * with a tab's name replaces it, the first never answered; close_tab of a name that is no diff and
 * no buffer answers error -32603 "No buffer named …"; getDiagnostics answers an array (`[]` when
 * empty); one client at a time (a newer connection becomes the one its notifications go to; not
 * imitated: that the older one's answers go there too).
 * `setTools()` changes the tool list and sends `notifications/tools/list_changed` to every client.
 * A selection in a diff's proposed side (`sendSelection({proposed: true})`) is named as each
 * editor names it: pi-ide.nvim's filePath `"<path> [pi-proposed]"`, VS Code's fileUrl
 * `_claude_fs_right:<path>` beside the plain path, claudecode.nvim's the buffer it opened for
 * that diff, `<cwd>/<tab name> (proposed)` (`(NEW FILE - proposed)` for a new file).
 * Not imitated: the selection debounce (~100 ms in pi-ide.nvim, 300 ms in VS Code; tests drive
 * selections explicitly).
 *
 * CLI (for kill -9 and multi-process tests):
 *   node --import tsx test/peers/fake-editor.ts --lock-dir D --folder F [--folder F2…]
 *     [--ide-name X] [--dialect pi|claude] [--port N] [--pid N] [--token T]
 *     [--omit-saved-contents] [--diagnostics-delay-ms N] [--ping-ms N]
 *     [--auto-decide save|reject] [--claudecode] [--vscode [--vscode-version current|1.0.100]]
 *     [--jetbrains] [--emacs] [--visual-delay-ms N] [--quiet]
 * stdout, one JSON object per line:
 *   {"ready":true,"port":N,"pid":N,"lockfile":"…"}      (pid = this process, for kill;
 *                                                        with --vscode the port's child dies with it)
 *   {"event":"connection","client":1,"authHeader":"x-…","protocol":"mcp","remotePort":N}
 *   {"event":"refused","status":400}
 *   {"event":"message","client":1,"msg":{…}}              (every frame received; not with --quiet)
 *   {"event":"diff","client":1,"tabName":"…","path":"…"}  (an openDiff is waiting)
 *   {"event":"diffClosed","tabName":"…","outcome":"saved|rejected","reason":"…"}
 *   {"event":"disconnect","client":1,"code":1000}
 *   {"event":"requestSent","tag":…,"id":…,"client":1}     (before the result of a request)
 *   {"event":"result"|"error","cmd":"…","tag":…,…}        (one per stdin command)
 * stdin, one JSON command per line (optional "tag" is echoed back):
 *   {"cmd":"decide","tabName":"…","outcome":"save"|"reject","contents"?:"…"}
 *   {"cmd":"selection","filePath":"…","text"?:"…","start"?:{"line":0,"character":0},"end"?:{…},"proposed"?:true}
 *   {"cmd":"atMentioned","filePath":"…","lineStart":N,"lineEnd":N}
 *   {"cmd":"request","method":"getSuggestions","params":{…},"client"?:N}  → result: the response
 *   {"cmd":"cancel","id":…}
 *   {"cmd":"diagnostics","map":{"file:///…":[…]}}
 *   {"cmd":"tabs","tabs":[{"uri":"…","isActive":true,…}]}
 *   {"cmd":"fail","tool":"openDiff","message":"…"|null}  (null = stop failing)
 *   {"cmd":"mode","mode":"normal"|"visual"}             (claudecode.nvim: visual answers late)
 *   {"cmd":"closeTab","tabName":"…"}                   (the person closes a tab: a pending diff is rejected)
 *   {"cmd":"edit","tabName":"…","contents":"…"}        (VS Code: the person types into the proposed side)
 *   {"cmd":"revert","tabName":"…","change":N}          (VS Code: Revert Block on change N, 1-based)
 *   {"cmd":"save","tabName":"…"}                       (VS Code: Ctrl+S in the diff)
 *   {"cmd":"diffs"}  → result: the open tabs, with their status
 *   {"cmd":"stop"}   → closes clients, deletes the lockfile, exits
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { WebSocketServer, type WebSocket } from 'ws';
import { diffLines } from 'diff';
import { emit, field, isMain, serveCommands, startupFailed, type Command } from './cli.ts';
import { writeLockfile } from './lockfiles.ts';
import { watchForFragments } from './ws-fragments.ts';
import { luaJson } from './lua-json.ts';
import { RpcFailure, RpcPeer, textContent, type IdStyle, type RpcId, type RpcMessage, type RpcRequestMessage, type RpcResponse } from './rpc-peer.ts';
import { waitFor, type WaitOptions } from './wait.ts';

export type Dialect = 'pi' | 'claude';
export type VscodeVersion = 'current' | '1.0.100';

export const PI_AUTH_HEADER = 'x-pi-ide-authorization';
export const CLAUDE_AUTH_HEADER = 'x-claude-code-ide-authorization';

export interface Position {
  line: number;
  character: number;
}

export interface Diagnostic {
  message: string;
  severity?: number | string;
  range?: { start: Position; end: Position };
  source?: string;
  [key: string]: unknown;
}

export type DiagnosticsMap = Record<string, Diagnostic[]>;

export interface EditorTab {
  uri: string;
  isActive?: boolean;
  isDirty?: boolean;
  languageId?: string;
  label?: string;
}

/** What a test gives `sendSelection`; missing fields get an empty selection at 0:0. */
export interface SelectionInput {
  filePath: string;
  text?: string;
  /** Claude dialect only (default `file://<filePath>`); a 'pi' editor never sends one. */
  fileUrl?: string;
  /**
   * The cursor is in the proposed side of a diff of `filePath`, which editors name their way:
   * pi-ide.nvim's buffer is `<path> [pi-proposed]`; VS Code's side is `_claude_fs_right:<path>`
   * (its fileUrl) with the file's own path as filePath.
   */
  proposed?: boolean;
  start?: Position;
  end?: Position;
}

export interface SelectionChanged {
  text: string;
  filePath: string;
  /** Claude dialect only: pi-ide.nvim does not send it. */
  fileUrl?: string;
  selection: { start: Position; end: Position; isEmpty: boolean };
}

export interface OpenDiffArgs {
  old_file_path: string;
  new_file_path: string;
  new_file_contents: string;
  tab_name: string;
}

export interface EditorClient {
  readonly id: number;
  readonly headers: IncomingHttpHeaders;
  /** The header that carried the valid token. */
  readonly authHeader: string;
  /** The negotiated subprotocol, '' when none was offered. */
  readonly protocol: string;
  readonly remotePort: number;
  readonly connectedAt: number;
  readonly rpc: RpcPeer;
  /** The close code once the client is gone. */
  closeCode: number | null;
}

/** A diff tab: 'pending' until decided; only a claudecode.nvim double keeps a decided one open. */
export type DiffStatus = 'pending' | DiffOutcome;

export interface OpenDiff {
  readonly tabName: string;
  readonly status: DiffStatus;
  readonly args: OpenDiffArgs;
  readonly client: EditorClient;
  readonly requestId: RpcId;
  readonly openedAt: number;
}

export type DiffOutcome = 'saved' | 'rejected';
export type EditorMode = 'normal' | 'visual';
export type CloseReason = 'decided' | 'close_tab' | 'replaced' | 'closeAllDiffTabs' | 'client gone' | 'opened another' | 'person';

export interface ClosedDiff {
  tabName: string;
  outcome: DiffOutcome;
  reason: CloseReason;
  client: EditorClient;
}

export type EditorEvent =
  | { type: 'connection'; client: EditorClient }
  | { type: 'refused'; status: number; headers: IncomingHttpHeaders }
  | { type: 'message'; client: EditorClient; msg: RpcMessage }
  | { type: 'diff'; diff: OpenDiff }
  | { type: 'diffClosed'; closed: ClosedDiff }
  | { type: 'disconnect'; client: EditorClient; code: number };

export interface FakeEditorOptions {
  lockDir: string;
  workspaceFolders: string[];
  dialect?: Dialect;
  /** Default 'Neovim' (pi) or 'Visual Studio Code' (claude). */
  ideName?: string;
  /** 0 (default) = any free port; a fixed one simulates a restart on the same port. */
  port?: number;
  /** The pid written into the lockfile; default this process's. */
  pid?: number;
  /** Default: 32 random bytes, hex. */
  authToken?: string;
  /** false = listen without advertising (e.g. a port owned by something else). Default true. */
  writeLockfile?: boolean;
  /** Answer FILE_SAVED without the contents, as some editors do. */
  omitSavedContents?: boolean;
  /** A slow editor: getDiagnostics answers after this delay. */
  diagnosticsDelayMs?: number;
  diagnostics?: DiagnosticsMap;
  tabs?: EditorTab[];
  /** Default 30 000; 0 turns pings off. */
  pingIntervalMs?: number;
  /** Tools that fail: a call answers JSON-RPC error -32603 with this message. */
  failTools?: Record<string, string>;
  /** Close (reject) a client's open diffs when it disconnects; default false, as pi-ide.nvim. */
  closeDiffsOnDisconnect?: boolean;
  /** Behave like claudecode.nvim (see the header); implies dialect 'claude' and ide name 'Neovim'. */
  claudecode?: boolean;
  /**
   * getDiagnostics as claudecode.nvim answered it before 80752b2 (June 2026): one text item per
   * diagnostic, `{filePath, line, character, severity, message, source}` with 1-based positions
   * and vim's numeric severity, and no item at all when there is none.
   */
  legacyDiagnostics?: boolean;
  /**
   * Behave like the Claude Code extension in VS Code (see the header); implies dialect 'claude'
   * and ide name 'Visual Studio Code'. The port is held by a child process of this one.
   */
  vscode?: boolean;
  /** With `vscode`: which extension (see the header); default 'current'. */
  vscodeVersion?: VscodeVersion;
  /** Behave like Anthropic's JetBrains plugin (see the header); implies dialect 'claude' and ide name 'IntelliJ IDEA'. */
  jetbrains?: boolean;
  /** Behave like claude-code-ide.el in Emacs (see the header); implies dialect 'claude', ide name 'Emacs', no token. */
  emacs?: boolean;
  /** claudecode.nvim: how late tool answers come while in visual mode; default 3000. */
  visualModeDelayMs?: number;
  /** Decide every openDiff as soon as it arrives (benchmarks). */
  autoDecide?: DiffOutcome;
  /** Id style of the requests the editor sends; default number. */
  ids?: IdStyle;
  /**
   * Writes every number as lua-cjson does (14 significant digits: an id 7.000000000000001 is
   * answered as 7; see lua-json.ts). Default: on for the editors written in Lua (pi-ide.nvim,
   * claudecode.nvim), off for the VS Code extension and a generic Claude-dialect editor.
   */
  luaNumbers?: boolean;
  onEvent?: (event: EditorEvent) => void;
}

interface DiffTab extends OpenDiff {
  status: DiffStatus;
  /** VS Code: what the person typed into the proposed side, not saved yet. */
  edited?: string;
  /** VS Code: the person clicked or typed in the proposed side (since 2.1.327 a save needs it). */
  touched?: boolean;
  resolve(result: unknown): void;
}

type ClientRef = EditorClient | number;

const str = { type: 'string' } as const;

function toolSpec(name: string, properties: Record<string, unknown> | [], required: string[] = []): Record<string, unknown> {
  return { name, description: `${name} (fake editor)`, inputSchema: { type: 'object', properties, required } };
}

const OPEN_DIFF_SPEC = toolSpec(
  'openDiff',
  { old_file_path: str, new_file_path: str, new_file_contents: str, tab_name: str },
  ['old_file_path', 'new_file_path', 'new_file_contents', 'tab_name'],
);

const PI_TOOLS = [
  OPEN_DIFF_SPEC,
  toolSpec('close_tab', { tab_name: str }, ['tab_name']),
  toolSpec('getDiagnostics', { uri: str }),
  // pi-ide.nvim's quirk: an empty Lua table is encoded as a JSON array.
  toolSpec('getOpenEditorTabs', []),
];

const CLAUDE_TOOLS = [
  OPEN_DIFF_SPEC,
  toolSpec('close_tab', { tab_name: str }, ['tab_name']),
  toolSpec('closeAllDiffTabs', {}),
  toolSpec('getDiagnostics', { uri: str }),
  toolSpec('getOpenEditors', {}),
  toolSpec('openFile', { filePath: str, preview: { type: 'boolean' }, startText: str, endText: str, makeFrontmost: { type: 'boolean' } }, ['filePath']),
  toolSpec('getCurrentSelection', {}),
  toolSpec('getLatestSelection', {}),
  toolSpec('getWorkspaceFolders', {}),
  toolSpec('checkDocumentDirty', { filePath: str }, ['filePath']),
  toolSpec('saveDocument', { filePath: str }, ['filePath']),
  toolSpec('executeCode', { code: str }, ['code']),
];

// claudecode.nvim lists neither its internal close_tab nor executeCode (a VS Code tool).
const CLAUDECODE_NVIM_TOOLS = CLAUDE_TOOLS.filter((t) => t.name !== 'close_tab' && t.name !== 'executeCode');

// The extension (1.0.100) registers exactly these twelve.
const VSCODE_1_0_100_TOOLS = CLAUDE_TOOLS;

// Since 2.1.327 the IDE connection has no openFile, saveDocument or getOpenEditors.
const VSCODE_REMOVED = new Set(['openFile', 'saveDocument', 'getOpenEditors']);
const VSCODE_TOOLS = CLAUDE_TOOLS.filter((t) => !VSCODE_REMOVED.has(t.name as string));

const JETBRAINS_TOOLS = CLAUDE_TOOLS.filter((t) => t.name !== 'executeCode');

// claude-code-ide.el 0.2.7 with its defaults (ediff on, executeCode on), in its order.
const EMACS_TOOLS = [
  toolSpec('openFile', { filePath: str, startLine: { type: 'integer' }, endLine: { type: 'integer' }, startText: str, endText: str }, ['filePath']),
  toolSpec('getDiagnostics', { uri: str }),
  toolSpec('close_tab', { path: str, tab_name: str }),
  OPEN_DIFF_SPEC,
  toolSpec('closeAllDiffTabs', {}),
  toolSpec('executeCode', { code: str }, ['code']),
];

/** What `initialize` names the server, where an editor names it otherwise than by its ide name. */
const SERVER_NAMES = { jetbrains: 'Claude Code JetBrains Plugin', emacs: 'claude-code-ide-mcp' } as const;

/** claudecode.nvim's test for a diff's tab name. */
export function isClaudeDiffName(tabName: string): boolean {
  return tabName.includes('✻') && tabName.includes('⧉');
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized' };

function parseOpenDiffArgs(value: unknown): OpenDiffArgs {
  const args = (value ?? {}) as Record<string, unknown>;
  for (const key of ['old_file_path', 'new_file_path', 'new_file_contents', 'tab_name']) {
    if (typeof args[key] !== 'string') throw new RpcFailure(-32602, `openDiff: "${key}" must be a string`);
  }
  return args as unknown as OpenDiffArgs;
}

export class FakeEditor {
  readonly dialect: Dialect;
  /** Imitates claudecode.nvim's quirks. */
  readonly claudecode: boolean;
  /** Imitates the Claude Code extension in VS Code. */
  readonly vscode: boolean;
  /** Writes numbers as lua-cjson does (see FakeEditorOptions.luaNumbers). */
  readonly luaNumbers: boolean;
  readonly vscodeVersion: VscodeVersion;
  /** Imitates Anthropic's JetBrains plugin. */
  readonly jetbrains: boolean;
  /** Imitates claude-code-ide.el in Emacs. */
  readonly emacs: boolean;
  /** Tools from setTools(), instead of the editor's own. */
  private toolList: Record<string, unknown>[] | null = null;
  readonly ideName: string;
  readonly workspaceFolders: string[];
  readonly authToken: string;
  /** The pid in the lockfile (may be fake). */
  readonly pid: number;
  readonly clients: EditorClient[] = [];
  readonly received: { client: EditorClient; msg: RpcMessage }[] = [];
  readonly refused: { status: number; headers: IncomingHttpHeaders }[] = [];
  /** Every tab that closed, in order, with why. */
  readonly closedDiffs: ClosedDiff[] = [];
  /** claudecode.nvim: diffs whose tab the person closed, kept until a close_tab (closeGoneTab). */
  private readonly goneTabs = new Set<string>();
  /** claudecode.nvim: open files (from `tabs`) that a close_tab without diff markers closed. */
  readonly closedBuffers: EditorTab[] = [];
  mode: EditorMode = 'normal';
  diagnostics: DiagnosticsMap;
  tabs: EditorTab[];
  latestSelection: SelectionChanged | null = null;
  /** Tool name → error message; mutable so a test can make a tool fail midway. */
  failTools: Record<string, string>;
  private readonly openDiffs = new Map<string, DiffTab>();
  private readonly sockets = new Set<Socket>();
  private readonly requestsSent = new Map<RpcId, EditorClient>();
  private readonly lifetime = new AbortController();
  private pingTimer: NodeJS.Timeout | null = null;
  private ending: Promise<void> | null = null;
  private nextClientId = 1;
  /** Emacs: the client its notifications go to (the newest). */
  private emacsClient: number | null = null;

  private constructor(
    readonly options: FakeEditorOptions,
    private readonly server: Server,
    private readonly wss: WebSocketServer,
    readonly port: number,
    readonly lockfile: string | null,
    /** vscode: the child process that holds `port` (VS Code's extension host). */
    readonly listener: ChildProcess | null,
  ) {
    this.claudecode = options.claudecode ?? false;
    this.vscode = options.vscode ?? false;
    this.vscodeVersion = options.vscodeVersion ?? 'current';
    this.jetbrains = options.jetbrains ?? false;
    this.emacs = options.emacs ?? false;
    this.dialect = this.claudecode || this.vscode || this.jetbrains || this.emacs ? 'claude' : (options.dialect ?? 'pi');
    this.luaNumbers = options.luaNumbers ?? (this.claudecode || this.dialect === 'pi');
    this.ideName = options.ideName ?? defaultIdeName(options);
    this.workspaceFolders = options.workspaceFolders;
    this.authToken = options.authToken ?? '';
    this.pid = options.pid ?? process.pid;
    this.diagnostics = options.diagnostics ?? {};
    this.tabs = options.tabs ?? [];
    this.failTools = { ...options.failTools };
  }

  /** Listens on 127.0.0.1, then writes `<lockDir>/<port>.lock` (0600). */
  static async start(options: FakeEditorOptions): Promise<FakeEditor> {
    if (options.claudecode && options.dialect === 'pi') throw new Error('fake editor: claudecode.nvim speaks the claude dialect, not pi');
    if (options.vscode && (options.dialect === 'pi' || options.claudecode)) throw new Error('fake editor: the VS Code extension speaks the claude dialect and is not claudecode.nvim');
    const kinds = [options.claudecode, options.vscode, options.jetbrains, options.emacs].filter(Boolean).length;
    if (kinds > 1) throw new Error('fake editor: claudecode, vscode, jetbrains and emacs are different editors: pick one');
    if ((options.jetbrains || options.emacs) && options.dialect === 'pi') throw new Error('fake editor: JetBrains and Emacs speak the claude dialect');
    const opts = { ...options, authToken: options.authToken ?? randomBytes(32).toString('hex') };
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain' }).end('WebSocket upgrade required\n');
    });
    const wss = new WebSocketServer({
      noServer: true,
      maxPayload: 256 * 1024 * 1024,
      handleProtocols: (offered) => (offered.has('mcp') ? 'mcp' : false),
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      // VS Code's port is held by a child process (below); this server is reached through it.
      server.listen(opts.vscode ? 0 : (opts.port ?? 0), '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    const serverPort = (server.address() as { port: number }).port;
    let listener: ChildProcess | null = null;
    let port = serverPort;
    if (opts.vscode) {
      try {
        ({ child: listener, port } = await startListenerChild(serverPort, opts.port ?? 0));
      } catch (err) {
        server.close();
        throw err;
      }
    }
    let lockfile: string | null = null;
    if (opts.writeLockfile !== false) {
      lockfile = await writeLockfile(opts.lockDir, port, {
        pid: opts.pid ?? process.pid,
        workspaceFolders: opts.workspaceFolders,
        ideName: opts.ideName ?? defaultIdeName(opts),
        transport: 'ws',
        ...(opts.vscode ? { runningInWindows: false } : {}),
        // claude-code-ide.el writes none and checks none.
        ...(opts.emacs ? {} : { authToken: opts.authToken }),
      });
    }
    const editor = new FakeEditor(opts, server, wss, port, lockfile, listener);
    editor.attach();
    return editor;
  }

  /** Open diff tabs by tab name (a claudecode.nvim double's include decided ones until closed). */
  get diffs(): ReadonlyMap<string, OpenDiff> {
    return this.openDiffs;
  }

  get openClients(): EditorClient[] {
    return this.clients.filter((c) => c.closeCode === null);
  }

  get tools(): Record<string, unknown>[] {
    if (this.toolList) return this.toolList;
    if (this.claudecode) return CLAUDECODE_NVIM_TOOLS;
    if (this.vscode) return this.vscodeVersion === '1.0.100' ? VSCODE_1_0_100_TOOLS : VSCODE_TOOLS;
    if (this.jetbrains) return JETBRAINS_TOOLS;
    if (this.emacs) return EMACS_TOOLS;
    return this.dialect === 'pi' ? PI_TOOLS : CLAUDE_TOOLS;
  }

  /** The editor's tools change (a plugin turned on or off): `notifications/tools/list_changed` to every client. */
  setTools(tools: Record<string, unknown>[]): number {
    this.toolList = tools;
    return this.broadcast('notifications/tools/list_changed', {});
  }

  /** Open diff tabs still waiting for the person. */
  get pendingDiffs(): OpenDiff[] {
    return [...this.openDiffs.values()].filter((d) => d.status === 'pending');
  }

  // ── the person's side ────────────────────────────────────────────────────────────────

  /**
   * Answers the blocked openDiff of `tabName`: `[FILE_SAVED, contents]` or `[DIFF_REJECTED, tab_name]`.
   * The tab closes, except in a claudecode.nvim double, where it waits for a close_tab.
   */
  decide(tabName: string, outcome: DiffOutcome, contents?: string): void {
    const tab = this.openDiffs.get(tabName);
    if (!tab) throw new Error(`fake editor: no open diff "${tabName}" (open: ${[...this.openDiffs.keys()].join(', ') || 'none'})`);
    if (tab.status !== 'pending') throw new Error(`fake editor: diff "${tabName}" is already ${tab.status}, its tab waits for close_tab`);
    this.decideTab(tab, outcome, contents ?? (outcome === 'saved' ? tab.edited : undefined));
  }

  /** VS Code: the person types into a pending diff's proposed side (unsaved; Accept or a save then sends it). */
  editProposed(tabName: string, contents: string): void {
    const tab = this.openDiffs.get(tabName);
    if (!tab || tab.status !== 'pending') throw new Error(`fake editor: no pending diff "${tabName}" to edit`);
    tab.edited = contents;
    tab.touched = true;
  }

  /** VS Code: the person clicks into a pending diff's proposed side (since 2.1.327 a save then accepts). */
  touchProposed(tabName: string): void {
    const tab = this.openDiffs.get(tabName);
    if (!tab || tab.status !== 'pending') throw new Error(`fake editor: no pending diff "${tabName}" to click into`);
    tab.touched = true;
  }

  /**
   * VS Code: the person reverts one change (`change`, 1-based, in the order the changes come in
   * the file) of a pending diff with the diff's Revert Block: that part of the proposed side is
   * the file's own again. Accept or a save then sends what is left.
   */
  revertChange(tabName: string, change: number): void {
    const tab = this.openDiffs.get(tabName);
    if (!tab || tab.status !== 'pending') throw new Error(`fake editor: no pending diff "${tabName}" to revert in`);
    const original = existsSync(tab.args.old_file_path) ? readFileSync(tab.args.old_file_path, 'utf8') : '';
    const proposed = tab.edited ?? tab.args.new_file_contents;
    const hunks = changeBlocks(original, proposed);
    const hunk = hunks[change - 1];
    if (!hunk) throw new Error(`fake editor: diff "${tabName}" has ${hunks.length} changes, not ${change}`);
    tab.edited = [...hunk.before, ...hunk.original, ...hunk.after].join('');
    tab.touched = true;
  }

  /**
   * VS Code: the person saves (Ctrl+S) in a pending diff. 1.0.100 accepts it as it stands; since
   * 2.1.327 only once the person clicked or typed in its proposed side: else nothing happens.
   * Returns whether it was accepted.
   */
  save(tabName: string): boolean {
    const tab = this.openDiffs.get(tabName);
    if (!tab || tab.status !== 'pending') throw new Error(`fake editor: no pending diff "${tabName}" to save`);
    if (!this.vscode) throw new Error('fake editor: save() is VS Code’s');
    if (this.vscodeVersion === 'current' && !tab.touched) return false;
    this.decideTab(tab, 'saved', tab.edited);
    return true;
  }

  /**
   * The person closes a diff's tab (VS Code's x, `:tabclose` in Neovim); a pending diff closed so
   * is rejected. claudecode.nvim keeps the diff's state until a close_tab (see closeGoneTab).
   */
  closeTab(tabName: string): void {
    const tab = this.openDiffs.get(tabName);
    if (!tab) throw new Error(`fake editor: no open diff "${tabName}" (open: ${[...this.openDiffs.keys()].join(', ') || 'none'})`);
    this.closeDiff(tab, 'rejected', 'person');
    if (this.claudecode) this.goneTabs.add(tabName);
  }

  /**
   * claudecode.nvim's close_tab for a diff whose tab the person closed: its cleanup finds the tab
   * gone and closes the current tab instead (here the newest diff's), which rejects that diff.
   */
  private closeGoneTab(tabName: string): boolean {
    if (!this.goneTabs.delete(tabName)) return false;
    const current = [...this.openDiffs.values()].at(-1);
    if (current) this.closeDiff(current, 'rejected', 'close_tab');
    return true;
  }

  /** claudecode.nvim: visual mode makes every tool answer late. */
  setMode(mode: EditorMode): void {
    this.mode = mode;
  }

  setDiagnostics(map: DiagnosticsMap): void {
    this.diagnostics = map;
  }

  setTabs(tabs: EditorTab[]): void {
    this.tabs = tabs;
  }

  // ── editor → agent ───────────────────────────────────────────────────────────────────

  /** Broadcasts `selection_changed` to every client (or one); returns how many got it. */
  sendSelection(input: SelectionInput, to?: ClientRef): number {
    const start = input.start ?? { line: 0, character: 0 };
    const end = input.end ?? start;
    const text = input.text ?? '';
    const selection = { start, end, isEmpty: start.line === end.line && start.character === end.character };
    let sel: SelectionChanged;
    if (this.dialect === 'pi') sel = { text, filePath: input.proposed ? `${input.filePath} [pi-proposed]` : input.filePath, selection };
    else if (input.proposed && this.claudecode) {
      const buffer = this.proposedBufferName(input.filePath);
      sel = { text, filePath: buffer, fileUrl: `file://${buffer}`, selection };
    } else sel = { text, filePath: input.filePath, fileUrl: input.fileUrl ?? `${input.proposed ? '_claude_fs_right:' : 'file://'}${input.filePath}`, selection };
    this.latestSelection = sel;
    return this.broadcast('selection_changed', sel, to);
  }

  /** claudecode.nvim's name for the proposed buffer of the diff open on `filePath`, under Neovim's cwd (the first folder). */
  private proposedBufferName(filePath: string): string {
    const diff = [...this.openDiffs.values()].find((d) => d.args.new_file_path === filePath);
    if (!diff) throw new Error(`fake editor: no diff open on ${filePath}`);
    const isNew = diff.args.old_file_path === '' || !existsSync(diff.args.old_file_path);
    return `${this.workspaceFolders[0]}/${diff.tabName} ${isNew ? '(NEW FILE - proposed)' : '(proposed)'}`;
  }

  /** Claude-dialect editors: `at_mentioned {filePath,lineStart,lineEnd}`. */
  sendAtMentioned(mention: { filePath: string; lineStart?: number; lineEnd?: number }, to?: ClientRef): number {
    return this.broadcast('at_mentioned', mention, to);
  }

  /** Any notification, to every client (or one). */
  broadcast(method: string, params: unknown, to?: ClientRef): number {
    const all = this.emacs ? this.openClients.filter((c) => c.id === this.emacsClient) : this.openClients;
    const targets = to === undefined ? all : [this.client(to)];
    return targets.filter((c) => c.rpc.notify(method, params)).length;
  }

  /** Sends a request to one client (default: the first connected, as pi-ide.nvim picks one). */
  startRequest(method: string, params?: unknown, to?: ClientRef): { id: RpcId; client: EditorClient; response: Promise<RpcResponse> } {
    const client = to === undefined ? this.openClients[0] : this.client(to);
    if (!client) throw new Error(`fake editor: cannot send ${method}: no client is connected`);
    const { id, response } = client.rpc.start(method, params);
    this.requestsSent.set(id, client);
    return { id, client, response };
  }

  request(method: string, params?: unknown, to?: ClientRef): Promise<RpcResponse> {
    return this.startRequest(method, params, to).response;
  }

  getSuggestions(params: Record<string, unknown>, to?: ClientRef): Promise<RpcResponse> {
    return this.request('getSuggestions', params, to);
  }

  /** pi-ide.nvim sends `params: []` here. */
  listSuggestionModels(to?: ClientRef): Promise<RpcResponse> {
    return this.request('listSuggestionModels', [], to);
  }

  /** `request_cancelled {id}` to the client the request went to. */
  cancel(id: RpcId): void {
    const client = this.requestsSent.get(id);
    if (!client) throw new Error(`fake editor: no request with id ${JSON.stringify(id)} was sent`);
    client.rpc.notify('request_cancelled', { id });
  }

  // ── waiting ──────────────────────────────────────────────────────────────────────────

  /** The pending diff named `tabName`, or the oldest pending one. */
  waitForDiff(tabName?: string, opts: WaitOptions = {}): Promise<OpenDiff> {
    const pending = (d: OpenDiff | undefined): OpenDiff | undefined => (d?.status === 'pending' ? d : undefined);
    return waitFor(() => (tabName === undefined ? this.pendingDiffs[0] : pending(this.openDiffs.get(tabName))), {
      message: () => `diff ${tabName ?? '(any)'} in ${this.ideName} (open: ${[...this.openDiffs.keys()].join(', ') || 'none'})`,
      ...opts,
    });
  }

  /** No diff tab left open, decided or not. */
  async waitForNoDiffs(opts: WaitOptions = {}): Promise<void> {
    await waitFor(() => this.openDiffs.size === 0, {
      message: () => `${this.ideName} with no diff open (open: ${[...this.openDiffs.values()].map((d) => `${d.tabName} ${d.status}`).join(', ')})`,
      ...opts,
    });
  }

  waitForClients(count = 1, opts: WaitOptions = {}): Promise<EditorClient[]> {
    return waitFor(() => this.openClients.length >= count && this.openClients, {
      message: () => `${count} client(s) on ${this.ideName} (have ${this.openClients.length})`,
      ...opts,
    });
  }

  /** The first received message (after `skip` of them) that matches. */
  waitForMessage(pred: (msg: RpcMessage, client: EditorClient) => boolean, opts: WaitOptions & { skip?: number } = {}): Promise<{ client: EditorClient; msg: RpcMessage }> {
    return waitFor(() => this.received.slice(opts.skip ?? 0).find((r) => pred(r.msg, r.client)), {
      message: `a matching message on ${this.ideName}`,
      ...opts,
    });
  }

  /** The first `tools/call` of `tool` received (after `skip` messages). */
  waitForCall(tool: string, opts: WaitOptions & { skip?: number } = {}): Promise<{ client: EditorClient; msg: RpcMessage }> {
    return this.waitForMessage((m) => m.method === 'tools/call' && (m.params as { name?: unknown } | undefined)?.name === tool, {
      message: `tools/call ${tool} on ${this.ideName}`,
      ...opts,
    });
  }

  /** Tool calls received, optionally only those of one tool. */
  calls(tool?: string): { client: EditorClient; name: string; args: Record<string, unknown>; msg: RpcMessage }[] {
    return this.received
      .filter((r) => r.msg.method === 'tools/call')
      .map((r) => {
        const p = (r.msg.params ?? {}) as { name?: unknown; arguments?: unknown };
        return { client: r.client, name: String(p.name), args: (p.arguments ?? {}) as Record<string, unknown>, msg: r.msg };
      })
      .filter((c) => tool === undefined || c.name === tool);
  }

  // ── lifetime ─────────────────────────────────────────────────────────────────────────

  /** Closes every client with a close frame, the server, and deletes the lockfile. Safe twice; after crash() it does nothing more. */
  stop(): Promise<void> {
    this.ending ??= this.shutdown(true);
    return this.ending;
  }

  /** Like kill -9: sockets destroyed without a close frame; the lockfile stays behind. */
  crash(): Promise<void> {
    this.ending ??= this.shutdown(false);
    return this.ending;
  }

  private async shutdown(graceful: boolean): Promise<void> {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.lifetime.abort();
    if (graceful) {
      const open = this.openClients;
      for (const c of open) c.rpc.close(1001, 'editor closing');
      // Clients get half a second to answer the close frame; the rest are dropped below.
      const patience = new AbortController();
      await Promise.race([Promise.all(open.map((c) => c.rpc.closed)), sleep(500, undefined, { signal: patience.signal }).catch(() => {})]);
      patience.abort();
    }
    for (const c of this.clients) c.rpc.terminate();
    for (const s of this.sockets) s.destroy();
    if (this.listener) await stopListenerChild(this.listener, graceful);
    this.wss.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    if (graceful && this.lockfile) await rm(this.lockfile, { force: true });
  }

  private attach(): void {
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
      // claude-code-ide.el has no token to check: every connection is taken.
      if (this.emacs) return this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req, ''));
      const authHeader = this.acceptedHeader(req.headers);
      if (authHeader === null && this.vscode) {
        // The extension lets the upgrade through and closes at once; nobody else is disturbed.
        this.refused.push({ status: 1008, headers: req.headers });
        this.options.onEvent?.({ type: 'refused', status: 1008, headers: req.headers });
        this.wss.handleUpgrade(req, socket, head, (ws) => ws.close(1008, 'Unauthorized'));
        return;
      }
      if (authHeader === null) {
        const status = this.dialect === 'pi' ? 400 : 401;
        this.refused.push({ status, headers: req.headers });
        this.options.onEvent?.({ type: 'refused', status, headers: req.headers });
        socket.end(`HTTP/1.1 ${status} ${STATUS_TEXT[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      if (this.jetbrains && req.headers['sec-websocket-protocol'] !== 'mcp') {
        // The MCP Kotlin SDK's WebSocket transport: the subprotocol must be exactly "mcp".
        this.refused.push({ status: 400, headers: req.headers });
        this.options.onEvent?.({ type: 'refused', status: 400, headers: req.headers });
        socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req, authHeader));
    });
    const interval = this.options.pingIntervalMs ?? 30_000;
    if (interval > 0) {
      this.pingTimer = setInterval(() => {
        for (const c of this.openClients) if (c.rpc.isOpen) c.rpc.ws.ping();
      }, interval);
    }
  }

  private acceptedHeader(headers: IncomingHttpHeaders): string | null {
    const accepted = this.dialect === 'pi' ? [PI_AUTH_HEADER, CLAUDE_AUTH_HEADER] : [CLAUDE_AUTH_HEADER];
    return accepted.find((h) => headers[h] === this.authToken) ?? null;
  }

  private onConnection(ws: WebSocket, req: IncomingMessage, authHeader: string): void {
    // VS Code's extension serves one client: the newcomer replaces it (a close without a code).
    if (this.vscode) for (const previous of this.openClients) previous.rpc.ws.close();
    // claude-code-ide.el keeps one client per project: the newest (the older is not closed).
    if (this.emacs) this.emacsClient = this.nextClientId;
    const id = this.nextClientId++;
    let client: EditorClient;
    // pi-ide.nvim and claudecode.nvim take a message's first fragment for all of it (no valid
    // JSON: nothing happens) and close at the continuation (ws-fragments.ts): what ws puts
    // together here is never seen by them.
    let fragmented = false;
    if (this.dialect === 'pi' || this.claudecode) {
      watchForFragments(req.socket as Socket, () => {
        fragmented = true;
        ws.close(1003, 'Unsupported data');
      });
    }
    const rpc = new RpcPeer(
      ws,
      {
        frame: (msg) => {
          if (fragmented) return;
          this.received.push({ client, msg });
          this.options.onEvent?.({ type: 'message', client, msg });
        },
        request: (msg) => (fragmented ? new Promise<never>(() => {}) : this.onRequest(client, msg)),
      },
      this.options.ids ?? 'number',
      `editor-${id}`,
      this.luaNumbers ? luaJson : JSON.stringify,
    );
    client = {
      id,
      headers: req.headers,
      authHeader,
      protocol: ws.protocol,
      remotePort: req.socket.remotePort ?? 0,
      connectedAt: Date.now(),
      rpc,
      closeCode: null,
    };
    this.clients.push(client);
    this.options.onEvent?.({ type: 'connection', client });
    void rpc.closed.then(({ code }) => {
      client.closeCode = code;
      if (this.options.closeDiffsOnDisconnect || this.claudecode) {
        for (const tab of [...this.openDiffs.values()]) {
          if (tab.client === client && tab.status === 'pending') this.closeDiff(tab, 'rejected', 'client gone');
        }
      }
      this.options.onEvent?.({ type: 'disconnect', client, code });
    });
  }

  private client(ref: ClientRef): EditorClient {
    if (typeof ref !== 'number') return ref;
    const client = this.clients.find((c) => c.id === ref);
    if (!client) throw new Error(`fake editor: no client ${ref}`);
    return client;
  }

  private async onRequest(client: EditorClient, msg: RpcRequestMessage): Promise<unknown> {
    switch (msg.method) {
      case 'initialize': {
        const name = this.jetbrains ? SERVER_NAMES.jetbrains : this.emacs ? SERVER_NAMES.emacs : this.ideName;
        // claude-code-ide.el tells its client of its tools by a list_changed shortly after.
        if (this.emacs) setTimeout(() => client.closeCode === null && client.rpc.notify('notifications/tools/list_changed', {}), 100).unref();
        return { protocolVersion: '2024-11-05', capabilities: { tools: { listChanged: true } }, serverInfo: { name, version: '0.0.0-fake' } };
      }
      case 'ping':
        return {};
      case 'tools/list':
        return { tools: this.tools };
      case 'tools/call': {
        const params = (msg.params ?? {}) as { name?: unknown; arguments?: unknown };
        if (typeof params.name !== 'string') throw new RpcFailure(-32602, 'tools/call: "name" must be a string');
        const internal = this.claudecode && params.name === 'close_tab';
        if (!internal && !this.tools.some((t) => t.name === params.name)) throw new RpcFailure(-32601, `Tool not found: ${params.name}`);
        const failure = this.failTools[params.name];
        if (failure !== undefined) throw new RpcFailure(-32603, failure);
        if (this.claudecode && this.mode === 'visual') await sleep(this.options.visualModeDelayMs ?? 3000, undefined, { signal: this.lifetime.signal });
        return this.callTool(client, msg.id, params.name, (params.arguments ?? {}) as Record<string, unknown>);
      }
      default:
        throw new RpcFailure(-32601, `Method not found: ${msg.method}`);
    }
  }

  private async callTool(client: EditorClient, requestId: RpcId, name: string, args: Record<string, unknown>): Promise<unknown> {
    switch (name) {
      case 'openDiff':
        return this.openDiff(client, requestId, parseOpenDiffArgs(args));
      case 'close_tab': {
        const tabName = String(args.tab_name);
        if (this.vscode) return this.closeTabByLabel(tabName);
        if (this.emacs) return this.closeEmacsTab(tabName);
        if (this.claudecode && !isClaudeDiffName(tabName)) return this.closeBuffer(tabName);
        if (this.claudecode && this.closeGoneTab(tabName)) return textContent('TAB_CLOSED');
        const tab = this.openDiffs.get(tabName);
        if (tab) this.closeDiff(tab, 'rejected', 'close_tab');
        return textContent('TAB_CLOSED');
      }
      case 'closeAllDiffTabs': {
        if (this.vscode) return textContent(`CLOSED_${this.closeClaudeCodeDiffs('closeAllDiffTabs')}_DIFF_TABS`);
        if (this.emacs) {
          // Its cleanup answers no pending openDiff.
          const tabs = [...this.openDiffs.values()];
          for (const tab of tabs) this.dropDiff(tab, 'closeAllDiffTabs');
          return textContent(`CLOSED_${tabs.length}_DIFF_TABS`);
        }
        const tabs = [...this.openDiffs.values()];
        for (const tab of tabs) this.closeDiff(tab, 'rejected', 'closeAllDiffTabs');
        return textContent(`CLOSED_${tabs.length}_DIFF_TABS`);
      }
      case 'getDiagnostics':
        return this.getDiagnostics(typeof args.uri === 'string' ? args.uri : undefined);
      case 'getOpenEditorTabs':
        return textContent(JSON.stringify(this.tabs.map((t) => ({ uri: t.uri, isActive: t.isActive ?? false, isDirty: t.isDirty ?? false, languageId: t.languageId ?? '' }))));
      case 'getOpenEditors':
        return textContent(
          JSON.stringify({
            tabs: this.tabs.map((t) => ({ uri: t.uri, isActive: t.isActive ?? false, label: t.label ?? basename(t.uri), languageId: t.languageId ?? '', isDirty: t.isDirty ?? false })),
          }),
        );
      case 'openFile':
        return textContent(`Opened file: ${String(args.filePath)}`);
      case 'getCurrentSelection':
      case 'getLatestSelection':
        return textContent(JSON.stringify(this.latestSelection ? { success: true, ...this.latestSelection } : { success: false, message: 'No active editor found' }));
      case 'getWorkspaceFolders':
        return textContent(
          JSON.stringify({
            success: true,
            folders: this.workspaceFolders.map((p) => ({ name: basename(p), uri: `file://${p}`, path: p })),
            rootPath: this.workspaceFolders[0] ?? null,
          }),
        );
      case 'checkDocumentDirty':
      case 'saveDocument': {
        const filePath = String(args.filePath);
        const tab = this.tabs.find((t) => t.uri === filePath || t.uri === `file://${filePath}`);
        if (!tab) return textContent(JSON.stringify({ success: false, message: `Document not open: ${filePath}` }));
        if (name === 'checkDocumentDirty') return textContent(JSON.stringify({ success: true, filePath, isDirty: tab.isDirty ?? false, isUntitled: false }));
        tab.isDirty = false;
        return textContent(JSON.stringify({ success: true, filePath, saved: true, message: 'Document saved successfully' }));
      }
      case 'executeCode':
        return textContent(JSON.stringify({ output: '', note: 'fake editor does not run code' }));
      default:
        throw new RpcFailure(-32601, `Tool not found: ${name}`);
    }
  }

  private openDiff(client: EditorClient, requestId: RpcId, args: OpenDiffArgs): Promise<unknown> {
    if (this.vscode) this.closeClaudeCodeDiffs('opened another');
    const previous = this.openDiffs.get(args.tab_name);
    // claude-code-ide.el cleans the old one up and files the new request in its place: unanswered.
    if (previous && this.emacs) this.dropDiff(previous, 'replaced');
    else if (previous) this.closeDiff(previous, 'rejected', 'replaced');
    return new Promise((resolve) => {
      const tab: DiffTab = { tabName: args.tab_name, status: 'pending', args, client, requestId, openedAt: Date.now(), resolve };
      this.openDiffs.set(tab.tabName, tab);
      this.options.onEvent?.({ type: 'diff', diff: tab });
      const auto = this.options.autoDecide;
      if (auto) queueMicrotask(() => this.openDiffs.get(tab.tabName) === tab && tab.status === 'pending' && this.decideTab(tab, auto));
    });
  }

  private decideTab(tab: DiffTab, outcome: DiffOutcome, contents?: string): void {
    if (this.claudecode || this.vscode || this.jetbrains || this.emacs) this.answer(tab, outcome, contents);
    else this.closeDiff(tab, outcome, 'decided', contents);
  }

  /** Emacs's cleanup of a diff: its tab closes and a pending openDiff is never answered. */
  private dropDiff(tab: DiffTab, reason: CloseReason): void {
    if (this.openDiffs.get(tab.tabName) === tab) this.openDiffs.delete(tab.tabName);
    const closed: ClosedDiff = { tabName: tab.tabName, outcome: tab.status === 'saved' ? 'saved' : 'rejected', reason, client: tab.client };
    this.closedDiffs.push(closed);
    this.options.onEvent?.({ type: 'diffClosed', closed });
  }

  /** claude-code-ide.el's close_tab: a diff's (answered or not, see dropDiff), else a buffer of that name, else an error. */
  private closeEmacsTab(tabName: string): unknown {
    const diff = this.openDiffs.get(tabName);
    if (diff) this.dropDiff(diff, 'close_tab');
    else {
      const tab = this.tabs.find((t) => (t.label ?? basename(t.uri)) === tabName);
      if (!tab) throw new RpcFailure(-32603, `No buffer named ${tabName}`);
      this.tabs = this.tabs.filter((t) => t !== tab);
      this.closedBuffers.push(tab);
    }
    return textContent('TAB_CLOSED');
  }

  /** Answers a pending diff's openDiff; its tab stays as it is. */
  private answer(tab: DiffTab, outcome: DiffOutcome, contents?: string): void {
    if (tab.status !== 'pending') return;
    tab.status = outcome;
    if (outcome === 'saved') {
      const final = contents ?? tab.args.new_file_contents;
      tab.resolve(this.options.omitSavedContents ? textContent('FILE_SAVED') : textContent('FILE_SAVED', final));
    } else {
      tab.resolve(textContent('DIFF_REJECTED', tab.tabName));
    }
  }

  /** Closes a diff's tab; a pending one is answered `outcome` first. */
  private closeDiff(tab: DiffTab, outcome: DiffOutcome, reason: CloseReason, contents?: string): void {
    if (this.openDiffs.get(tab.tabName) === tab) this.openDiffs.delete(tab.tabName);
    this.answer(tab, outcome, contents);
    const closed: ClosedDiff = { tabName: tab.tabName, outcome: tab.status as DiffOutcome, reason, client: tab.client };
    this.closedDiffs.push(closed);
    this.options.onEvent?.({ type: 'diffClosed', closed });
  }

  /**
   * VS Code closing a diff's tab itself (close_tab, closeAllDiffTabs, an openDiff): it saves the
   * proposed side first, which VS Code does only when it was edited: a pending diff then answers
   * FILE_SAVED with the edit, else (closed unedited) DIFF_REJECTED.
   */
  private closeSaving(tab: DiffTab, reason: CloseReason): void {
    if (tab.edited !== undefined) this.closeDiff(tab, 'saved', reason, tab.edited);
    else this.closeDiff(tab, 'rejected', reason);
  }

  /** VS Code's close_tab: the tab whose label is the name closes (see closeSaving). Always TAB_CLOSED. */
  private closeTabByLabel(label: string): unknown {
    const diff = this.openDiffs.get(label);
    if (diff) this.closeSaving(diff, 'close_tab');
    else {
      const tab = this.tabs.find((t) => (t.label ?? basename(t.uri)) === label);
      if (tab) {
        this.tabs = this.tabs.filter((t) => t !== tab);
        this.closedBuffers.push(tab);
      }
    }
    return textContent('TAB_CLOSED');
  }

  /** VS Code's closeAllDiffTabs (also run by every openDiff): "[Claude Code]" diffs (see closeSaving). */
  private closeClaudeCodeDiffs(reason: CloseReason): number {
    const tabs = [...this.openDiffs.values()].filter((t) => t.tabName.includes('[Claude Code]'));
    for (const tab of tabs) this.closeSaving(tab, reason);
    return tabs.length;
  }

  /**
   * claudecode.nvim's close_tab for a name without diff markers: it deletes the buffer of that
   * name (exact, then by prefix, as Vim's bufnr() matches), else of a file name found in it.
   * A diff's proposed buffer (`<name> (proposed)`) and a modified file cannot be deleted.
   */
  private closeBuffer(tabName: string): unknown {
    const buffers = [
      ...[...this.openDiffs.keys()].map((name) => ({ name: `${name} (proposed)`, modified: true, tab: null })),
      ...this.tabs.map((tab) => ({ name: tab.uri.replace(/^file:\/\//, ''), modified: tab.isDirty ?? false, tab })),
    ];
    const file = /([\w.\-]+\.\w+)/.exec(tabName)?.[1];
    const buffer =
      buffers.find((b) => b.name === tabName) ??
      buffers.find((b) => b.name.startsWith(tabName)) ??
      (file === undefined ? undefined : buffers.find((b) => b.name.endsWith(file)));
    if (!buffer) return textContent('TAB_CLOSED');
    if (buffer.modified) throw new RpcFailure(-32000, 'Buffer operation error', `Failed to close buffer for tab ${tabName}: Failed to unload buffer.`);
    this.tabs = this.tabs.filter((t) => t !== buffer.tab);
    this.closedBuffers.push(buffer.tab!);
    return textContent('TAB_CLOSED');
  }

  private async getDiagnostics(uri: string | undefined): Promise<unknown> {
    const delayMs = this.options.diagnosticsDelayMs ?? 0;
    if (delayMs > 0) await sleep(delayMs, undefined, { signal: this.lifetime.signal });
    const entries = Object.entries(this.diagnostics).filter(([u]) => uri === undefined || u === uri);
    if (this.options.legacyDiagnostics) return textContent(...entries.flatMap(([u, diagnostics]) => diagnostics.map((d) => legacyDiagnostic(u, d))));
    if (this.vscode) {
      const named = entries.map(([u, diagnostics]) => ({ uri: u, diagnostics: diagnostics.map(vscodeDiagnostic) }));
      return textContent(JSON.stringify(named, null, 2));
    }
    // claude-code-ide.el lists only files with diagnostics; none is "[]".
    if (this.dialect === 'claude') return textContent(JSON.stringify(entries.filter(([, d]) => !this.emacs || d.length > 0).map(([u, diagnostics]) => ({ uri: u, diagnostics }))));
    // pi-ide.nvim: an empty Lua table is encoded as `[]`, not `{}`.
    return textContent(entries.length === 0 ? '[]' : JSON.stringify(Object.fromEntries(entries)));
  }
}

function defaultIdeName(options: FakeEditorOptions): string {
  if (options.vscode) return 'Visual Studio Code';
  if (options.jetbrains) return 'IntelliJ IDEA';
  if (options.emacs) return 'Emacs';
  return options.claudecode || (options.dialect ?? 'pi') === 'pi' ? 'Neovim' : 'Visual Studio Code';
}

/** VS Code's DiagnosticSeverity names, by LSP number (1 = Error). */
const SEVERITY_NAMES: Record<number, string> = { 1: 'Error', 2: 'Warning', 3: 'Information', 4: 'Hint' };

/** A diagnostic as the extension sends it: severity by name, code as a string. */
function vscodeDiagnostic(d: Diagnostic): Diagnostic {
  const severity = typeof d.severity === 'number' ? (SEVERITY_NAMES[d.severity] ?? String(d.severity)) : d.severity;
  return { message: d.message, severity, range: d.range, source: d.source, code: d.code === undefined ? undefined : String(d.code) };
}

/** One diagnostic as an old claudecode.nvim sent it, as its own text item. */
function legacyDiagnostic(uri: string, d: Diagnostic): string {
  const start = d.range?.start ?? { line: 0, character: 0 };
  const { message, source, severity } = d;
  return JSON.stringify({ filePath: fileURLToPath(uri), line: start.line + 1, character: start.character + 1, severity, message, source });
}

/** A change of a proposal against the file, with the text before and after it in the proposal. */
interface ChangeBlock {
  before: string[];
  original: string[];
  after: string[];
}

/** The proposal's changes against `original`, each as the proposal with that one change undone. */
function changeBlocks(original: string, proposed: string): ChangeBlock[] {
  const parts = diffLines(original, proposed);
  const blocks: ChangeBlock[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (!part.added && !part.removed) continue;
    // A change is a run of removed and added parts; the proposal keeps what is around it.
    let end = i;
    while (end + 1 < parts.length && (parts[end + 1]!.added || parts[end + 1]!.removed)) end++;
    const run = parts.slice(i, end + 1);
    const keep = (list: typeof parts) => list.filter((p) => !p.removed).map((p) => p.value);
    blocks.push({ before: keep(parts.slice(0, i)), original: run.filter((p) => p.removed).map((p) => p.value), after: keep(parts.slice(end + 1)) });
    i = end;
  }
  return blocks;
}

const LISTENER_CHILD = fileURLToPath(new URL('./listener-child.mjs', import.meta.url));

/** Starts the child that holds a VS Code window's port and pipes it to `target`. */
async function startListenerChild(target: number, port: number): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [LISTENER_CHILD, String(target), String(port)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  try {
    const [line] = (await Promise.race([
      once(lines, 'line'),
      once(child, 'exit').then(([code]) => {
        throw new Error(`fake editor: the port's child process exited (${String(code)}) before listening`);
      }),
    ])) as [string];
    return { child, port: (JSON.parse(line) as { port: number }).port };
  } catch (err) {
    child.kill('SIGKILL');
    throw err;
  } finally {
    lines.close();
  }
}

/** Ends the port's child: gracefully by closing its stdin, like kill -9 otherwise. */
async function stopListenerChild(child: ChildProcess, graceful: boolean): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  if (graceful) child.stdin?.end();
  else child.kill('SIGKILL');
  await exited;
}

// ── CLI ─────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'lock-dir': { type: 'string' },
      folder: { type: 'string', multiple: true },
      'ide-name': { type: 'string' },
      dialect: { type: 'string' },
      port: { type: 'string' },
      pid: { type: 'string' },
      token: { type: 'string' },
      'omit-saved-contents': { type: 'boolean' },
      'diagnostics-delay-ms': { type: 'string' },
      'ping-ms': { type: 'string' },
      'auto-decide': { type: 'string' },
      claudecode: { type: 'boolean' },
      vscode: { type: 'boolean' },
      'vscode-version': { type: 'string' },
      jetbrains: { type: 'boolean' },
      emacs: { type: 'boolean' },
      'visual-delay-ms': { type: 'string' },
      quiet: { type: 'boolean' },
    },
  });
  const lockDir = values['lock-dir'];
  if (!lockDir || !values.folder?.length) throw new Error('fake-editor: --lock-dir and at least one --folder are required');
  const dialect = values.dialect ?? (values.claudecode || values.vscode || values.jetbrains || values.emacs ? 'claude' : 'pi');
  const vscodeVersion = values['vscode-version'];
  if (vscodeVersion !== undefined && vscodeVersion !== 'current' && vscodeVersion !== '1.0.100') throw new Error('fake-editor: --vscode-version must be current or 1.0.100');
  if (dialect !== 'pi' && dialect !== 'claude') throw new Error(`fake-editor: --dialect must be pi or claude, not ${dialect}`);
  const autoDecide = values['auto-decide'];
  if (autoDecide !== undefined && autoDecide !== 'save' && autoDecide !== 'reject') throw new Error('fake-editor: --auto-decide must be save or reject');
  const num = (v: string | undefined): number | undefined => (v === undefined ? undefined : Number(v));
  const quiet = values.quiet ?? false;
  const editor = await FakeEditor.start({
    lockDir,
    workspaceFolders: values.folder,
    dialect,
    claudecode: values.claudecode,
    vscode: values.vscode,
    vscodeVersion,
    jetbrains: values.jetbrains,
    emacs: values.emacs,
    visualModeDelayMs: num(values['visual-delay-ms']),
    ideName: values['ide-name'],
    port: num(values.port),
    pid: num(values.pid),
    authToken: values.token,
    omitSavedContents: values['omit-saved-contents'],
    diagnosticsDelayMs: num(values['diagnostics-delay-ms']),
    pingIntervalMs: num(values['ping-ms']),
    autoDecide: autoDecide === 'save' ? 'saved' : autoDecide === 'reject' ? 'rejected' : undefined,
    onEvent: (e) => {
      if (e.type === 'connection') emit({ event: 'connection', client: e.client.id, authHeader: e.client.authHeader, protocol: e.client.protocol, remotePort: e.client.remotePort });
      else if (e.type === 'refused') emit({ event: 'refused', status: e.status });
      else if (e.type === 'message' && !quiet) emit({ event: 'message', client: e.client.id, msg: e.msg });
      else if (e.type === 'diff') emit({ event: 'diff', client: e.diff.client.id, tabName: e.diff.tabName, path: e.diff.args.new_file_path });
      else if (e.type === 'diffClosed') emit({ event: 'diffClosed', tabName: e.closed.tabName, outcome: e.closed.outcome, reason: e.closed.reason });
      else if (e.type === 'disconnect') emit({ event: 'disconnect', client: e.client.id, code: e.code });
    },
  });
  emit({ ready: true, port: editor.port, pid: process.pid, lockfile: editor.lockfile });
  serveCommands(
    {
      decide: (c) => {
        const outcome = field(c, 'outcome');
        if (outcome !== 'save' && outcome !== 'reject') throw new Error('decide: "outcome" must be save or reject');
        editor.decide(field(c, 'tabName'), outcome === 'save' ? 'saved' : 'rejected', typeof c.contents === 'string' ? c.contents : undefined);
        return { tabName: c.tabName, outcome };
      },
      selection: (c) => ({ sent: editor.sendSelection(c as unknown as SelectionInput & Command) }),
      atMentioned: (c) => ({ sent: editor.sendAtMentioned({ filePath: field(c, 'filePath'), lineStart: c.lineStart as number, lineEnd: c.lineEnd as number }) }),
      request: (c: Command) => {
        const { id, client, response } = editor.startRequest(field(c, 'method'), c.params, typeof c.client === 'number' ? c.client : undefined);
        emit({ event: 'requestSent', tag: c.tag, id, client: client.id });
        return response;
      },
      cancel: (c) => {
        if (typeof c.id !== 'string' && typeof c.id !== 'number') throw new Error('cancel: "id" must be a string or number');
        editor.cancel(c.id);
        return { id: c.id };
      },
      diagnostics: (c) => {
        editor.setDiagnostics((c.map ?? {}) as DiagnosticsMap);
        return null;
      },
      tabs: (c) => {
        editor.setTabs((c.tabs ?? []) as EditorTab[]);
        return null;
      },
      fail: (c) => {
        const tool = field(c, 'tool');
        if (typeof c.message === 'string') editor.failTools[tool] = c.message;
        else delete editor.failTools[tool];
        return null;
      },
      mode: (c) => {
        const mode = field(c, 'mode');
        if (mode !== 'normal' && mode !== 'visual') throw new Error('mode: "mode" must be normal or visual');
        editor.setMode(mode);
        return { mode };
      },
      closeTab: (c) => {
        editor.closeTab(field(c, 'tabName'));
        return { tabName: c.tabName };
      },
      edit: (c) => {
        editor.editProposed(field(c, 'tabName'), field(c, 'contents'));
        return { tabName: c.tabName };
      },
      revert: (c) => {
        editor.revertChange(field(c, 'tabName'), Number(c.change));
        return { tabName: c.tabName };
      },
      save: (c) => ({ tabName: c.tabName, accepted: editor.save(field(c, 'tabName')) }),
      diffs: () => [...editor.diffs.values()].map((d) => ({ tabName: d.tabName, status: d.status, client: d.client.id, path: d.args.new_file_path })),
    },
    () => editor.stop(),
  );
}

if (isMain(import.meta.url)) main().catch(startupFailed);
