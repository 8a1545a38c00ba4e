// `<home>/control.json`: where the running daemon's control server listens and its token.
// Written 0600 through a fresh temp file renamed into place, so a reader never sees half of it.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isObject } from '../api/json.ts';
import { writePrivateFile } from '../fs/private-file.ts';

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

/** The known fields of a parsed control file, or an error naming the first bad one. */
function checkControlFile(value: unknown): ControlFile | string {
  if (!isObject(value)) return 'must be a JSON object';
  for (const [field, [valid, problem]] of Object.entries(FIELDS)) {
    if (!valid(value[field])) return `"${field}" ${problem}`;
  }
  const { host, port, pid, token, version } = value as unknown as ControlFile;
  return { host, port, pid, token, version };
}

export function controlFilePath(home: string): string {
  return join(home, 'control.json');
}

export async function writeControlFile(home: string, data: ControlFile): Promise<string> {
  const dest = controlFilePath(home);
  await writePrivateFile(dest, `${JSON.stringify(data, null, 2)}\n`);
  return dest;
}

/** `null` when there is no file; throws naming the file when it is unreadable or malformed. */
export async function readControlFile(home: string): Promise<ControlFile | null> {
  const path = controlFilePath(home);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`control file ${path}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
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
