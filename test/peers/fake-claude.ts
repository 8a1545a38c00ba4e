/**
 * FakeClaudeClient: an interactive Claude Code session's IDE client (DESIGN §1), quirks included.
 *
 * Discovery: reads `<CLAUDE_CONFIG_DIR>/ide/*.lock`, deletes lockfiles whose pid is dead,
 * keeps those whose workspaceFolders contain its cwd and connects only when exactly one
 * matches (or to an explicit port + token), looking again every second for `searchMs` (Claude
 * Code: 30 s). Run in an IDE's terminal (`ideTerminal`; the CLI: `TERM_PROGRAM=vscode` or
 * `FORCE_CODE_TERMINAL`, as VS Code's terminal sets) it keeps only lockfiles whose pid is alive
 * and its parent or one of the 10 processes above that, except the one whose port is
 * `CLAUDE_CODE_SSE_PORT` (the window's own, set in its terminals by the extension), which it
 * takes whatever its pid and folders, and alone when there is one. Offers subprotocol `mcp` (the ws client then
 * fails when the server does not echo it), sends `x-claude-code-ide-authorization`, then
 * `initialize` (protocolVersion 2025-11-25), `notifications/initialized`, `ide_connected {pid}`
 * and `tools/list`. The list is validated as Claude Code does: each inputSchema must be an
 * object schema whose `properties` is an object; otherwise the whole list counts as failed
 * (`toolListError` says why, `tools` is empty); a `notifications/tools/list_changed` has it list
 * them again. Claude's ~2 s of retries are not imitated.
 * `prompt()` calls `closeAllDiffTabs` (Claude does at every prompt). `openDiff()` names tabs
 * `✻ [Claude Code] a.txt (998b60) ⧉`, treats TAB_CLOSED as **accept** (faithful) and only
 * DIFF_REJECTED as reject, sends `close_tab` twice afterwards, and writes accepted files.
 * Tools the model calls (`getDiagnostics`, `executeCode`) carry `_meta`.
 * Reconnects as Claude Code does when its connection drops (unless it closed it): the URL and
 * token it first read, five attempts over ~15 s (waits 1, 2, 3, 4, 5 s), then "Giving up after
 * reconnection attempt 5/5"; it reads no lockfile again meanwhile.
 *
 * CLI (for kill -9 and multi-process tests):
 *   node --import tsx test/peers/fake-claude.ts --cwd C (--config-dir D | --port N --token T)
 *     [--pid N] [--search-ms N] [--quiet]
 *   (an IDE's terminal when TERM_PROGRAM=vscode or FORCE_CODE_TERMINAL is set; CLAUDE_CODE_SSE_PORT)
 * stdout, one JSON object per line:
 *   {"ready":true,"port":N,"pid":N,"lockfile":"…"|null,"toolListError":null|"…"}
 *   {"event":"message","msg":{…}}   (not with --quiet)
 *   {"event":"closed","code":N}
 *   {"event":"reconnected","attempt":N} | {"event":"gaveUp","message":"Giving up after reconnection attempt 5/5"}
 *   {"event":"result"|"error","cmd":"…","tag":…,…}
 * stdin, one JSON command per line (optional "tag" is echoed back):
 *   {"cmd":"prompt"}                                   → closeAllDiffTabs result
 *   {"cmd":"openDiff","path":"…","contents":"…"}      → DiffOutcome
 *   {"cmd":"getDiagnostics","uri"?:"…"}               → the parsed array
 *   {"cmd":"getOpenEditors"}                           → the parsed {tabs}
 *   {"cmd":"call","name":"…","arguments":{…}}         → the raw response
 *   {"cmd":"stop"}
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { emit, field, isMain, serveCommands, startupFailed } from './cli.ts';
import { folderContains, listLockfiles, pidAlive, type FoundLockfile } from './lockfiles.ts';
import { openSocket, RpcPeer, toolTexts, type IdStyle, type RpcMessage, type RpcResponse } from './rpc-peer.ts';
import { waitFor, type WaitOptions } from './wait.ts';

export const CLAUDE_PROTOCOL_VERSION = '2025-11-25';
export const CLAUDE_CLIENT_INFO = { name: 'claude-code', version: '2.0.0-fake' } as const;

export interface ToolSpec {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
}

export type DiffOutcome =
  | { outcome: 'accepted'; tabName: string; path: string; written: string; answer: 'FILE_SAVED' | 'TAB_CLOSED' }
  | { outcome: 'rejected'; tabName: string; path: string }
  | { outcome: 'error'; tabName: string; path: string; message: string };

export interface FakeClaudeOptions {
  cwd: string;
  /** `$CLAUDE_CONFIG_DIR`; lockfiles are read from `<configDir>/ide`. */
  configDir?: string;
  /** Connect here (e.g. Patchbay's door) instead of discovering. */
  port?: number;
  authToken?: string;
  /** Sent in `ide_connected`; default this process's pid. */
  pid?: number;
  /** It runs in an IDE's terminal: lockfiles are checked as Claude Code checks them there. */
  ideTerminal?: IdeTerminal;
  /** How long discovery looks for exactly one lockfile, once a second (default: one look). */
  searchMs?: number;
  ids?: IdStyle;
  onMessage?: (msg: RpcMessage) => void;
  onClose?: (code: number) => void;
  /** Waits before each reconnection attempt after a drop (Claude Code: 1–5 s, ~15 s in all); [] never reconnects. */
  reconnectWaitsMs?: readonly number[];
  onReconnected?: (attempt: number) => void;
  onGaveUp?: (message: string) => void;
}

/** Claude Code's: five attempts over ~15 s at the URL and token it first read. */
export const CLAUDE_RECONNECT_WAITS_MS = [1000, 2000, 3000, 4000, 5000];

export interface IdeTerminal {
  /** `CLAUDE_CODE_SSE_PORT`: the port of the window whose terminal it is. */
  ssePort?: number;
  /** Its parent and the processes above (default: read from the system, as Claude Code does with ps). */
  ancestors?: readonly number[];
}

/** This process's parent and up to 10 processes above it, as Claude Code collects them. */
export async function ownAncestry(): Promise<number[]> {
  const chain = [process.ppid];
  for (let depth = 0; depth < 10; depth++) {
    const stat = await readFile(`/proc/${chain.at(-1)}/stat`, 'utf8').catch(() => null);
    const parent = stat === null ? NaN : Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isInteger(parent) || parent <= 1) break;
    chain.push(parent);
  }
  return chain;
}

/** Claude Code's check: an object schema whose `properties`, when present, is an object. */
export function validateToolList(result: unknown): { tools: ToolSpec[] } | { error: string } {
  const tools = (result as { tools?: unknown } | null)?.tools;
  if (!Array.isArray(tools)) return { error: 'tools/list: "tools" must be an array' };
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  for (const [i, tool] of tools.entries()) {
    if (!isObject(tool) || typeof tool.name !== 'string') return { error: `tools/list: tools[${i}] has no name` };
    const schema = tool.inputSchema;
    if (!isObject(schema)) return { error: `tools/list: tool "${tool.name}": inputSchema must be an object` };
    if (schema.type !== 'object') return { error: `tools/list: tool "${tool.name}": inputSchema.type must be "object"` };
    if (schema.properties !== undefined && !isObject(schema.properties)) {
      return { error: `tools/list: tool "${tool.name}": inputSchema.properties must be an object` };
    }
  }
  return { tools: tools as ToolSpec[] };
}

/**
 * Deletes lockfiles of dead pids (as Claude Code does), then returns those matching `cwd`; in
 * an IDE's terminal only those it trusts there (see the header).
 */
export async function discoverClaudeEditors(
  lockDir: string,
  cwd: string,
  terminal?: IdeTerminal,
): Promise<{ matches: FoundLockfile[]; deleted: string[]; untrusted: FoundLockfile[] }> {
  const { found } = await listLockfiles(lockDir);
  const deleted: string[] = [];
  const matches: FoundLockfile[] = [];
  const untrusted: FoundLockfile[] = [];
  const ancestry = terminal ? new Set(terminal.ancestors ?? (await ownAncestry())) : null;
  for (const entry of found) {
    if (!pidAlive(entry.lock.pid)) {
      await rm(entry.path, { force: true });
      deleted.push(entry.path);
    } else if (terminal?.ssePort !== undefined && entry.port === terminal.ssePort) {
      matches.push(entry);
    } else if (ancestry && !ancestry.has(entry.lock.pid)) {
      untrusted.push(entry);
    } else if (folderContains(entry.lock.workspaceFolders, cwd)) {
      matches.push(entry);
    }
  }
  const own = matches.filter((m) => m.port === terminal?.ssePort);
  return { matches: own.length === 1 ? own : matches, deleted, untrusted };
}

export class FakeClaudeClient {
  readonly selections: unknown[] = [];
  readonly atMentions: unknown[] = [];
  /** Lockfiles of dead pids it deleted while discovering. */
  readonly deletedLockfiles: string[] = [];
  readonly errors: string[] = [];
  initializeResult: unknown = null;
  tools: ToolSpec[] = [];
  toolListError: string | null = null;
  closeCode: number | null = null;
  /** Reconnections made after drops. */
  reconnections = 0;
  private toolUses = 0;
  private closing = false;
  /** Frames of connections before the current one. */
  private readonly earlier: RpcMessage[] = [];

  private constructor(
    readonly options: FakeClaudeOptions,
    readonly port: number,
    readonly lockfile: string | null,
    private current: RpcPeer,
    private readonly authToken: string,
  ) {
    this.watch(current);
  }

  /** The connection now (a new one after a reconnection). */
  get rpc(): RpcPeer {
    return this.current;
  }

  /** Every frame received, over every connection. */
  get received(): RpcMessage[] {
    return [...this.earlier, ...this.rpc.received];
  }

  private watch(rpc: RpcPeer): void {
    void rpc.closed.then(({ code }) => {
      if (rpc !== this.current) return;
      this.closeCode = code;
      this.options.onClose?.(code);
      if (!this.closing) void this.reconnect();
    });
  }

  /** As Claude Code: the same URL and token, a few times, then it gives up until /ide. */
  private async reconnect(): Promise<void> {
    const waits = this.options.reconnectWaitsMs ?? CLAUDE_RECONNECT_WAITS_MS;
    for (const [i, wait] of waits.entries()) {
      // Not holding the process up: a test done with it need not wait for its retries.
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
      if (this.closing) return;
      try {
        const rpc = await FakeClaudeClient.open(this.options, this.port, this.authToken, () => this);
        this.earlier.push(...this.current.received);
        this.current = rpc;
        this.closeCode = null;
        await this.handshake();
        this.reconnections++;
        this.watch(rpc);
        this.options.onReconnected?.(i + 1);
        return;
      } catch {
        // refused, or a 401: the next attempt
      }
    }
    if (waits.length > 0) this.options.onGaveUp?.(`Giving up after reconnection attempt ${waits.length}/${waits.length}`);
  }

  private static async open(options: FakeClaudeOptions, port: number, authToken: string, client: () => FakeClaudeClient | undefined): Promise<RpcPeer> {
    const ws = await openSocket(`ws://127.0.0.1:${port}`, { 'x-claude-code-ide-authorization': authToken }, ['mcp']);
    return new RpcPeer(
      ws,
      {
        frame: (msg) => options.onMessage?.(msg),
        notification: (msg) => client()!.onNotification(msg),
      },
      options.ids ?? 'number',
      'claude',
    );
  }

  static async connect(options: FakeClaudeOptions): Promise<FakeClaudeClient> {
    const deleted: string[] = [];
    let target: { port: number; authToken: string; lockfile: string | null };
    if (options.port !== undefined) {
      if (options.authToken === undefined) throw new Error('fake claude: an explicit port needs an authToken');
      target = { port: options.port, authToken: options.authToken, lockfile: null };
    } else {
      if (options.configDir === undefined) throw new Error('fake claude: give configDir, or port + authToken');
      const lockDir = join(options.configDir, 'ide');
      const deadline = Date.now() + (options.searchMs ?? 0);
      let found = await discoverClaudeEditors(lockDir, options.cwd, options.ideTerminal);
      deleted.push(...found.deleted);
      while (found.matches.length !== 1 && Date.now() < deadline) {
        await sleep(Math.min(1000, deadline - Date.now()));
        found = await discoverClaudeEditors(lockDir, options.cwd, options.ideTerminal);
        deleted.push(...found.deleted);
      }
      if (found.matches.length !== 1) {
        const skipped = found.untrusted.map((u) => `${u.path} (pid ${u.lock.pid})`).join(', ');
        const why = skipped ? `; not trusted in this IDE terminal (pid no ancestor): ${skipped}` : '';
        throw new Error(`fake claude: ${found.matches.length} IDE lockfiles in ${lockDir} match cwd ${options.cwd}; autoconnect needs exactly one${why}`);
      }
      const only = found.matches[0]!;
      target = { port: only.port, authToken: only.lock.authToken, lockfile: only.path };
    }
    let client: FakeClaudeClient | undefined;
    const rpc = await FakeClaudeClient.open(options, target.port, target.authToken, () => client);
    client = new FakeClaudeClient(options, target.port, target.lockfile, rpc, target.authToken);
    client.deletedLockfiles.push(...deleted);
    try {
      await client.handshake();
    } catch (err) {
      rpc.close();
      throw err;
    }
    return client;
  }

  get connected(): boolean {
    return this.rpc.isOpen;
  }

  /** What Claude Code does at every prompt. Returns the tool result. */
  async prompt(): Promise<unknown> {
    return (await this.callTool('closeAllDiffTabs', {})).result;
  }

  /** Proposes `contents` for `path` (resolved against cwd); writes the file when accepted. */
  async openDiff(path: string, contents: string): Promise<DiffOutcome> {
    const abs = resolvePath(this.options.cwd, path);
    const tabName = `✻ [Claude Code] ${basename(abs)} (${randomBytes(3).toString('hex')}) ⧉`;
    let response: RpcResponse;
    try {
      response = await this.callTool('openDiff', { old_file_path: abs, new_file_path: abs, new_file_contents: contents, tab_name: tabName });
    } catch (err) {
      return { outcome: 'error', tabName, path: abs, message: (err as Error).message };
    }
    if (response.error) return { outcome: 'error', tabName, path: abs, message: response.error.message };
    for (let i = 0; i < 2; i++) this.fireAndForget('close_tab', { tab_name: tabName });
    const [answer, saved] = toolTexts(response.result);
    if (answer === 'DIFF_REJECTED') return { outcome: 'rejected', tabName, path: abs };
    if (answer === 'FILE_SAVED' || answer === 'TAB_CLOSED') {
      // Claude Code takes TAB_CLOSED for an accept of what it proposed.
      const written = answer === 'FILE_SAVED' && saved !== undefined ? saved : contents;
      await mkdir(dirname(abs), { recursive: true });
      await writeFile(abs, written);
      return { outcome: 'accepted', tabName, path: abs, written, answer };
    }
    return { outcome: 'error', tabName, path: abs, message: `unexpected openDiff answer ${JSON.stringify(answer)}` };
  }

  /** A model-issued getDiagnostics (with `_meta`); returns the parsed array the editor sent. */
  async getDiagnostics(uri?: string): Promise<unknown> {
    return parseFirstText(await this.callTool('getDiagnostics', uri === undefined ? {} : { uri }, this.meta()), 'getDiagnostics');
  }

  async getOpenEditors(): Promise<unknown> {
    return parseFirstText(await this.callTool('getOpenEditors', {}), 'getOpenEditors');
  }

  async executeCode(code: string): Promise<RpcResponse> {
    return this.callTool('executeCode', { code }, this.meta());
  }

  /** Any tool; the raw response. */
  callTool(name: string, args: Record<string, unknown>, meta?: Record<string, unknown>): Promise<RpcResponse> {
    return this.rpc.call('tools/call', meta ? { name, arguments: args, _meta: meta } : { name, arguments: args });
  }

  close(): Promise<void> {
    this.closing = true;
    this.rpc.close();
    return this.rpc.closed.then(() => undefined);
  }

  kill(): void {
    this.closing = true;
    this.rpc.terminate();
  }

  waitForSelection(opts: WaitOptions = {}): Promise<unknown> {
    const seen = this.selections.length;
    return waitFor(() => this.selections[seen], { message: 'selection_changed at fake claude', ...opts });
  }

  private async handshake(): Promise<void> {
    const init = await this.rpc.call('initialize', {
      protocolVersion: CLAUDE_PROTOCOL_VERSION,
      capabilities: { roots: {} },
      clientInfo: CLAUDE_CLIENT_INFO,
    });
    if (init.error) throw new Error(`fake claude: initialize failed on port ${this.port}: ${init.error.message}`);
    this.initializeResult = init.result;
    this.rpc.notify('notifications/initialized');
    this.rpc.notify('ide_connected', { pid: this.options.pid ?? process.pid });
    await this.listTools();
  }

  private meta(): Record<string, unknown> {
    return { 'claudecode/toolUseId': `toolu_fake_${++this.toolUses}` };
  }

  private fireAndForget(name: string, args: Record<string, unknown>): void {
    if (!this.connected) return;
    this.callTool(name, args).then(
      (r) => r.error && this.errors.push(`${name}: ${r.error.message}`),
      (err: Error) => this.errors.push(`${name}: ${err.message}`),
    );
  }

  private onNotification(msg: RpcMessage & { method: string }): void {
    if (msg.method === 'selection_changed') this.selections.push(msg.params);
    else if (msg.method === 'at_mentioned') this.atMentions.push(msg.params);
    // An MCP client lists the tools again when the server says they changed.
    else if (msg.method === 'notifications/tools/list_changed') void this.listTools().catch((err: Error) => this.errors.push(`tools/list: ${err.message}`));
  }

  /** Lists the IDE's tools (as at connect, and again after a list_changed), validated as Claude Code does. */
  private async listTools(): Promise<void> {
    const list = await this.rpc.call('tools/list', {});
    const checked = list.error ? { error: `tools/list failed: ${list.error.message}` } : validateToolList(list.result);
    this.toolListError = 'error' in checked ? checked.error : null;
    this.tools = 'error' in checked ? [] : checked.tools;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function parseFirstText(response: RpcResponse, tool: string): unknown {
  if (response.error) throw new Error(`fake claude: ${tool} failed: ${response.error.message}`);
  const text = toolTexts(response.result)[0];
  if (text === undefined) throw new Error(`fake claude: ${tool} answered no text item`);
  return JSON.parse(text);
}

// ── CLI ─────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cwd: { type: 'string' },
      'config-dir': { type: 'string' },
      port: { type: 'string' },
      token: { type: 'string' },
      pid: { type: 'string' },
      'search-ms': { type: 'string' },
      quiet: { type: 'boolean' },
    },
  });
  const inTerminal = process.env.TERM_PROGRAM === 'vscode' || Boolean(process.env.FORCE_CODE_TERMINAL);
  const ssePort = Number(process.env.CLAUDE_CODE_SSE_PORT);
  const claude = await FakeClaudeClient.connect({
    cwd: values.cwd ?? process.cwd(),
    configDir: values['config-dir'],
    port: values.port === undefined ? undefined : Number(values.port),
    authToken: values.token,
    pid: values.pid === undefined ? undefined : Number(values.pid),
    ideTerminal: inTerminal ? (Number.isInteger(ssePort) ? { ssePort } : {}) : undefined,
    searchMs: values['search-ms'] === undefined ? undefined : Number(values['search-ms']),
    onMessage: values.quiet ? undefined : (msg) => emit({ event: 'message', msg }),
    onClose: (code) => emit({ event: 'closed', code }),
    onReconnected: (attempt) => emit({ event: 'reconnected', attempt }),
    onGaveUp: (message) => emit({ event: 'gaveUp', message }),
  });
  emit({ ready: true, port: claude.port, pid: process.pid, lockfile: claude.lockfile, toolListError: claude.toolListError });
  serveCommands(
    {
      prompt: () => claude.prompt(),
      openDiff: (c) => claude.openDiff(field(c, 'path'), field(c, 'contents')),
      getDiagnostics: (c) => claude.getDiagnostics(typeof c.uri === 'string' ? c.uri : undefined),
      getOpenEditors: () => claude.getOpenEditors(),
      call: (c) => claude.callTool(field(c, 'name'), (c.arguments ?? {}) as Record<string, unknown>),
    },
    () => claude.close(),
  );
}

if (isMain(import.meta.url)) main().catch(startupFailed);
