/**
 * FakePiClient: an agent session as the pi-ide extension behaves (DESIGN §1), quirks included.
 *
 * Discovery: lists `*.lock` in its lock dir and keeps those whose workspaceFolders contain its
 * cwd (prefix match, no realpath), whose pid is alive and whose port accepts TCP; connects
 * only when exactly one matches (or to a given lockfile, or to an explicit port + token).
 * Sends `x-pi-ide-authorization`, no subprotocol, and ONLY `initialize` (clientInfo
 * `{name:'pi-ide',version:'0.1.0'}`): no tools/list, no `notifications/initialized`.
 * `turn()` = the `getDiagnostics {}` pi sends before every model call, awaited with no timeout;
 * `diagnosticsForModel()` reads its answer as pi-ide does: only `content[0].text`, parsed as a
 * map `{uri:[{severity,message,range}]}`, only "Error" and "Warning" kept (by name), at most 50,
 * as `<uri>:<line+1>:<character+1> [<severity>] <message>`; an error answer, no text or non-JSON
 * is no diagnostics, while a value that is not a list, or a kept diagnostic without a range,
 * throws (pi-ide's context handler fails). `editor` is what pi-ide keeps of `selection_changed`
 * (a notification without `filePath` or `selection` is ignored): the file, the cursor line and
 * the selected lines, null when the selection is empty.
 * `write()` / `edit()` = the tools: `openDiff` with tab `pi-write:<n>` / `pi-edit:<n>` and the
 * whole proposed file, then a fire-and-forget `close_tab`. With pi 1.6 (`piVersion`, the default)
 * a call another tool made (`{calledBy}`: a codemode script's) has the id `<caller>/<n>`, so its
 * tab is `pi-write:<caller>/<n>`; pi 0.87.1 makes no such calls. FILE_SAVED → writes `content[1].text`
 * (missing → an empty file, faithfully); DIFF_REJECTED → 'rejected'; an openDiff error or a
 * dropped connection → the file is written unreviewed (the real bug) and reported so.
 * Answers the editor's `getSuggestions` with `{suggestions: string[]}` (plain strings: the real
 * pi-ide.nvim calls string methods on each item and errors on objects) and its
 * `listSuggestionModels`; a `request_cancelled {id}` aborts that request, which then gets no
 * answer. Never reconnects after a drop by itself: only its `/ide` (`ide()`) connects again,
 * discovering afresh, from the same process.
 *
 * CLI (for kill -9 and multi-process tests):
 *   node --import tsx test/peers/fake-pi.ts --cwd C (--lock-dir D | --lockfile F | --port N --token T)
 *     [--suggestion TEXT…] [--suggestion-delay-ms N] [--pi-version 1.6.0|0.87.1] [--quiet]
 * stdout, one JSON object per line:
 *   {"ready":true,"port":N,"pid":N,"lockfile":"…"|null}  (port/lockfile = what it connected to)
 *   {"event":"message","msg":{…}}        (every frame received; not with --quiet)
 *   {"event":"closed","code":N}          (the connection dropped; it will not reconnect)
 *   {"event":"result"|"error","cmd":"…","tag":…,…}
 * stdin, one JSON command per line (optional "tag" is echoed back):
 *   {"cmd":"turn"}                                    → result: the getDiagnostics result
 *   {"cmd":"write","path":"…","contents":"…","calledBy"?:"<tool call id>"}  → result: WriteOutcome
 *   {"cmd":"edit","path":"…","oldText":"…","newText":"…","calledBy"?:"…"}
 *   {"cmd":"ide"}                                     → pi-ide's /ide: discovers and connects again
 *   {"cmd":"stop"}                                    → closes the connection, exits
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve as resolvePath } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { emit, field, isMain, serveCommands, startupFailed } from './cli.ts';
import { folderContains, listLockfiles, pidAlive, portAccepts, type FoundLockfile } from './lockfiles.ts';
import { NO_REPLY, openSocket, RpcFailure, RpcPeer, toolTexts, type IdStyle, type RpcId, type RpcMessage, type RpcRequestMessage } from './rpc-peer.ts';
import { waitFor, type WaitOptions } from './wait.ts';

export const PI_CLIENT_INFO = { name: 'pi-ide', version: '0.1.0' } as const;

/** One completion, as the real extension sends it: the inserted text itself. */
export type Suggestion = string;

export interface SuggestionModel {
  provider: string;
  id: string;
  name: string;
  model: string;
}

export interface SuggestionModels {
  cliOverride?: string;
  currentModel?: string;
  models: SuggestionModel[];
}

export interface SelectionChanged {
  text: string;
  filePath: string;
  /** Sent by Claude-dialect editors only; pi-ide.nvim omits it. */
  fileUrl?: string;
  selection: { start: { line: number; character: number }; end: { line: number; character: number }; isEmpty: boolean };
}

/** What pi-ide keeps of the editor's latest usable `selection_changed` (zero-based lines). */
export interface EditorState {
  filePath: string;
  cursorLine: number;
  selection: { startLine: number; endLine: number; text: string } | null;
}

/** pi-ide shows the model at most this many diagnostics. */
const MAX_DIAGNOSTICS = 50;

export type WriteOutcome =
  /** `said`: text items after the two the extension reads (it ignores them; they are what it was sent). */
  | { outcome: 'saved'; tabName: string; path: string; written: string; said: string[] }
  | { outcome: 'rejected'; tabName: string; path: string; answer: string; said: string[] }
  | { outcome: 'unreviewed'; tabName: string; path: string; written: string; reason: string };

/** Who made a tool call: the model (nothing given), or another tool call (pi 1.6's codemode, `ctx.executeTool`). */
export interface ToolCallOrigin {
  calledBy?: string;
}

export interface FakePiOptions {
  /** The session's working directory; relative tool paths resolve against it. */
  cwd: string;
  /** Where to discover editors (pi's `$PI_IDE_LOCK_DIR`). */
  lockDir?: string;
  /** Connect to this lockfile instead of discovering. */
  lockfile?: string;
  /** Connect to this port with this token (e.g. Patchbay's door) instead of discovering. */
  port?: number;
  authToken?: string;
  /** Answer to getSuggestions; a function sees the request params. Default `['fake suggestion']`. */
  suggestions?: Suggestion[] | ((params: unknown) => Suggestion[]);
  /** getSuggestions answers after this delay (so a test can cancel it). */
  suggestionDelayMs?: number;
  models?: SuggestionModels;
  ids?: IdStyle;
  /** The pi it runs in: 1.6.0 (default) or 0.87.1, which has no nested tool calls. */
  piVersion?: '1.6.0' | '0.87.1';
  onMessage?: (msg: RpcMessage) => void;
  onClose?: (code: number) => void;
}

export const DEFAULT_MODELS: SuggestionModels = {
  currentModel: 'fake/fast',
  models: [
    { provider: 'fake', id: 'fast', name: 'Fake Fast', model: 'fake/fast' },
    { provider: 'fake', id: 'smart', name: 'Fake Smart', model: 'fake/smart' },
  ],
};

/** The lockfiles pi-ide would consider for `cwd`, in file-name order. */
export async function discoverPiEditors(lockDir: string, cwd: string): Promise<FoundLockfile[]> {
  const { found } = await listLockfiles(lockDir);
  const matches: FoundLockfile[] = [];
  for (const entry of found) {
    if (folderContains(entry.lock.workspaceFolders, cwd) && pidAlive(entry.lock.pid) && (await portAccepts(entry.port))) matches.push(entry);
  }
  return matches;
}

export class FakePiClient {
  readonly selections: SelectionChanged[] = [];
  editor: EditorState | null = null;
  readonly suggestionRequests: { id: RpcId; params: unknown }[] = [];
  readonly modelRequests: { id: RpcId; params: unknown }[] = [];
  readonly cancelled: RpcId[] = [];
  /** Failures of fire-and-forget calls (close_tab), so none goes unseen. */
  readonly errors: string[] = [];
  initializeResult: unknown = null;
  closeCode: number | null = null;
  private readonly inFlight = new Map<RpcId, AbortController>();
  private toolCalls = 0;
  /** Per calling tool call: how many calls it made (pi numbers them `<caller>/1`, `/2`…). */
  private readonly nested = new Map<string, number>();

  /** Frames of connections before the current one (after an /ide). */
  private readonly earlier: RpcMessage[] = [];

  private constructor(
    readonly options: FakePiOptions,
    public port: number,
    public lockfile: string | null,
    private current: RpcPeer,
  ) {
    this.watch(current);
  }

  get rpc(): RpcPeer {
    return this.current;
  }

  /** Every frame received, over every connection. */
  get received(): RpcMessage[] {
    return [...this.earlier, ...this.current.received];
  }

  private watch(rpc: RpcPeer): void {
    void rpc.closed.then(({ code }) => {
      if (rpc !== this.current) return;
      this.closeCode = code;
      for (const ctl of this.inFlight.values()) ctl.abort();
      this.options.onClose?.(code);
    });
  }

  /** Finds the editor (or takes the given one), connects, and awaits the `initialize` answer. */
  static async connect(options: FakePiOptions): Promise<FakePiClient> {
    let client: FakePiClient | undefined;
    const { rpc, target } = await FakePiClient.open(options, () => client!);
    client = new FakePiClient(options, target.port, target.lockfile, rpc);
    await client.initialize();
    return client;
  }

  /** pi-ide's `/ide`: discovers again and connects from this same process (the old connection, if any, goes). */
  async ide(): Promise<{ port: number }> {
    const { rpc, target } = await FakePiClient.open(this.options, () => this);
    const old = this.current;
    this.earlier.push(...old.received);
    this.current = rpc;
    this.port = target.port;
    this.lockfile = target.lockfile;
    this.closeCode = null;
    old.close();
    this.watch(rpc);
    await this.initialize();
    return { port: target.port };
  }

  private static async open(options: FakePiOptions, client: () => FakePiClient): Promise<{ rpc: RpcPeer; target: { port: number; authToken: string; lockfile: string | null } }> {
    const target = await FakePiClient.target(options);
    const ws = await openSocket(`ws://127.0.0.1:${target.port}`, { 'x-pi-ide-authorization': target.authToken });
    const rpc = new RpcPeer(
      ws,
      {
        frame: (msg) => options.onMessage?.(msg),
        request: (msg) => client().onRequest(msg),
        notification: (msg) => client().onNotification(msg),
      },
      options.ids ?? 'number',
      'pi',
    );
    return { rpc, target };
  }

  private async initialize(): Promise<void> {
    const init = await this.current.call('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: PI_CLIENT_INFO });
    if (init.error) {
      this.current.close();
      throw new Error(`fake pi: initialize failed on port ${this.port}: ${init.error.message}`);
    }
    this.initializeResult = init.result;
  }

  private static async target(o: FakePiOptions): Promise<{ port: number; authToken: string; lockfile: string | null }> {
    if (o.port !== undefined) {
      if (o.authToken === undefined) throw new Error('fake pi: an explicit port needs an authToken');
      return { port: o.port, authToken: o.authToken, lockfile: null };
    }
    if (o.lockfile !== undefined) {
      const dir = dirname(o.lockfile);
      const { found, invalid } = await listLockfiles(dir);
      const entry = found.find((f) => f.path === o.lockfile);
      if (!entry) throw new Error(`fake pi: lockfile ${o.lockfile} unreadable: ${invalid.find((i) => i.path === o.lockfile)?.reason ?? 'not found'}`);
      return { port: entry.port, authToken: entry.lock.authToken, lockfile: entry.path };
    }
    if (o.lockDir === undefined) throw new Error('fake pi: give lockDir, lockfile, or port + authToken');
    const matches = await discoverPiEditors(o.lockDir, o.cwd);
    if (matches.length !== 1) {
      const list = matches.map((m) => `${m.path} (${m.lock.ideName})`).join(', ');
      throw new Error(`fake pi: ${matches.length} IDE lockfiles in ${o.lockDir} match cwd ${o.cwd}; autoconnect needs exactly one${list ? `: ${list}` : ''}`);
    }
    const only = matches[0]!;
    return { port: only.port, authToken: only.lock.authToken, lockfile: only.path };
  }

  get connected(): boolean {
    return this.rpc.isOpen;
  }

  /** Before every model call: `getDiagnostics {}`, awaited with no timeout. Returns the tool result. */
  async turn(): Promise<unknown> {
    const response = await this.rpc.call('tools/call', { name: 'getDiagnostics', arguments: {} });
    if (response.error) throw new Error(`fake pi: getDiagnostics failed: ${response.error.message}`);
    return response.result;
  }

  /** A turn's diagnostics as pi-ide puts them before the model (see the header). */
  async diagnosticsForModel(): Promise<string[]> {
    const response = await this.rpc.call('tools/call', { name: 'getDiagnostics', arguments: {} });
    if (response.error) return [];
    const text = (response.result as { content?: { text?: unknown }[] } | undefined)?.content?.[0]?.text;
    if (typeof text !== 'string' || text === '') return [];
    let byUri: Record<string, unknown>;
    try {
      byUri = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return [];
    }
    const lines: string[] = [];
    if (byUri === null) throw new Error('fake pi: diagnostics are null');
    for (const [uri, items] of Object.entries(byUri)) {
      if (!Array.isArray(items) && typeof items !== 'string') throw new Error(`fake pi: diagnostics for ${uri} are not iterable`);
      for (const d of items as { severity?: unknown; message?: unknown; range?: { start: { line: number; character: number } } }[]) {
        if (d.severity !== 'Error' && d.severity !== 'Warning') continue;
        if (!d.range) throw new Error(`fake pi: a diagnostic of ${uri} has no range`);
        lines.push(`${uri}:${d.range.start.line + 1}:${d.range.start.character + 1} [${d.severity}] ${String(d.message)}`);
        if (lines.length >= MAX_DIAGNOSTICS) return lines;
      }
    }
    return lines;
  }

  /** The write tool: `path` is resolved against cwd; the whole file goes to openDiff. */
  write(path: string, contents: string, call: ToolCallOrigin = {}): Promise<WriteOutcome> {
    return this.proposeFile('pi-write', resolvePath(this.options.cwd, path), contents, call);
  }

  /** The edit tool: replaces the first `oldText` (which must occur) and proposes the whole file. */
  async edit(path: string, oldText: string, newText: string, call: ToolCallOrigin = {}): Promise<WriteOutcome> {
    const abs = resolvePath(this.options.cwd, path);
    const current = await readFile(abs, 'utf8');
    const at = current.indexOf(oldText);
    if (at < 0) throw new Error(`fake pi edit: oldText not found in ${abs}`);
    return this.proposeFile('pi-edit', abs, current.slice(0, at) + newText + current.slice(at + oldText.length), call);
  }

  /** The tool call's id, as pi gives it: its own number, or `<caller>/<n>` for a call a tool made. */
  private toolCallId(call: ToolCallOrigin): string {
    if (call.calledBy === undefined) return String(++this.toolCalls);
    if (this.options.piVersion === '0.87.1') throw new Error('fake pi: pi 0.87.1 has no nested tool calls (they came with 0.99)');
    const n = (this.nested.get(call.calledBy) ?? 0) + 1;
    this.nested.set(call.calledBy, n);
    return `${call.calledBy}/${n}`;
  }

  /** Closes the connection (with a close frame). Safe to call twice. */
  close(): Promise<void> {
    this.rpc.close();
    return this.rpc.closed.then(() => undefined);
  }

  /** Drops the connection without a close frame, as if pi were killed. */
  kill(): void {
    this.rpc.terminate();
  }

  waitForSelection(opts: WaitOptions = {}): Promise<SelectionChanged> {
    const seen = this.selections.length;
    return waitFor(() => this.selections[seen], { message: 'selection_changed at fake pi', ...opts });
  }

  private async proposeFile(tool: 'pi-write' | 'pi-edit', path: string, contents: string, call: ToolCallOrigin): Promise<WriteOutcome> {
    const tabName = `${tool}:${this.toolCallId(call)}`;
    const unreviewed = async (reason: string): Promise<WriteOutcome> => {
      await writeFileMkdir(path, contents);
      return { outcome: 'unreviewed', tabName, path, written: contents, reason };
    };
    if (!this.connected) return unreviewed('not connected to an IDE');
    let response;
    try {
      response = await this.rpc.call('tools/call', {
        name: 'openDiff',
        arguments: { old_file_path: path, new_file_path: path, new_file_contents: contents, tab_name: tabName },
      });
    } catch (err) {
      return unreviewed((err as Error).message);
    }
    if (response.error) return unreviewed(`openDiff failed: ${response.error.message}`);
    this.fireAndForget('tools/call', { name: 'close_tab', arguments: { tab_name: tabName } });
    const [answer = '', saved, ...said] = toolTexts(response.result);
    if (answer === 'FILE_SAVED') {
      const written = saved ?? ''; // the real extension writes an empty file when the contents are missing
      await writeFileMkdir(path, written);
      return { outcome: 'saved', tabName, path, written, said };
    }
    return { outcome: 'rejected', tabName, path, answer, said };
  }

  private fireAndForget(method: string, params: unknown): void {
    if (!this.connected) return;
    this.rpc.call(method, params).then(
      (r) => r.error && this.errors.push(`${method}: ${r.error.message}`),
      (err: Error) => this.errors.push(`${method}: ${err.message}`),
    );
  }

  private async onRequest(msg: RpcRequestMessage): Promise<unknown> {
    if (msg.method === 'listSuggestionModels') {
      this.modelRequests.push({ id: msg.id, params: msg.params });
      return this.options.models ?? DEFAULT_MODELS;
    }
    if (msg.method !== 'getSuggestions') throw new RpcFailure(-32601, `Method not found: ${msg.method}`);
    this.suggestionRequests.push({ id: msg.id, params: msg.params });
    const ctl = new AbortController();
    this.inFlight.set(msg.id, ctl);
    try {
      const delay = this.options.suggestionDelayMs ?? 0;
      if (delay > 0) await sleep(delay, undefined, { signal: ctl.signal });
      if (ctl.signal.aborted) return NO_REPLY;
      const s = this.options.suggestions ?? ['fake suggestion'];
      return { suggestions: typeof s === 'function' ? s(msg.params) : s };
    } catch (err) {
      if (ctl.signal.aborted) return NO_REPLY;
      throw err;
    } finally {
      this.inFlight.delete(msg.id);
    }
  }

  private onNotification(msg: RpcMessage & { method: string }): void {
    if (msg.method === 'selection_changed') {
      const sel = msg.params as Partial<SelectionChanged> | undefined;
      this.selections.push(sel as SelectionChanged);
      if (!sel?.filePath || !sel.selection) return;
      const { start, end, isEmpty } = sel.selection;
      this.editor = {
        filePath: sel.filePath,
        cursorLine: start.line,
        selection: isEmpty ? null : { startLine: start.line, endLine: end.line, text: sel.text ?? '' },
      };
    }
    else if (msg.method === 'request_cancelled') {
      const id = (msg.params as { id?: RpcId } | undefined)?.id;
      if (id === undefined) return;
      this.cancelled.push(id);
      this.inFlight.get(id)?.abort();
    }
  }
}

async function writeFileMkdir(path: string, contents: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, contents);
}

// ── CLI ─────────────────────────────────────────────────────────────────────────────────

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      cwd: { type: 'string' },
      'lock-dir': { type: 'string' },
      lockfile: { type: 'string' },
      port: { type: 'string' },
      token: { type: 'string' },
      suggestion: { type: 'string', multiple: true },
      'suggestion-delay-ms': { type: 'string' },
      'pi-version': { type: 'string' },
      quiet: { type: 'boolean' },
    },
  });
  const cwd = values.cwd ?? process.cwd();
  const piVersion = values['pi-version'] ?? '1.6.0';
  if (piVersion !== '1.6.0' && piVersion !== '0.87.1') throw new Error(`fake pi: --pi-version must be 1.6.0 or 0.87.1, not ${piVersion}`);
  const pi = await FakePiClient.connect({
    cwd,
    lockDir: values['lock-dir'],
    lockfile: values.lockfile,
    port: values.port === undefined ? undefined : Number(values.port),
    authToken: values.token,
    suggestions: values.suggestion,
    suggestionDelayMs: values['suggestion-delay-ms'] === undefined ? undefined : Number(values['suggestion-delay-ms']),
    piVersion,
    onMessage: values.quiet ? undefined : (msg) => emit({ event: 'message', msg }),
    onClose: (code) => emit({ event: 'closed', code }),
  });
  emit({ ready: true, port: pi.port, pid: process.pid, lockfile: pi.lockfile });
  serveCommands(
    {
      turn: () => pi.turn(),
      write: (c) => pi.write(field(c, 'path'), field(c, 'contents'), calledBy(c)),
      edit: (c) => pi.edit(field(c, 'path'), field(c, 'oldText'), field(c, 'newText'), calledBy(c)),
      ide: () => pi.ide(),
    },
    () => pi.close(),
  );
}

/** A command's `calledBy`, when it names the tool call that made this one. */
function calledBy(c: Record<string, unknown>): ToolCallOrigin {
  return typeof c.calledBy === 'string' ? { calledBy: c.calledBy } : {};
}

if (isMain(import.meta.url)) main().catch(startupFailed);
