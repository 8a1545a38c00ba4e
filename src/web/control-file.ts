// `<home>/control.json`: where the running daemon's control server listens and its token.
// Written 0600 through a fresh temp file renamed into place, so a reader never sees half of it.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writePrivateFile } from './private-file.ts';

const controlFileSchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  pid: z.number().int().positive(),
  token: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits'),
  version: z.string(),
});

export type ControlFile = z.infer<typeof controlFileSchema>;

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
  const parsed = controlFileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `"${issue.path.join('.')}" ` : '';
    throw new Error(`control file ${path}: ${where}${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
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
