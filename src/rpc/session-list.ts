// pi's saved sessions (its session files, TUI ones included), for the person to find and resume
// one. pi keeps them in `<agent dir>/sessions/--<folder>--/*.jsonl`, or flat in a session dir
// chosen by `--session-dir`, `$PI_CODING_AGENT_SESSION_DIR` or the `sessionDir` setting. Each
// file is pi's JSONL: a `session` header (id, time, cwd), then entries; `session_info` entries
// name it. The folder may be anyone's (`--session-dir`): each file is opened once, non-blocking
// and without following a final symlink, checked on its descriptor (a regular file) and read from
// it a bounded amount, so a FIFO swapped in after the listing cannot hang a thread; a listing does
// one file operation at a time, so it never holds more than one of node's fs threads. What was
// read is kept until the file changes.
import { lstat, readdir, stat, type FileHandle } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { PiSessionInfo } from '../api/types.ts';
import { isObject } from '../api/json.ts';
import { openRegular, readBounded } from '../fs/bounded-read.ts';

/** Sessions listed (the most recently changed); bytes read of one file; characters of a first prompt shown. */
export const MAX_SESSIONS = 500;
const MAX_READ_BYTES = 64 * 1024 * 1024;
/**
 * Bytes one listing reads in all: past it, a file is read only as far as its header and first
 * lines (its name may then be missed), so a folder of huge sessions cannot hold a listing up.
 */
const LISTING_BUDGET_BYTES = 256 * 1024 * 1024;
const HEAD_BYTES = 1024 * 1024;
const FIRST_PROMPT_CHARS = 300;
const MAX_SETTINGS_BYTES = 1024 * 1024;

export interface SessionDirs {
  /** pi's agent dir (`$PI_CODING_AGENT_DIR`, default ~/.pi/agent). */
  agentDir: string;
  /** `$PI_CODING_AGENT_SESSION_DIR`, when set. */
  envSessionDir: string | null;
}

function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

/** Where pi saves sessions, in pi's order: the environment, then its `sessionDir` setting, then `<agent dir>/sessions`. */
export async function piSessionDir(dirs: SessionDirs, log: (message: string) => void): Promise<string> {
  if (dirs.envSessionDir) return expandHome(dirs.envSessionDir);
  const settingsFile = join(dirs.agentDir, 'settings.json');
  try {
    const read = await readBounded(settingsFile, MAX_SETTINGS_BYTES);
    if (read.kind === 'bytes') {
      const settings: unknown = JSON.parse(read.bytes.toString('utf8'));
      const dir = isObject(settings) && typeof settings.sessionDir === 'string' ? expandHome(settings.sessionDir.trim()) : '';
      if (dir !== '' && isAbsolute(dir)) return dir;
    } else if (read.kind !== 'missing') {
      log(`pi sessions: ${settingsFile} is not read: ${read.kind === 'refused' ? read.why : `it is larger than ${MAX_SETTINGS_BYTES} bytes`}`);
    }
  } catch (err) {
    log(`pi sessions: ${settingsFile}: ${(err as Error).message}`);
  }
  return join(dirs.agentDir, 'sessions');
}

interface Found {
  file: string;
  bytes: number;
  modifiedAt: number;
}

/** The `.jsonl` files in `dir` and in its folders one level down (pi's per-folder layout). */
async function sessionFiles(dir: string): Promise<Found[]> {
  const found: Found[] = [];
  const take = async (folder: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch {
      return; // a dir that does not exist (yet) has no sessions
    }
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isFile() && entry.name.endsWith('.jsonl')) {
        const info = await lstat(path).catch(() => null);
        if (info?.isFile()) found.push({ file: path, bytes: info.size, modifiedAt: info.mtimeMs });
      } else if (depth === 0 && (entry.isDirectory() || entry.isSymbolicLink())) {
        const info = await stat(path).catch(() => null);
        if (info?.isDirectory()) await take(path, 1);
      }
    }
  };
  await take(dir, 0);
  return found;
}

type Header = { id: string; cwd: string; createdAt: number | null };

/**
 * What the person recognises a session by: its header, name, first prompt and size, from the
 * file listed as `found` (opened once, and checked again on what was opened: it may have been
 * swapped since it was listed). null: not one of pi's, or no longer a regular file.
 */
export async function readSessionInfo(found: Found, maxBytes = MAX_READ_BYTES): Promise<Omit<PiSessionInfo, 'hostedId'> | null> {
  let header: Header | null = null;
  let name: string | null = null;
  let firstPrompt: string | null = null;
  let messages = 0;
  let notSession = false;
  const line = (text: string): boolean => {
    if (text.trim() === '') return true;
    if (header === null) {
      const value = parse(text);
      if (!isObject(value) || value.type !== 'session' || typeof value.id !== 'string') {
        notSession = true;
        return false;
      }
      const time = typeof value.timestamp === 'string' ? Date.parse(value.timestamp) : NaN;
      header = { id: value.id, cwd: typeof value.cwd === 'string' ? value.cwd : '', createdAt: Number.isNaN(time) ? null : time };
      return true;
    }
    // Most lines are messages with long contents: only those that matter are parsed.
    if (text.startsWith('{"type":"session_info"')) {
      const value = parse(text);
      if (isObject(value)) name = typeof value.name === 'string' && value.name.trim() !== '' ? value.name.trim() : null;
    } else if (text.startsWith('{"type":"message"')) {
      messages++;
      if (firstPrompt === null) {
        const value = parse(text);
        const message = isObject(value) ? value.message : null;
        if (isObject(message) && message.role === 'user') firstPrompt = promptText(message.content);
      }
    }
    return true;
  };
  const opened = await openRegular(found.file, { noFollow: true, oneAtATime: true });
  if (opened.kind !== 'open') return null;
  try {
    await readLines(opened.handle, maxBytes, line);
  } finally {
    await opened.handle.close();
  }
  if (notSession || header === null) return null;
  const { id, cwd, createdAt } = header as Header;
  const { size: bytes, mtimeMs: modifiedAt } = opened.stats;
  return { file: found.file, id, cwd, name, firstPrompt, createdAt, modifiedAt, bytes, messages };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function promptText(content: unknown): string | null {
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')
            .map((b) => (b as { text: string }).text)
            .join(' ')
        : '';
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine === '') return null;
  return oneLine.length > FIRST_PROMPT_CHARS ? `${oneLine.slice(0, FIRST_PROMPT_CHARS - 1)}…` : oneLine;
}

/** Bytes read from a session file at a time. */
const CHUNK_BYTES = 64 * 1024;

/** Calls `onLine` per LF-separated line of the opened file (U+2028 inside JSON strings stays); stops when it returns false or at `maxBytes`. */
async function readLines(handle: FileHandle, maxBytes: number, onLine: (line: string) => boolean): Promise<void> {
  const decoder = new StringDecoder('utf8');
  const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes));
  let partial = '';
  for (let at = 0; at < maxBytes; ) {
    const { bytesRead } = await handle.read(chunk, 0, Math.min(chunk.length, maxBytes - at), at);
    if (bytesRead === 0) break;
    at += bytesRead;
    const lines = (partial + decoder.write(chunk.subarray(0, bytesRead))).split('\n');
    partial = lines.pop() ?? '';
    for (const text of lines) if (!onLine(text.endsWith('\r') ? text.slice(0, -1) : text)) return;
  }
  partial += decoder.end();
  if (partial !== '') onLine(partial);
}

/** Remembers what each file held, until it changes (size or time). */
export class SessionCatalog {
  private readonly known = new Map<string, { bytes: number; modifiedAt: number; info: Omit<PiSessionInfo, 'hostedId'> | null }>();

  /** Sessions in `dirs`, newest first, at most MAX_SESSIONS; `hostedOn` names the hosted session on a file. */
  async list(dirs: readonly string[], hostedOn: (file: string) => string | null): Promise<PiSessionInfo[]> {
    const seen = new Set<string>();
    const files: Found[] = [];
    for (const dir of new Set(dirs)) {
      for (const found of await sessionFiles(dir)) {
        if (seen.has(found.file)) continue;
        seen.add(found.file);
        files.push(found);
      }
    }
    files.sort((a, b) => b.modifiedAt - a.modifiedAt);
    const listed: PiSessionInfo[] = [];
    let budget = LISTING_BUDGET_BYTES;
    for (const found of files.slice(0, MAX_SESSIONS)) {
      const cached = this.known.get(found.file);
      let info = cached && cached.bytes === found.bytes && cached.modifiedAt === found.modifiedAt ? cached.info : undefined;
      if (info === undefined) {
        const cap = Math.max(HEAD_BYTES, Math.min(MAX_READ_BYTES, budget));
        budget -= Math.min(found.bytes, cap);
        info = await readSessionInfo(found, cap).catch(() => null);
        // A file read only in part is read again next time rather than kept half known; one that
        // changed between the listing and the read is kept as it was read.
        const read = info ?? found;
        if (read.bytes <= cap) this.known.set(found.file, { bytes: read.bytes, modifiedAt: read.modifiedAt, info });
      }
      if (info !== null) listed.push({ ...info, hostedId: hostedOn(found.file) });
    }
    for (const file of this.known.keys()) if (!seen.has(file)) this.known.delete(file);
    return listed;
  }
}

/** The session file's header: where the session ran (to start pi there again), or why it is not a pi session. */
export async function sessionHeader(file: string): Promise<Header> {
  const opened = await openRegular(file, { noFollow: true }).catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read ${file}: ${err.message}`);
  });
  if (opened.kind === 'missing') throw new Error(`no pi session file at ${file}`);
  if (opened.kind === 'refused') throw new Error(`${file} is not a regular file (${opened.why})`);
  let header: Header | null = null;
  try {
    await readLines(opened.handle, HEAD_BYTES, (text) => {
      const value = parse(text);
      if (isObject(value) && value.type === 'session' && typeof value.id === 'string' && typeof value.cwd === 'string') {
        const time = typeof value.timestamp === 'string' ? Date.parse(value.timestamp) : NaN;
        header = { id: value.id, cwd: value.cwd, createdAt: Number.isNaN(time) ? null : time };
      }
      return false;
    });
  } finally {
    await opened.handle.close();
  }
  if (header === null) throw new Error(`${file} is not a pi session file (its first line is not a session header)`);
  return header;
}
