// `<home>/control.json`: where the running daemon's control server listens and its token.
// Written 0600 through a fresh temp file renamed into place, so a reader never sees half of it;
// read only from a home of the user's own, only when it is still private, and only when it
// names a loopback address (anything else is someone else's server).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isObject } from '../api/json.ts';
import { checkHomeDir } from '../fs/home-check.ts';
import { readPrivateFile, writePrivateFile } from '../fs/private-file.ts';
import { HOME_FILES } from '../fs/home-files.ts';

export interface ControlFile {
  host: string;
  port: number;
  pid: number;
  token: string;
  version: string;
}

/**
 * Checked by hand: every `patchbay` command reads this file first, and loading a schema
 * library (zod/mini: ~7 ms of CPU) would cost a sixth of the command's own start-up.
 */
const FIELDS: { [K in keyof ControlFile]: [valid: (value: unknown) => boolean, problem: string] } = {
  host: [(v) => typeof v === 'string' && v !== '', 'must be a host name'],
  port: [(v) => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535, 'must be a port number'],
  pid: [(v) => Number.isInteger(v) && (v as number) > 0, 'must be a process id'],
  token: [(v) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v), 'must be 64 hex digits'],
  version: [(v) => typeof v === 'string', 'must be a string'],
};

/** 127.0.0.0/8 or ::1, written as an address: a name could resolve anywhere. */
export function isLoopbackAddress(host: string): boolean {
  const v4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (v4) return v4.slice(1).every((part) => Number(part) <= 255);
  return host === '::1' || host === '[::1]';
}

/** The known fields of a parsed control file, or an error naming the first bad one. */
function checkControlFile(value: unknown): ControlFile | string {
  if (!isObject(value)) return 'must be a JSON object';
  for (const [field, [valid, problem]] of Object.entries(FIELDS)) {
    if (!valid(value[field])) return `"${field}" ${problem}`;
  }
  const { host, port, pid, token, version } = value as unknown as ControlFile;
  if (!isLoopbackAddress(host)) return `"host" must be a loopback address (127.x.x.x or ::1), not ${JSON.stringify(host)}`;
  return { host, port, pid, token, version };
}

const MAX_BYTES = 4096;

export function controlFilePath(home: string): string {
  return join(home, HOME_FILES.control);
}

export async function writeControlFile(home: string, data: ControlFile): Promise<string> {
  const dest = controlFilePath(home);
  await writePrivateFile(dest, `${JSON.stringify(data, null, 2)}\n`);
  return dest;
}

/**
 * `null` when there is no file; throws naming the file when it is unreadable, malformed, or
 * could be someone else's (so is their server's address and token).
 */
export async function readControlFile(home: string): Promise<ControlFile | null> {
  const path = controlFilePath(home);
  await checkHomeDir(home, { create: false });
  let read;
  try {
    read = await readPrivateFile(path, MAX_BYTES);
  } catch (err) {
    throw new Error(`control file ${path}: ${(err as Error).message}`);
  }
  if (read.kind === 'missing') return null;
  if (read.kind === 'unsafe') {
    throw new Error(`control file ${path}: not used because ${read.why}; remove it (rm ${path}) if you did not make it`);
  }
  let value: unknown;
  try {
    value = JSON.parse(read.text);
  } catch (err) {
    throw new Error(`control file ${path}: not valid JSON (${(err as Error).message})`);
  }
  const checked = checkControlFile(value);
  if (typeof checked === 'string') throw new Error(`control file ${path}: ${checked}`);
  return checked;
}

/** Removes the file only while it is still ours: a newer daemon may have replaced it. */
export async function removeControlFile(home: string, token: string): Promise<void> {
  let current: ControlFile | null;
  try {
    current = await readControlFile(home);
  } catch {
    return; // not ours to judge: whoever wrote a malformed file owns it
  }
  if (current?.token === token) await rm(controlFilePath(home), { force: true });
}
