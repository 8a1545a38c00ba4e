/**
 * The benchmark's editor: as lean as an MCP server can be, so what is measured is the relay
 * between it and the agent, not the editor. Every answer is serialised ahead of time and only
 * gets its id spliced in; a big request (an openDiff of a whole file) is never decoded: its id
 * is read from the first bytes and the FILE_SAVED prepared for it (`prepare`) is sent back. A
 * real editor decodes the file and re-encodes it, but that costs the same through either relay.
 *
 * Dialect 'pi' answers as pi-ide.nvim (getDiagnostics a map, four tools), 'claude' as a
 * Claude-dialect editor (getDiagnostics an array, the Claude tool names); both accept the token
 * in either header, echo the `mcp` subprotocol and never ping. Not a test double for behaviour
 * (test/peers/fake-editor.ts is): it decides every diff at once and keeps nothing.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rm } from 'node:fs/promises';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { writeLockfile } from '../peers/lockfiles.ts';

export type Dialect = 'pi' | 'claude';

/** Frames from this size on are not decoded (a request holding a file). */
const BIG_FRAME = 64 * 1024;
/** A request's id, method and tool name come first in every frame an agent or Patchbay writes. */
const HEAD_BYTES = 256;
const SELECTION_VARIANTS = 500;

export interface LeanEditorOptions {
  lockDir: string;
  folder: string;
  dialect?: Dialect;
  ideName?: string;
  /** false = listen without a lockfile (the benchmark writes it, to time discovery). */
  writeLockfile?: boolean;
  /** The pid written in the lockfile; default this process. */
  pid?: number;
}

/** One warning, as pi sees before a turn: small, but real JSON to translate. */
export function benchDiagnostics(folder: string): Record<string, unknown[]> {
  return {
    [`file://${folder}/src/main.ts`]: [
      {
        message: "'unused' is declared but its value is never read.",
        severity: 2,
        source: 'ts',
        code: 6133,
        range: { start: { line: 11, character: 6 }, end: { line: 11, character: 12 } },
      },
    ],
  };
}

/** A response serialised once: `{"jsonrpc":"2.0","id":` + id + the rest. */
class Answer {
  private readonly head = Buffer.from('{"jsonrpc":"2.0","id":');
  private readonly tail: Buffer;
  constructor(result: unknown) {
    this.tail = Buffer.from(`,"result":${JSON.stringify(result)}}`);
  }
  /** The whole frame for `id` (id as it appeared in the request: its JSON text). */
  frame(idJson: string): Buffer {
    return Buffer.concat([this.head, Buffer.from(idJson), this.tail]);
  }
}

/** The FILE_SAVED answer to an openDiff of `contents`, byte for byte what the editor sends for `id`. */
export function fileSavedFrame(idJson: string, contents: string): Buffer {
  return new Answer({ content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: contents }] }).frame(idJson);
}

const ID_IN_HEAD = /"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)/;

/** The JSON text of a frame's id, read from its first bytes; null when it is not there. */
export function idInHead(frame: Buffer): string | null {
  return ID_IN_HEAD.exec(frame.toString('latin1', 0, HEAD_BYTES))?.[1] ?? null;
}

function tools(dialect: Dialect): unknown {
  const str = { type: 'string' };
  const spec = (name: string, properties: Record<string, unknown> | [] = {}) => ({ name, description: name, inputSchema: { type: 'object', properties } });
  const openDiff = spec('openDiff', { old_file_path: str, new_file_path: str, new_file_contents: str, tab_name: str });
  return dialect === 'pi'
    ? { tools: [openDiff, spec('close_tab', { tab_name: str }), spec('getDiagnostics', { uri: str }), spec('getOpenEditorTabs', [])] }
    : { tools: [openDiff, spec('close_tab', { tab_name: str }), spec('closeAllDiffTabs'), spec('getDiagnostics', { uri: str }), spec('getOpenEditors')] };
}

export class LeanEditor {
  readonly token = randomBytes(32).toString('hex');
  private readonly clients = new Set<WebSocket>();
  private readonly answers: Map<string, Answer>;
  private readonly selections: Buffer[];
  /** The FILE_SAVED for big openDiffs, without its id (see prepare). */
  private saved: Answer | null = null;
  lockfile: string | null = null;

  private constructor(
    readonly options: LeanEditorOptions,
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    readonly port: number,
  ) {
    const dialect = options.dialect ?? 'pi';
    const diagnostics = benchDiagnostics(options.folder);
    const diagnosticsText = dialect === 'pi' ? JSON.stringify(diagnostics) : JSON.stringify(Object.entries(diagnostics).map(([uri, d]) => ({ uri, diagnostics: d })));
    const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
    this.answers = new Map([
      ['initialize', new Answer({ protocolVersion: '2024-11-05', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 'lean-editor', version: '1' } })],
      ['tools/list', new Answer(tools(dialect))],
      ['getDiagnostics', new Answer(text(diagnosticsText))],
      ['close_tab', new Answer(text('TAB_CLOSED'))],
      ['closeAllDiffTabs', new Answer(text('CLOSED_0_DIFF_TABS'))],
      ['getOpenEditorTabs', new Answer(text('[]'))],
      ['getOpenEditors', new Answer(text('[]'))],
    ]);
    this.selections = Array.from({ length: SELECTION_VARIANTS }, (_, line) => {
      const filePath = `${options.folder}/src/main.ts`;
      const selection = { start: { line, character: 4 }, end: { line, character: 34 }, isEmpty: false };
      const params = { text: 'const answer = compute(input);', filePath, ...(dialect === 'claude' ? { fileUrl: `file://${filePath}` } : {}), selection };
      return Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'selection_changed', params }));
    });
    wss.on('connection', (ws) => {
      this.clients.add(ws);
      ws.on('close', () => this.clients.delete(ws));
      ws.on('error', () => {});
      ws.on('message', (data: RawData) => this.receive(ws, data as Buffer));
    });
  }

  static async start(options: LeanEditorOptions): Promise<LeanEditor> {
    const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 * 1024, perMessageDeflate: false, handleProtocols: (offered) => (offered.has('mcp') ? 'mcp' : false) });
    const http = createServer((_req, res) => res.writeHead(426).end());
    let editor: LeanEditor | undefined;
    http.on('upgrade', (req, socket, head) => {
      const token = req.headers['x-pi-ide-authorization'] ?? req.headers['x-claude-code-ide-authorization'];
      if (!editor || token !== editor.token) {
        socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(0, '127.0.0.1', () => resolve());
    });
    editor = new LeanEditor(options, http, wss, (http.address() as AddressInfo).port);
    if (options.writeLockfile ?? true) {
      editor.lockfile = await writeLockfile(options.lockDir, editor.port, {
        pid: options.pid ?? process.pid,
        workspaceFolders: [options.folder],
        ideName: options.ideName ?? (options.dialect === 'claude' ? 'Visual Studio Code' : 'Neovim'),
        transport: 'ws',
        authToken: editor.token,
      });
    }
    return editor;
  }

  /** Serialises the FILE_SAVED that answers every big openDiff from now on. */
  prepare(contents: string): void {
    this.saved = new Answer({ content: [{ type: 'text', text: 'FILE_SAVED' }, { type: 'text', text: contents }] });
  }

  get clientCount(): number {
    return this.clients.size;
  }

  /** `count` selection_changed to every client, as fast as they can be written; the frames written. */
  burst(count: number): number {
    let frames = 0;
    for (let i = 0; i < count; i++) {
      const frame = this.selections[i % SELECTION_VARIANTS]!;
      for (const ws of this.clients) {
        ws.send(frame, { binary: false });
        frames++;
      }
    }
    return frames;
  }

  private receive(ws: WebSocket, data: Buffer): void {
    if (data.length >= BIG_FRAME) return this.receiveBig(ws, data);
    const msg = JSON.parse(data.toString()) as { id?: unknown; method?: string; params?: { name?: string } };
    if (msg.id === undefined || msg.id === null || typeof msg.method !== 'string') return; // notifications, answers
    const idJson = JSON.stringify(msg.id);
    const key = msg.method === 'tools/call' ? (msg.params?.name ?? '') : msg.method;
    const answer = this.answers.get(key);
    if (answer) ws.send(answer.frame(idJson), { binary: false });
    else ws.send(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `Method not found: ${key}` } }));
  }

  /** An openDiff of a whole file: answered FILE_SAVED, as prepared, without reading the file. */
  private receiveBig(ws: WebSocket, data: Buffer): void {
    const id = idInHead(data);
    if (this.saved && id !== null && data.toString('latin1', 0, HEAD_BYTES).includes('"name":"openDiff"')) {
      ws.send(this.saved.frame(id), { binary: false });
      return;
    }
    // The benchmark then fails on this answer, saying what came.
    const what = `lean editor: a big frame that is not a prepared openDiff: ${data.toString('utf8', 0, 200)}`;
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: id === null ? null : JSON.parse(id), error: { code: -32603, message: what } }));
  }

  async stop(): Promise<void> {
    for (const ws of this.clients) ws.terminate();
    this.wss.close();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
    if (this.lockfile) await rm(this.lockfile, { force: true });
  }
}
