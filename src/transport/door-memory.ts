// The door's port and tokens, kept in `<home>/door.json` (0600, checked like every home file)
// for the next start: after a full stop and a new start agents find Patchbay where they found
// it, with the credential they hold. Claude Code retries the URL and token it first read, five
// times over ~15 s, then gives up (measured: with the port kept but a fresh token its retries
// got 401). The doors for editors' terminals are kept by the editor's pid, for as long as it runs.
import { join } from 'node:path';
import { z } from 'zod';
import { HOME_FILES } from '../fs/home-files.ts';
import { readPrivateFile, writePrivateFile } from '../fs/private-file.ts';

const token = z.string().regex(/^[0-9a-f]{64}$/);
const port = z.number().int().min(1).max(65535);

const memorySchema = z.object({
  version: z.literal(1),
  port,
  tokens: z.object({ pi: token, claude: token }),
  /** Editor pid → its terminals' door. */
  terminals: z.record(z.string().regex(/^\d+$/), z.object({ port, token })),
});

export type DoorMemory = Omit<z.infer<typeof memorySchema>, 'version'>;

const MAX_BYTES = 64 * 1024;

export function doorMemoryPath(home: string): string {
  return join(home, HOME_FILES.door);
}

/** What the last run kept, or null (none, or not usable: then it is said why, and new ones are made). */
export async function readDoorMemory(home: string, log: (message: string) => void): Promise<DoorMemory | null> {
  const path = doorMemoryPath(home);
  try {
    const read = await readPrivateFile(path, MAX_BYTES);
    if (read.kind === 'missing') return null;
    if (read.kind === 'unsafe') {
      log(`${path}: not used because ${read.why}; the door gets a new port and tokens`);
      return null;
    }
    const parsed = memorySchema.safeParse(JSON.parse(read.text));
    if (!parsed.success) {
      log(`${path}: ${parsed.error.issues[0]?.message ?? 'not a door record'}; the door gets a new port and tokens`);
      return null;
    }
    const { version: _version, ...memory } = parsed.data;
    return memory;
  } catch (err) {
    log(`${path} could not be read (${(err as Error).message}); the door gets a new port and tokens`);
    return null;
  }
}

export async function writeDoorMemory(home: string, memory: DoorMemory): Promise<void> {
  await writePrivateFile(doorMemoryPath(home), `${JSON.stringify({ version: 1, ...memory })}\n`);
}
