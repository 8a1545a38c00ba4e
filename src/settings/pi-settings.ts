// pi's autoconnect switch, `"pi-ide": {"autoconnect": bool}`, in pi's own settings files:
// the global one and `<folder>/.pi/settings.json`. These files belong to the person and to
// pi, so an edit touches that one key and nothing else, and never leaves a half-written file.
// A project may be anyone's: its settings file is read only if it is a regular file of a sane
// size (a FIFO there must not hang Patchbay), and written only through the person's own links.
import { randomBytes } from 'node:crypto';
import { constants, type Stats } from 'node:fs';
import { mkdir, open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { HubError, type AutoconnectView } from '../api/types.ts';
import { isObject, kindOf } from '../api/json.ts';
import { readBounded } from '../fs/bounded-read.ts';
import { followOwnedLinks, UntrustedLinkError } from '../fs/owned-links.ts';
import { checkStrictFolders, UnsafeFolderError } from '../fs/strict-folders.ts';

const SECTION = 'pi-ide';
const KEY = 'autoconnect';
/** What pi gives a settings file it creates. */
const NEW_FILE_MODE = 0o644;
const NEW_DIR_MODE = 0o755;
/** pi's settings are a few KiB; a bigger file is not read. */
const MAX_SETTINGS_BYTES = 1024 * 1024;

type JsonObject = Record<string, unknown>;

export function projectSettingsFile(folder: string): string {
  return join(resolve(folder), '.pi', 'settings.json');
}

/** An fs failure as the person reads it: which settings file, what Patchbay was doing, what went wrong. */
function fsError(file: string, doing: string, error: unknown): HubError {
  const reason = error instanceof Error ? error.message : String(error);
  return new HubError(`pi settings ${file}: cannot ${doing}: ${reason}`, 'unavailable');
}

/** The file's contents, or null when it does not exist. `file` names it in errors (it may be a symlink to `path`). */
async function readText(path: string, file: string = path): Promise<string | null> {
  let read;
  try {
    read = await readBounded(path, MAX_SETTINGS_BYTES);
  } catch (error) {
    throw fsError(file, 'read it', error);
  }
  if (read.kind === 'missing') return null;
  if (read.kind === 'refused') throw new HubError(`pi settings ${file} is not read: ${read.why} (Patchbay reads only regular files)`, 'invalid');
  if (read.kind === 'too-large') throw new HubError(`pi settings ${file} is not read: it is larger than ${MAX_SETTINGS_BYTES} bytes`, 'invalid');
  return read.bytes.toString('utf8');
}

function parseSettings(file: string, text: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HubError(`pi settings ${file} does not parse as JSON (${reason}); fix or remove it first`, 'invalid');
  }
  if (!isObject(parsed)) {
    throw new HubError(`pi settings ${file}: the top level must be an object (got ${kindOf(parsed)})`, 'invalid');
  }
  return parsed;
}

/** The `"pi-ide"` object, if there is one; anything else in its place is refused. */
function section(file: string, settings: JsonObject): JsonObject | undefined {
  const value = settings[SECTION];
  if (value === undefined) return undefined;
  if (!isObject(value)) {
    throw new HubError(`pi settings ${file}: "${SECTION}" must be an object (got ${kindOf(value)})`, 'invalid');
  }
  return value;
}

/** The file's autoconnect value: null when the file or the key is absent. */
async function readValue(file: string): Promise<boolean | null> {
  const text = await readText(file);
  if (text === null) return null;
  const value = section(file, parseSettings(file, text))?.[KEY];
  if (value === undefined) return null;
  if (typeof value !== 'boolean') {
    throw new HubError(`pi settings ${file}: "${SECTION}.${KEY}" must be true or false (got ${JSON.stringify(value)})`, 'invalid');
  }
  return value;
}

/** The effective autoconnect for a folder (or globally): project overrides global; missing = enabled. */
export async function readAutoconnect(where: { globalFile: string; project?: string }): Promise<AutoconnectView> {
  const projectFile = where.project === undefined ? null : projectSettingsFile(where.project);
  const [global, project] = await Promise.all([
    readValue(where.globalFile),
    projectFile === null ? Promise.resolve(null) : readValue(projectFile),
  ]);
  return { globalFile: where.globalFile, global, projectFile, project, effective: project ?? global ?? true };
}

/** The indent the file already uses (two spaces when it has none to copy). */
function indentOf(text: string): string {
  const match = /^[ \t]*[{[]\s*?\n([ \t]+)\S/.exec(text);
  return match?.[1] ?? '  ';
}

/**
 * The new text of a settings file with autoconnect set (or removed, for null), or null when
 * nothing changes. Other keys keep their order; the file's indent and final newline are kept.
 */
export function editAutoconnect(file: string, text: string | null, value: boolean | null): string | null {
  if (text === null) {
    return value === null ? null : `${JSON.stringify({ [SECTION]: { [KEY]: value } }, null, 2)}\n`;
  }
  const settings = parseSettings(file, text);
  const current = section(file, settings);
  if (value === null) {
    if (current === undefined || !Object.hasOwn(current, KEY)) return null;
    delete current[KEY];
    if (Object.keys(current).length === 0) delete settings[SECTION];
  } else {
    if (current?.[KEY] === value) return null;
    if (current) current[KEY] = value;
    else settings[SECTION] = { [KEY]: value };
  }
  const newline = text.endsWith('\n') ? '\n' : '';
  return JSON.stringify(settings, null, indentOf(text)) + newline;
}

/**
 * Writes beside the target and renames over it, so readers see the old file or the new one.
 * `folder` (the target's) was checked (checkStrictFolders) and found as `checked`: no one but you
 * and root can change what its path leads to, so the temp file and the rename, made by path
 * (node has no openat), land in it. The folder is opened once and compared with what was checked
 * (the same device and inode), which catches a change by you or root since; the temp file is
 * created new (O_EXCL, O_NOFOLLOW: never through a link), and removed on every failure.
 * `stillSame` runs just before the rename: false (someone else changed the file meanwhile) drops
 * the temp file and returns false, leaving their change in place.
 */
async function replaceFile(file: string, folder: string, checked: Stats, target: string, text: string, mode: number, stillSame: () => Promise<boolean>): Promise<boolean> {
  let dir: FileHandle;
  try {
    dir = await open(folder, constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | (constants.O_NOFOLLOW ?? 0));
  } catch (error) {
    throw fsError(file, `open its folder`, error);
  }
  const temp = join(folder, `.${basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  let created = false;
  let renamed = false;
  try {
    const opened = await dir.stat();
    if (opened.dev !== checked.dev || opened.ino !== checked.ino) {
      throw new HubError(`pi settings ${file}: not written: ${folder} was replaced while Patchbay wrote in it; try again`, 'conflict');
    }
    let handle: FileHandle;
    try {
      handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), mode);
    } catch (error) {
      throw fsError(file, `create a temp file beside it`, error);
    }
    created = true;
    try {
      await handle.writeFile(text, 'utf8');
      await handle.chmod(mode); // the umask narrowed the mode given to open
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (!(await stillSame())) return false;
    await rename(temp, target);
    renamed = true;
    await dir.sync().catch(() => {
      // The rename is done; a folder that cannot be synced (some file systems) only makes it less durable.
    });
    return true;
  } catch (error) {
    throw error instanceof HubError ? error : fsError(file, 'write it', error);
  } finally {
    if (created && !renamed) await rm(temp, { force: true }).catch(() => {});
    await dir.close().catch(() => {});
  }
}

/**
 * The folder a settings file is written in, once it and every folder above it can be changed by
 * you and root alone; null when it does not exist, unless `create`: then it is made first, under
 * the nearest folder that exists, checked so. Throws a HubError that names the folder at fault
 * and the chmod that fixes it.
 */
async function strictFolder(file: string, folder: string, create: true): Promise<Stats>;
async function strictFolder(file: string, folder: string, create: false): Promise<Stats | null>;
async function strictFolder(file: string, folder: string, create: boolean): Promise<Stats | null> {
  const check = async (path: string): Promise<Stats | null> => {
    try {
      return await checkStrictFolders(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      if (error instanceof UnsafeFolderError) {
        throw new HubError(`pi settings ${file}: not written, so that no one can steer the write elsewhere: ${error.message}`, 'conflict');
      }
      throw fsError(file, 'check its folder', error);
    }
  };
  const found = await check(folder);
  if (found !== null || !create) return found;
  let existing = dirname(folder);
  while ((await check(existing)) === null) {
    if (existing === dirname(existing)) throw new HubError(`pi settings ${file}: cannot create its folder: nothing above it exists`, 'unavailable');
    existing = dirname(existing);
  }
  try {
    await mkdir(folder, { recursive: true, mode: NEW_DIR_MODE });
  } catch (error) {
    throw fsError(file, 'create its folder', error);
  }
  const made = await check(folder);
  if (made === null) throw new HubError(`pi settings ${file}: its folder ${folder} went away as Patchbay made it; try again`, 'conflict');
  return made;
}

/**
 * Where writes really go: through a symlinked settings file (dotfile managers) to its target,
 * but only through links the person (or root) owns.
 */
async function writeTarget(file: string): Promise<string> {
  try {
    return await followOwnedLinks(resolve(file));
  } catch (error) {
    if (error instanceof UntrustedLinkError) {
      throw new HubError(`pi settings ${file}: not written: ${error.message}, and Patchbay writes only through your own links; remove it, or set autoconnect where you own the file`, 'conflict');
    }
    throw fsError(file, 'resolve where it points', error);
  }
}

/** Seams for tests. */
export interface WriteHooks {
  /** Runs once the new text is in its temp file, before the file is read again to compare. */
  beforeCompare?: (target: string) => Promise<void>;
}

/** A write whose file keeps changing under it gives up after this many tries. */
const ATTEMPTS = 5;

async function applyAutoconnect(file: string, value: boolean | null, hooks: WriteHooks): Promise<void> {
  const target = await writeTarget(file);
  const folder = dirname(target);
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    // Nothing in a folder others can change is read or written (they could swap it as Patchbay works).
    const checked = await strictFolder(file, folder, false);
    const text = checked === null ? null : await readText(target, file);
    const next = editAutoconnect(file, text, value);
    if (next === null) return;
    let mode = NEW_FILE_MODE;
    try {
      if (text !== null) mode = (await stat(target)).mode & 0o7777;
    } catch (error) {
      throw fsError(file, 'read its mode', error);
    }
    if (text !== null && (mode & 0o200) === 0) {
      const octal = mode.toString(8).padStart(4, '0');
      throw new HubError(
        `pi settings ${file} is read-only (mode ${octal}); Patchbay leaves it as it is. Make it writable (chmod u+w ${target}) to change autoconnect there`,
        'conflict',
      );
    }
    // Another program (pi, an editor, the person) may have written the file since it was read:
    // compare just before the rename, and start over from their version if it changed.
    const committed = await replaceFile(file, folder, checked ?? (await strictFolder(file, folder, true)), target, next, mode, async () => {
      await hooks.beforeCompare?.(target);
      return (await readText(target, file)) === text;
    });
    if (committed) return;
  }
  throw new HubError(`pi settings ${file} kept changing while Patchbay wrote it (${ATTEMPTS} tries); nothing was written, try again`, 'conflict');
}

/** One queue per file: a write starts only after the previous one to that file has landed. */
const queues = new Map<string, Promise<void>>();

function serialized(key: string, task: () => Promise<void>): Promise<void> {
  const run = (queues.get(key) ?? Promise.resolve()).then(task);
  const settled = run.catch(() => undefined); // the caller of `run` gets the error; the queue moves on
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}

/**
 * Sets pi's autoconnect in `file` (null removes the key, and `"pi-ide"` with it when empty).
 * Refuses, leaving the file as it was, one that does not parse, is not a JSON object, or is
 * read-only; a change someone else made meanwhile is kept (the edit is made again on top).
 */
export function writeAutoconnect(file: string, value: boolean | null, hooks: WriteHooks = {}): Promise<void> {
  return serialized(resolve(file), () => applyAutoconnect(file, value, hooks));
}

/**
 * Sets autoconnect in the project's file (or the global one without a project) and returns
 * the new view. Both files must read before anything is written: a write that could not be
 * shown afterwards would change the project and then fail.
 */
export async function setAutoconnect(where: { globalFile: string; project?: string }, value: boolean | null): Promise<AutoconnectView> {
  await readAutoconnect(where);
  await writeAutoconnect(where.project === undefined ? where.globalFile : projectSettingsFile(where.project), value);
  return readAutoconnect(where);
}
