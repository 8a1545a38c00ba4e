// A stand-in for `pi --mode rpc` for fast tests; the real pi runs in the hosted-pi tests. It
// answers pi's commands with pi's shapes (dist/modes/rpc/rpc-types.d.ts) and the quirks seen
// from the real one: responses carry the command's `id`, commands run concurrently, a prompt is
// answered before its events, user content is a list of blocks, get_messages starts with pi's
// system message, the session file (pi's JSONL format) is written only once a reply exists,
// `--session <missing file>` and `switch_session` to one start a new session there,
// `export_html` without a path answers a path relative to its folder, `steer` and `follow_up`
// queue even while idle, a prompt without `streamingBehavior` while a turn runs is refused with
// pi's words, `compact` of a tiny session fails after its events, and an aborted `bash` has no
// exit code.
//
// `--pi-version` picks which pi it is (default 1.6.0, the current one):
//   1.6.0   `prompt`, `steer` and `follow_up` answer `{disposition}`: `started` (a run began),
//           `queued` (into the running turn, or steer/follow_up), `handled` (an extension
//           command ran; no run, no agent_settled); get_commands lists the built-in `llama` and
//           `mcp` (sourceInfo `builtin:…`); SIGTERM/SIGHUP or EOF start an orderly shutdown
//           that one more signal does not interrupt: only a second one exits at once.
//   0.87.1  those responses carry no data; get_commands lists `llama` (`<inline:llama.cpp>`);
//           a signal during the shutdown EOF started exits at once.
//
//   node --import tsx fake-pi-rpc.ts --mode rpc [--pi-version V] [--with-ide] [--stubborn]
//     [--shutdown-ms N] [pi's own flags]
//
// pi's flags it reads: --session <file>, --session-dir <dir>, --no-session, --name <name>,
// --model <provider/id>. The session dir defaults to $PI_CODING_AGENT_DIR/sessions/--<cwd>--/;
// without PI_CODING_AGENT_DIR (or with --no-session) nothing is written, so no test ever
// writes into a person's ~/.pi. A turn's reply is "You said: <prompt>".
//
// Test hooks, besides pi's commands (JSONL on stdin, answered like pi answers):
//   {type:"wait", ms}          answers after `ms` (so answers can come out of order)
//   {type:"emit", records:[…]} writes each record to stdout as is, then answers
//   {type:"echo", …}           answers {echo: <command>}
//   {type:"garbage"}           writes a line that is not JSON, then answers
//   {type:"crash", code}       writes two stderr lines and exits with `code`, unanswered
//   {type:"silent"}            never answers
//   {type:"fail"}              answers success:false
//   {type:"tool"}              starts a long-running child (as pi's bash tool would), answers {pid}
//   prompt "emit <json array>" writes those records instead of running a turn (`started` when
//                              they hold an agent_start, else `handled`)
//   prompt "hold <text>"       starts a turn that streams <text> and keeps working until `abort`
//   prompt "/ide" (--with-ide) pi-ide's command: asks "Connect to IDE" over the door at 4242/40123
// --stubborn: ignores abort, EOF on stdin and SIGTERM (only SIGKILL ends it).
// --shutdown-ms: how long its shutdown's cleanup takes (pi 1.6 waits, e.g., for a token refresh).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { JsonlDecoder, encodeJsonl } from '../../src/rpc/jsonl.ts';

type Obj = Record<string, unknown>;

const argv = process.argv.slice(2);
const flag = (name: string): boolean => argv.includes(name);
const value = (...names: string[]): string | undefined => {
  for (const name of names) {
    const at = argv.indexOf(name);
    if (at !== -1) return argv[at + 1];
  }
  return undefined;
};

const stubborn = flag('--stubborn');
const withIde = flag('--with-ide');
const piVersion = value('--pi-version') ?? '1.6.0';
if (piVersion !== '1.6.0' && piVersion !== '0.87.1') throw new Error(`fake pi: --pi-version must be 1.6.0 or 0.87.1, not ${piVersion}`);
/** pi 0.99 and later: dispositions, the MCP built-in, an orderly shutdown a single signal does not cut. */
const since099 = piVersion === '1.6.0';
const shutdownMs = Number(value('--shutdown-ms') ?? 0);
const cwd = process.cwd();
const out = (record: unknown): void => void process.stdout.write(encodeJsonl(record));

// Keeps the process alive after stdin ends, as a stuck pi would.
const keepAlive = stubborn ? setInterval(() => {}, 1000) : null;

let shuttingDown = false;
let signals = 0;
/** pi's shutdown: its runtime disposed (`shutdownMs`), then exit. Runs once. */
function shutdown(code: number): void {
  if (shuttingDown) return;
  shuttingDown = true;
  setTimeout(() => process.exit(code), shutdownMs);
}
for (const [signal, code] of [['SIGTERM', 143], ['SIGHUP', 129]] as const) {
  process.on(signal, () => {
    if (stubborn) return void process.stderr.write(`fake pi: ignoring ${signal}\n`);
    signals++;
    if (!shuttingDown) return shutdown(code);
    // 0.87.1 exits on any signal once shutting down; 1.6 only on a second one.
    if (!since099 || signals > 1) process.exit(code);
  });
}

// ── Models and settings ──────────────────────────────────────────────────────

interface Model extends Obj {
  provider: string;
  id: string;
  name: string;
  reasoning: boolean;
  contextWindow: number;
}

const model = (provider: string, id: string, name: string, reasoning: boolean): Model => ({
  id,
  name,
  api: 'openai-completions',
  provider,
  baseUrl: 'http://127.0.0.1:9/v1',
  reasoning,
  input: ['text', 'image'],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 128000,
  maxTokens: 16384,
});
const MODELS: Model[] = [model('fake', 'fake-1', 'Fake One', false), model('fake', 'fake-2', 'Fake Two', true)];
const REASONING_LEVELS = ['off', 'minimal', 'low', 'medium', 'high'];

let currentModel: Model = MODELS[0]!;
const chosen = value('--model');
if (chosen !== undefined) {
  const [provider = '', ...rest] = chosen.split('/');
  currentModel = MODELS.find((m) => m.provider === provider && m.id === rest.join('/')) ?? model(provider, rest.join('/'), rest.join('/'), false);
  if (!MODELS.includes(currentModel)) MODELS.push(currentModel);
}
let thinkingLevel = 'off';
let steeringMode = 'one-at-a-time';
let followUpMode = 'one-at-a-time';
let autoCompaction = true;
const queue = { steering: [] as string[], followUp: [] as string[] };

const thinkingLevels = (): string[] => (currentModel.reasoning ? REASONING_LEVELS : ['off']);

// ── The session: pi's tree of entries, one branch followed ──────────────────

interface Entry extends Obj {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
}

interface Session {
  id: string;
  file: string | undefined;
  header: Obj;
  entries: Entry[];
  leafId: string | null;
  /** Whether the file holds every entry so far (pi writes nothing until a reply exists). */
  flushed: boolean;
}

const agentDir = process.env.PI_CODING_AGENT_DIR;
const persist = !flag('--no-session') && agentDir !== undefined;
const sessionDir =
  value('--session-dir') ?? process.env.PI_CODING_AGENT_SESSION_DIR ?? (agentDir ? join(agentDir, 'sessions', `--${cwd.replace(/^[/\\]/, '').replace(/[/\\:]/g, '-')}--`) : undefined);

const entryId = (): string => randomBytes(4).toString('hex');
const stamp = (): string => new Date().toISOString();

function newSessionFile(id: string): string | undefined {
  if (!persist || sessionDir === undefined) return undefined;
  return join(sessionDir, `${stamp().replace(/[:.]/g, '-')}_${id}.jsonl`);
}

function freshSession(file?: string, parentSession?: string): Session {
  const id = randomUUID();
  const header: Obj = { type: 'session', version: 3, id, timestamp: stamp(), cwd, ...(parentSession ? { parentSession } : {}) };
  const session: Session = { id, file: file ?? newSessionFile(id), header, entries: [], leafId: null, flushed: false };
  append(session, { type: 'model_change', provider: currentModel.provider, modelId: currentModel.id });
  append(session, { type: 'thinking_level_change', thinkingLevel });
  return session;
}

function openSession(file: string): Session {
  if (!existsSync(file)) return freshSession(file);
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
  const [header, ...entries] = lines.map((l) => JSON.parse(l) as Entry);
  return { id: String(header!.id), file, header: header!, entries, leafId: entries.at(-1)?.id ?? null, flushed: true };
}

function append(session: Session, fields: Obj): Entry {
  const entry = { ...fields, id: entryId(), parentId: session.leafId, timestamp: stamp() } as Entry;
  session.entries.push(entry);
  session.leafId = entry.id;
  if (session.file === undefined) return entry;
  if (session.flushed) appendFileSync(session.file, encodeJsonl(entry));
  else if (session.entries.some((e) => e.type === 'message' && (e.message as Obj).role === 'assistant')) flush(session);
  return entry;
}

function flush(session: Session): void {
  if (session.file === undefined) return;
  mkdirSync(dirname(session.file), { recursive: true });
  writeFileSync(session.file, [session.header, ...session.entries].map(encodeJsonl).join(''));
  session.flushed = true;
}

/** The entries from the root to the leaf. */
function branch(session: Session, leafId = session.leafId): Entry[] {
  const byId = new Map(session.entries.map((e) => [e.id, e]));
  const path: Entry[] = [];
  for (let at = leafId === null ? undefined : byId.get(leafId); at; at = at.parentId === null ? undefined : byId.get(at.parentId)) path.unshift(at);
  return path;
}

/** The model's context: a compaction's summary stands for what came before the entry it kept from. */
function messages(session: Session): Obj[] {
  const path = branch(session);
  let list: Obj[] = [];
  path.forEach((entry, at) => {
    if (entry.type === 'message') list.push(entry.message as Obj);
    if (entry.type !== 'compaction') return;
    const from = path.findIndex((e) => e.id === entry.firstKeptEntryId);
    const kept = path.slice(from === -1 ? at : from, at).filter((e) => e.type === 'message' && (e.message as Obj).role !== 'system');
    list = [{ role: 'compactionSummary', summary: entry.summary, tokensBefore: entry.tokensBefore, timestamp: Date.parse(entry.timestamp) }, ...kept.map((e) => e.message as Obj)];
  });
  return list;
}

const textOf = (message: Obj): string => {
  const content = message.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.filter((b: Obj) => b.type === 'text').map((b: Obj) => String(b.text)).join('\n') : '';
};

let session: Session = (() => {
  const file = value('--session');
  const opened = file === undefined ? freshSession() : openSession(isAbsolute(file) ? file : resolve(cwd, file));
  const name = value('--name', '-n');
  if (name !== undefined) append(opened, { type: 'session_info', name });
  return opened;
})();

const sessionName = (): string | undefined => {
  let name: string | undefined;
  for (const e of session.entries) if (e.type === 'session_info') name = typeof e.name === 'string' && e.name.trim() !== '' ? e.name : undefined;
  return name;
};

// ── Turns ────────────────────────────────────────────────────────────────────

const ZERO_USAGE = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const USAGE = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

/** The turn that is working (a `hold` prompt), if any. */
let running: { text: string; started: number; user: Obj } | null = null;

function userMessage(text: string, images: unknown): Obj {
  const blocks: Obj[] = [{ type: 'text', text }];
  if (Array.isArray(images)) blocks.push(...(images as Obj[]));
  return { role: 'user', content: blocks, timestamp: Date.now() };
}

function assistantMessage(text: string, stopReason: string, extra: Obj = {}): Obj {
  return { role: 'assistant', content: [{ type: 'text', text }], api: 'openai-completions', provider: currentModel.provider, model: currentModel.id, usage: stopReason === 'aborted' ? ZERO_USAGE : USAGE, stopReason, timestamp: Date.now(), ...extra };
}

/** agent_start … the user's message … the reply streaming (it ends later when `hold`). */
function beginTurn(user: Obj, reply: string): void {
  out({ type: 'agent_start' });
  out({ type: 'turn_start' });
  // A session's first request declares pi's prompt and tools as a system message.
  if (!branch(session).some((e) => e.type === 'message' && (e.message as Obj).role === 'system')) {
    const system = { role: 'system', content: '', sections: { preamble: 'You are a fake coding assistant.' }, timestamp: Date.now() };
    out({ type: 'message_start', message: system });
    out({ type: 'message_end', message: system });
    append(session, { type: 'message', message: system });
  }
  for (const queued of [...queue.steering, ...queue.followUp]) {
    const message = userMessage(queued, undefined);
    out({ type: 'message_start', message });
    out({ type: 'message_end', message });
    append(session, { type: 'message', message });
  }
  if (queue.steering.length + queue.followUp.length > 0) {
    queue.steering = [];
    queue.followUp = [];
    out({ type: 'queue_update', steering: [], followUp: [] });
  }
  out({ type: 'message_start', message: user });
  out({ type: 'message_end', message: user });
  append(session, { type: 'message', message: user });
  out({ type: 'message_start', message: { ...assistantMessage('', 'pending'), content: [], usage: ZERO_USAGE } });
  out({ type: 'message_update', usage: ZERO_USAGE, assistantMessageEvent: { type: 'text_start', contentIndex: 0 } });
  for (const part of reply.match(/.{1,4}/gsu) ?? []) out({ type: 'message_update', usage: USAGE, assistantMessageEvent: { type: 'text_delta', contentIndex: 0, delta: part } });
}

function endTurn(reply: string, stopReason: 'stop' | 'aborted', user: Obj): void {
  out({ type: 'message_update', usage: USAGE, assistantMessageEvent: { type: 'text_end', contentIndex: 0, content: reply } });
  const message = assistantMessage(reply, stopReason, stopReason === 'aborted' ? { errorMessage: 'Request was aborted' } : {});
  out({ type: 'message_end', message });
  append(session, { type: 'message', message });
  out({ type: 'turn_end', message, toolResults: [] });
  out({ type: 'agent_end', messages: [user, message], willRetry: false });
  out({ type: 'agent_settled' });
}

function runTurn(text: string, images: unknown): void {
  const user = userMessage(text, images);
  if (text.startsWith('hold ')) {
    const reply = text.slice(5);
    running = { text: reply, started: Date.now(), user };
    beginTurn(user, reply);
    return;
  }
  const reply = `You said: ${text}`;
  beginTurn(user, reply);
  endTurn(reply, 'stop', user);
}

// ── Shell ────────────────────────────────────────────────────────────────────

let shell: ChildProcess | null = null;

function runBash(id: unknown, command: Obj, ok: (data?: unknown) => void): void {
  const child = (shell = spawn('/bin/sh', ['-c', String(command.command)], { cwd, stdio: ['ignore', 'pipe', 'pipe'] }));
  let output = '';
  let cancelled = false;
  const take = (chunk: Buffer): void => {
    const delta = chunk.toString('utf8');
    output += delta;
    out({ type: 'bash_execution_update', ...(id === undefined ? {} : { id }), delta });
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  child.on('error', () => (cancelled = true));
  (child as ChildProcess & { cancel?: () => void }).cancel = () => {
    cancelled = true;
    child.kill('SIGKILL');
  };
  child.on('close', (code) => {
    shell = null;
    const result = { output, ...(cancelled ? {} : { exitCode: code ?? undefined }), cancelled, truncated: false };
    append(session, { type: 'message', message: { role: 'bashExecution', command: command.command, ...result, ...(command.excludeFromContext ? { excludeFromContext: true } : {}), timestamp: Date.now() } });
    ok(result);
  });
}

// ── Commands ─────────────────────────────────────────────────────────────────

function state(): Obj {
  return {
    model: currentModel,
    thinkingLevel,
    isStreaming: running !== null,
    isCompacting: false,
    steeringMode,
    followUpMode,
    ...(session.file !== undefined ? { sessionFile: session.file } : {}),
    sessionId: session.id,
    ...(sessionName() !== undefined ? { sessionName: sessionName() } : {}),
    autoCompactionEnabled: autoCompaction,
    messageCount: messages(session).length,
    pendingMessageCount: queue.steering.length + queue.followUp.length,
  };
}

function stats(): Obj {
  const list = messages(session);
  const count = (role: string) => list.filter((m) => m.role === role).length;
  const replies = count('assistant');
  return {
    sessionFile: session.file,
    sessionId: session.id,
    userMessages: count('user'),
    assistantMessages: replies,
    toolCalls: 0,
    toolResults: 0,
    totalMessages: list.length,
    tokens: { input: 10 * replies, output: 5 * replies, cacheRead: 0, cacheWrite: 0, total: 15 * replies },
    cost: 0,
    contextUsage: { tokens: 15 * replies, contextWindow: currentModel.contextWindow, percent: (15 * replies * 100) / currentModel.contextWindow },
  };
}

/** Makes `next` the session, as pi's runtime does on new/switch/fork/clone. */
function replace(next: Session): void {
  session = next;
  if (next.flushed && next.file !== undefined) flush(next);
}

function handle(command: Obj): void {
  const id = command.id;
  const type = String(command.type);
  const ok = (data?: unknown): void => out({ id, type: 'response', command: type, success: true, ...(data === undefined ? {} : { data }) });
  /** A prompt's, steer's or follow_up's answer: since pi 0.99 it says what became of the input. */
  const disposed = (disposition: 'started' | 'queued' | 'handled'): void => ok(since099 ? { disposition } : undefined);
  const error = (message: string): void => out({ id, type: 'response', command: type, success: false, error: message });
  switch (type) {
    // ── test hooks
    case 'tool': {
      // Like a bash tool's command: a child in pi's process group that outlives pi if no one cleans up.
      const child = spawn('sleep', ['300'], { stdio: 'ignore' });
      child.unref();
      return ok({ pid: child.pid });
    }
    case 'wait':
      setTimeout(() => ok({ waited: command.ms }), Number(command.ms));
      return;
    case 'emit':
      for (const record of command.records as unknown[]) out(record);
      return ok();
    case 'echo':
      return ok({ echo: command });
    case 'garbage':
      process.stdout.write('this is not json\n');
      return ok();
    case 'crash':
      process.stderr.write('fatal: something broke\nat the fake pi\n');
      process.exit(Number(command.code ?? 1));
      return;
    case 'silent':
      return;
    case 'fail':
      return error('it failed on purpose');

    // ── prompting
    case 'prompt': {
      const message = String(command.message);
      if (withIde && message === '/ide') {
        const options = ['Neovim · /p · pid=5000 port=41000', 'Patchbay · /p · pid=4242 port=40123'];
        out({ type: 'extension_ui_request', id: 'ide-1', method: 'select', title: 'Connect to IDE', options });
        return disposed('handled');
      }
      if (message.startsWith('emit ')) {
        const records = JSON.parse(message.slice(5)) as Obj[];
        for (const record of records) out(record);
        return disposed(records.some((r) => r.type === 'agent_start') ? 'started' : 'handled');
      }
      if (running !== null) {
        const behavior = command.streamingBehavior;
        if (behavior !== 'steer' && behavior !== 'followUp') return error("Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.");
        queue[behavior === 'steer' ? 'steering' : 'followUp'].push(message);
        out({ type: 'queue_update', ...queue });
        return disposed('queued');
      }
      disposed('started');
      return runTurn(message, command.images);
    }
    case 'steer':
    case 'follow_up':
      queue[type === 'steer' ? 'steering' : 'followUp'].push(String(command.message));
      out({ type: 'queue_update', ...queue });
      return disposed('queued');
    case 'abort':
      if (stubborn) return;
      if (running !== null) {
        const { text, user } = running;
        running = null;
        endTurn(text, 'aborted', user);
      }
      return ok();
    case 'clear_queue': {
      const cleared = { steering: queue.steering, followUp: queue.followUp };
      queue.steering = [];
      queue.followUp = [];
      out({ type: 'queue_update', steering: [], followUp: [] });
      return ok(cleared);
    }

    // ── state, model, thinking
    case 'get_state':
      return ok(state());
    case 'get_messages':
      return ok({ messages: messages(session) });
    case 'get_available_models':
      return ok({ models: MODELS });
    case 'set_model': {
      const found = MODELS.find((m) => m.provider === command.provider && m.id === command.modelId);
      if (!found) return error(`Model not found: ${String(command.provider)}/${String(command.modelId)}`);
      currentModel = found;
      append(session, { type: 'model_change', provider: found.provider, modelId: found.id });
      if (!thinkingLevels().includes(thinkingLevel)) thinkingLevel = 'off';
      return ok(found);
    }
    case 'cycle_model': {
      const next = MODELS[(MODELS.indexOf(currentModel) + 1) % MODELS.length]!;
      if (next === currentModel) return ok(null);
      currentModel = next;
      return ok({ model: next, thinkingLevel, isScoped: false });
    }
    case 'set_thinking_level':
    case 'cycle_thinking_level': {
      const levels = thinkingLevels();
      const wanted = type === 'set_thinking_level' ? String(command.level) : levels[(levels.indexOf(thinkingLevel) + 1) % levels.length]!;
      const effective = levels.includes(wanted) ? wanted : levels.at(-1)!;
      if (effective !== thinkingLevel) {
        thinkingLevel = effective;
        append(session, { type: 'thinking_level_change', thinkingLevel: effective });
        out({ type: 'thinking_level_changed', level: effective });
      }
      if (type === 'cycle_thinking_level') return ok(levels.length > 1 ? { level: effective } : null);
      return ok();
    }
    case 'get_available_thinking_levels':
      return ok({ levels: thinkingLevels() });
    case 'set_steering_mode':
      steeringMode = String(command.mode);
      return ok();
    case 'set_follow_up_mode':
      followUpMode = String(command.mode);
      return ok();

    // ── compaction, retry
    case 'compact': {
      out({ type: 'compaction_start', reason: 'manual' });
      const list = messages(session).filter((m) => m.role === 'user' || m.role === 'assistant');
      if (list.length < 4) {
        out({ type: 'compaction_end', reason: 'manual', aborted: false, willRetry: false, errorMessage: 'Compaction failed: Nothing to compact (session too small)' });
        return error('Nothing to compact (session too small)');
      }
      const kept = branch(session).filter((e) => e.type === 'message').at(-2)!;
      const tokensBefore = 15 * list.length;
      const summary = `Summary of ${list.length} messages${command.customInstructions ? ` (${String(command.customInstructions)})` : ''}`;
      append(session, { type: 'compaction', summary, firstKeptEntryId: kept.id, tokensBefore });
      const result = { summary, firstKeptEntryId: kept.id, tokensBefore, estimatedTokensAfter: 30, details: {} };
      out({ type: 'compaction_end', reason: 'manual', result, aborted: false, willRetry: false });
      return ok(result);
    }
    case 'set_auto_compaction':
      autoCompaction = command.enabled === true;
      return ok();
    case 'set_auto_retry':
    case 'abort_retry':
      return ok();

    // ── shell
    case 'bash':
      return runBash(id, command, ok);
    case 'abort_bash':
      (shell as (ChildProcess & { cancel?: () => void }) | null)?.cancel?.();
      return ok();

    // ── session
    case 'get_session_stats':
      return ok(stats());
    case 'export_html': {
      if (!messages(session).some((m) => m.role === 'user' || m.role === 'assistant')) return error('Nothing to export yet - start a conversation first');
      const target = typeof command.outputPath === 'string' ? command.outputPath : `pi-session-${basename(session.file ?? session.id, '.jsonl')}.html`;
      const html = `<!doctype html><title>${sessionName() ?? session.id}</title>${messages(session).map((m) => `<p>${textOf(m)}</p>`).join('')}`;
      writeFileSync(resolve(cwd, target), html);
      return ok({ path: target });
    }
    case 'new_session':
      replace(freshSession(undefined, typeof command.parentSession === 'string' ? command.parentSession : undefined));
      return ok({ cancelled: false });
    case 'switch_session':
      replace(openSession(String(command.sessionPath)));
      return ok({ cancelled: false });
    case 'fork':
    case 'clone': {
      const path = branch(session);
      const at = type === 'fork' ? path.findIndex((e) => e.id === command.entryId && e.type === 'message' && (e.message as Obj).role === 'user') : path.length;
      if (at === -1) return error('Invalid entry ID for forking');
      if (type === 'clone' && session.leafId === null) return error('Cannot clone session: no current entry selected');
      const next = freshSession(undefined, session.file);
      next.entries = path.slice(0, at);
      next.leafId = next.entries.at(-1)?.id ?? null;
      next.flushed = next.entries.some((e) => e.type === 'message' && (e.message as Obj).role === 'assistant');
      replace(next);
      return ok(type === 'fork' ? { text: textOf(path[at]!.message as Obj), cancelled: false } : { cancelled: false });
    }
    case 'get_fork_messages':
      return ok({
        messages: branch(session)
          .filter((e) => e.type === 'message' && (e.message as Obj).role === 'user')
          .map((e) => ({ entryId: e.id, text: textOf(e.message as Obj) })),
      });
    case 'get_entries': {
      let entries = session.entries;
      if (command.since !== undefined) {
        const at = entries.findIndex((e) => e.id === command.since);
        if (at === -1) return error(`Entry not found: ${String(command.since)}`);
        entries = entries.slice(at + 1);
      }
      return ok({ entries, leafId: session.leafId });
    }
    case 'get_tree': {
      const node = (entry: Entry): Obj => ({ entry, children: session.entries.filter((e) => e.parentId === entry.id).map(node) });
      return ok({ tree: session.entries.filter((e) => e.parentId === null).map(node), leafId: session.leafId });
    }
    case 'get_last_assistant_text': {
      const last = messages(session).filter((m) => m.role === 'assistant').at(-1);
      return ok(last === undefined ? {} : { text: textOf(last) });
    }
    case 'set_session_name': {
      const name = String(command.name ?? '').trim();
      if (name === '') return error('Session name cannot be empty');
      append(session, { type: 'session_info', name });
      out({ type: 'session_info_changed', name });
      return ok();
    }
    case 'get_commands': {
      const own = (name: string) => (since099 ? { path: `builtin:${name}`, source: 'builtin' } : { path: `<inline:${name}>`, source: 'inline' });
      const builtin = (name: string, extension: string, description: string): Obj => ({ name, description, source: 'extension', sourceInfo: { ...own(extension), scope: 'temporary', origin: 'top-level' } });
      const commands: Obj[] = [builtin('llama', 'llama.cpp', 'Manage llama.cpp router models')];
      if (since099) commands.push(builtin('mcp', 'mcp', 'Manage MCP servers: sign in, reconnect, enable or disable, and change exposure'));
      if (withIde) commands.push({ name: 'ide', description: 'Connect to a running IDE', source: 'extension', sourceInfo: { path: '/ext/pi-ide/index.ts', source: 'local', scope: 'user', origin: 'top-level' } });
      return ok({ commands });
    }
    default:
      return error(`Unknown command: ${type}`);
  }
}

const decoder = new JsonlDecoder({
  onRecord: (record) => handle(record as Obj),
  onError: (err) => out({ type: 'response', command: 'parse', success: false, error: `Failed to parse command: ${err.message}` }),
});
process.stdin.on('data', (chunk: Buffer) => decoder.push(chunk));
process.stdin.on('end', () => {
  decoder.end();
  if (!stubborn) shutdown(0);
});
void keepAlive;
