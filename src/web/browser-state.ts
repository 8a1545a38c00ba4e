// `<home>/browser.json` (0600): what lets a signed-in browser tab outlive the process that
// served it. The key signs browser sessions, so a restart keeps them valid (a new key signs
// everyone out: `patchbay open --revoke-all`); the port is the control server's last one,
// taken again when free, because a tab's sign-in belongs to its origin and so to that port.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { newToken } from '../transport/tokens.ts';
import { readPrivateFile, writePrivateFile } from '../fs/private-file.ts';
import { HOME_FILES } from '../fs/home-files.ts';

const stateSchema = z.object({
  signingKey: z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 hex digits'),
  controlPort: z.number().int().min(1).max(65535).nullable(),
});

export type BrowserState = z.infer<typeof stateSchema>;

const MAX_BYTES = 4096;

export function browserStatePath(home: string): string {
  return join(home, HOME_FILES.browser);
}

export async function saveBrowserState(home: string, state: BrowserState): Promise<void> {
  await writePrivateFile(browserStatePath(home), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * The stored state, or a fresh one (a new key, no port) saved in its place when there is none
 * or it cannot be trusted; `log` hears why an existing file was replaced.
 */
export async function loadBrowserState(home: string, log: (message: string) => void): Promise<BrowserState> {
  const path = browserStatePath(home);
  const read = await readPrivateFile(path, MAX_BYTES);
  if (read.kind === 'text') {
    let value: unknown = null;
    try {
      value = JSON.parse(read.text);
    } catch {
      // reported below with the schema's words
    }
    const parsed = stateSchema.safeParse(value);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `"${issue.path.join('.')}" ` : '';
    log(`${path}: ${where}${issue?.message ?? 'invalid'}; browsers must sign in again`);
  } else if (read.kind === 'unsafe') {
    log(`${path}: not used because ${read.why}; browsers must sign in again`);
  }
  const fresh: BrowserState = { signingKey: newToken(), controlPort: null };
  await saveBrowserState(home, fresh);
  return fresh;
}

/**
 * Saves a new signing key (which signs every browser out). When it cannot be saved (a full
 * disk), the old key is removed instead, so no later start accepts the old sign-ins: resolves
 * with null when the old key is gone from disk, else with what went wrong, for the person.
 */
export async function persistNewKey(home: string, state: BrowserState): Promise<string | null> {
  const path = browserStatePath(home);
  try {
    await saveBrowserState(home, state);
    return null;
  } catch (err) {
    const why = `the new key could not be saved in ${path} (${(err as Error).message})`;
    try {
      await rm(path, { force: true });
      return `${why}; the old key was removed, so the next start makes a new one`;
    } catch (rmErr) {
      return `${why}, nor the old key removed (${(rmErr as Error).message}): remove ${path} before Patchbay starts again, or it accepts the old sign-ins`;
    }
  }
}

/** Signs every browser out for the next start (nothing runs now); resolves like persistNewKey. */
export async function rotateSigningKey(home: string, log: (message: string) => void): Promise<string | null> {
  let current: BrowserState;
  try {
    current = await loadBrowserState(home, log);
  } catch {
    current = { signingKey: newToken(), controlPort: null };
  }
  return persistNewKey(home, { ...current, signingKey: newToken() });
}
