// An editor's lockfile (DESIGN §1): `<lockdir>/<port>.lock`, parsed once here into a typed
// value or a reason a person can read. The port comes from the file name, never the body.
import { basename, dirname, isAbsolute } from 'node:path';
import { z } from 'zod';
import type { Dialect, OtherLockfile } from '../api/types.ts';
import { readBounded, type BoundedRead } from '../fs/bounded-read.ts';

export type { Dialect };

/** Field error text: `"pid" is missing` or `"pid" must be <what>`. */
function field(name: string, what: string) {
  return {
    error: (issue: { input?: unknown }) => (issue.input === undefined ? `"${name}" is missing` : `"${name}" must be ${what}`),
  };
}

// Extra keys are stripped (zod's default): editors add their own (`runningInWindows`, `port`…).
const lockfileSchema = z.object({
  pid: z.number(field('pid', 'a positive integer')).int(field('pid', 'a positive integer')).positive(field('pid', 'a positive integer')),
  workspaceFolders: z.array(
    z.string(field('workspaceFolders', 'a list of absolute paths')).refine(isAbsolute, field('workspaceFolders', 'a list of absolute paths')),
    field('workspaceFolders', 'a list of absolute paths'),
  ),
  ideName: z.string(field('ideName', 'a string')),
  transport: z.literal('ws', field('transport', '"ws"')),
  /**
   * Absent where the editor checks none: claude-code-ide.el (Emacs) writes none, and takes any
   * connection. Present, it must be a token.
   */
  authToken: z.string(field('authToken', 'a non-empty string')).min(1, field('authToken', 'a non-empty string')).optional(),
  /**
   * Patchbay's own door lockfiles only, when `pid` names an editor (whose terminals' Claude Code
   * trusts only lockfiles of its ancestors): the Patchbay that serves the port.
   */
  patchbayPid: z.number(field('patchbayPid', 'a positive integer')).int(field('patchbayPid', 'a positive integer')).positive(field('patchbayPid', 'a positive integer')).optional(),
});

export type Lockfile = z.infer<typeof lockfileSchema>;

/** A live editor instance: what its lockfile says, under its stable identity. */
export interface EditorInstance {
  /** Stable across restarts: derived from (ideName, first workspace folder). */
  id: string;
  port: number;
  pid: number;
  ideName: string;
  workspaceFolders: string[];
  /** Null: the editor has none and checks none (claude-code-ide.el): nothing is sent. */
  authToken: string | null;
  dialect: Dialect;
  /** Where the lockfile is now. */
  lockfile: string;
}

export interface LockEntry {
  /** Where the file is now (`<dir>/<port>.lock`, or under `<dir>/.patchbay/` once adopted). */
  path: string;
  /** The agent-facing lock dir the file belongs to. */
  dir: string;
  port: number;
  lock: Lockfile;
  dialect: Dialect;
  /** Modification time of the file when it was read, for caching checks. */
  mtimeMs: number;
  /** Who owns the file: only the current user's lockfiles are trusted (DESIGN §10). */
  uid: number;
  /** Permission bits (`0o600`…), for checking Patchbay's own door lockfile. */
  mode: number;
}

/**
 * Why a lockfile could not be used. `invalid`: the file itself is wrong (content, type,
 * name, access). `missing`: it vanished before it could be read (a normal race, not an
 * error). `unreadable`: reading failed for a reason of this machine's, not of the file
 * (out of descriptors, memory, an I/O error): nothing can be concluded about the file.
 */
export type ReadFailure = 'invalid' | 'missing' | 'unreadable';

/**
 * A lockfile of another protocol in the same dir, such as the "Pi IDE Protocol v1"
 * (xl0/pi-lovely-ide) in `~/.pi/ide`: `{"protocol":"pi-ide","version":1,…}`. Not MCP, not an
 * editor Patchbay can serve: listed, and never moved, rewritten or deleted.
 */
export type { OtherLockfile };

export type ReadResult =
  | { ok: true; entry: LockEntry }
  | { ok: false; path: string; reason: string; failure: ReadFailure }
  | { ok: false; path: string; reason: string; failure: 'other'; other: OtherLockfile };

/** Protocols known by name: `protocol` and `version` as their lockfiles write them. */
const KNOWN_PROTOCOLS: Readonly<Record<string, string>> = { 'pi-ide 1': 'Pi IDE Protocol v1' };

/**
 * Another protocol's lockfile, told apart by its `protocol` field (the editors' MCP lockfiles
 * have none); null for anything else.
 */
export function otherProtocol(value: unknown, path: string): OtherLockfile | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const { protocol, version, ide, pid } = value as Record<string, unknown>;
  if (typeof protocol !== 'string' || protocol === '') return null;
  const versioned = typeof version === 'number' || typeof version === 'string' ? ` ${String(version)}` : '';
  const name = KNOWN_PROTOCOLS[`${protocol}${versioned}`] ?? `the "${protocol.slice(0, 64)}" protocol${versioned ? ` v${versioned.trim()}` : ''}`;
  const who = [typeof ide === 'string' && ide !== '' ? ide.slice(0, 64) : null, typeof pid === 'number' ? `pid ${pid}` : null].filter((p) => p !== null);
  return { path, protocol, description: `${name}${who.length > 0 ? ` (${who.join(', ')})` : ''}` };
}

/** Error codes that say something about the file itself; any other code is this machine's trouble. */
const FILE_FAULTS = new Set(['ELOOP', 'EACCES', 'EPERM', 'EISDIR', 'ENOTDIR', 'EFBIG', 'ENXIO', 'EINVAL', 'ENAMETOOLONG']);

/** What a failed open, stat or read of a lockfile means (see ReadFailure). */
export function readFailureOf(code: string | undefined): ReadFailure {
  if (code === 'ENOENT') return 'missing';
  return code !== undefined && FILE_FAULTS.has(code) ? 'invalid' : 'unreadable';
}

const LOCK_NAME = /^(\d{1,5})\.lock$/;

/** The port a lockfile name advertises, or null for anything but `<1..65535>.lock`. */
export function portFromName(name: string): number | null {
  const match = LOCK_NAME.exec(name);
  if (!match) return null;
  const port = Number(match[1]);
  return port >= 1 && port <= 65535 ? port : null;
}

/** Validates a parsed JSON value; the reason names the first bad field. */
export function parseLockfile(value: unknown): { ok: true; lock: Lockfile } | { ok: false; reason: string } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'not a JSON object' };
  }
  const parsed = lockfileSchema.safeParse(value);
  if (parsed.success) return { ok: true, lock: parsed.data };
  return { ok: false, reason: parsed.error.issues[0]?.message ?? 'invalid lockfile' };
}

/**
 * Reads one lockfile with a size cap. Symlinks and anything but regular files are refused
 * (src/fs/bounded-read.ts: O_NOFOLLOW, and O_NONBLOCK so a FIFO cannot hang the open).
 * `ownerDir` is the agent-facing dir when the file sits in `.patchbay/`.
 */
export async function readLockfile(
  path: string,
  dialect: Dialect,
  maxBytes: number,
  ownerDir: string = dirname(path),
): Promise<ReadResult> {
  const fail = (reason: string, failure: ReadFailure = 'invalid'): ReadResult => ({ ok: false, path, reason, failure });
  // Another protocol's file may be named as it likes: its name is judged after its contents.
  const port = portFromName(basename(path));

  const badName = (): ReadResult => fail('file name is not <port>.lock');
  let read: BoundedRead;
  try {
    read = await readBounded(path, maxBytes, { noFollow: true });
  } catch (err) {
    const failure = readFailureOf((err as NodeJS.ErrnoException).code);
    if (failure === 'invalid' && port === null) return badName();
    return fail(failure === 'missing' ? 'file vanished' : `cannot read: ${(err as Error).message}`, failure);
  }
  if (read.kind === 'missing') return fail('file vanished', 'missing');
  if (port === null && read.kind !== 'bytes') return badName();
  if (read.kind === 'refused') return fail(read.why);
  if (read.kind === 'too-large') return fail(`larger than ${maxBytes} bytes`);
  const text = read.bytes.toString('utf8');
  const { mtimeMs, uid } = read.stats;
  const mode = read.stats.mode & 0o7777;

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return port === null ? badName() : fail(`not JSON: ${(err as Error).message}`);
  }
  const other = otherProtocol(value, path);
  if (other !== null) return { ok: false, path, reason: `another protocol's lockfile: ${other.description}`, failure: 'other', other };
  if (port === null) return badName();
  const parsed = parseLockfile(value);
  if (!parsed.ok) return fail(parsed.reason);
  return { ok: true, entry: { path, dir: ownerDir, port, lock: parsed.lock, dialect, mtimeMs, uid, mode } };
}

/** The bytes Patchbay writes for its own door lockfile. */
export function serializeLockfile(lock: Lockfile): string {
  const { pid, workspaceFolders, ideName, transport, authToken, patchbayPid } = lock;
  return JSON.stringify({ pid, workspaceFolders, ideName, transport, ...(authToken === undefined ? {} : { authToken }), ...(patchbayPid === undefined ? {} : { patchbayPid }) });
}
