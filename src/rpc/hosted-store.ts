// Hosted pi sessions as Patchbay remembers them across restarts (DESIGN §9):
// `<home>/hosted-sessions.json`, a private file (0600, ours, written atomically), listing each
// session's id, folder, pi arguments, model and pi's session file, so a new Patchbay lists them
// as stopped and can start pi again on the same file. The arguments are checked again when a
// session is resumed, as at its start.
import { randomBytes } from 'node:crypto';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { readPrivateFile, writePrivateFile } from '../fs/private-file.ts';
import { HOME_FILES } from '../fs/home-files.ts';

export const HOSTED_FILE = HOME_FILES.hostedSessions;
/** Sessions remembered (the most recently started), and tool calls per session whose review is remembered. */
export const MAX_RECORDS = 200;
export const MAX_REVIEWS = 500;
const MAX_FILE_BYTES = 8 * 1024 * 1024;

const recordSchema = z.object({
  id: z.string().regex(/^pi-[0-9a-f]{8}$/),
  cwd: z.string().min(1),
  /** pi's arguments as given at the start (`--model` apart), without the ones that pick a session. */
  args: z.array(z.string()).max(100),
  model: z.string().nullable(),
  sessionFile: z.string().nullable(),
  sessionName: z.string().nullable(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
  exit: z.string().nullable(),
  /** toolCallId → the inbox diff its write or edit went to. */
  reviews: z.record(z.string(), z.string()),
});

export type HostedRecord = z.infer<typeof recordSchema>;

const fileSchema = z.object({ version: z.literal(1), sessions: z.array(recordSchema) });

export class HostedStore {
  private readonly records = new Map<string, HostedRecord>();
  private writes: Promise<void> = Promise.resolve();
  private dirty = false;

  private constructor(
    private readonly path: string,
    private readonly log: (message: string) => void,
    /** What the person should know: a file that could not be used, and where it went. */
    readonly warnings: string[],
  ) {}

  /** Reads the file; one that is missing is an empty list, one that cannot be used is set aside and said so. */
  static async open(home: string, log: (message: string) => void): Promise<HostedStore> {
    const path = join(home, HOSTED_FILE);
    const warnings: string[] = [];
    const store = new HostedStore(path, log, warnings);
    const read = await readPrivateFile(path, MAX_FILE_BYTES).catch((err: Error) => ({ kind: 'unsafe' as const, why: err.message }));
    if (read.kind === 'missing') return store;
    let problem: string;
    if (read.kind === 'unsafe') problem = read.why;
    else {
      try {
        const parsed = fileSchema.safeParse(JSON.parse(read.text));
        if (parsed.success) {
          for (const record of parsed.data.sessions) store.records.set(record.id, record);
          return store;
        }
        problem = parsed.error.issues[0]?.message ?? 'not a list of hosted sessions';
      } catch (err) {
        problem = (err as Error).message;
      }
    }
    // Unique: two bad files set aside within a millisecond must not overwrite each other.
    const aside = `${path}.unreadable-${Date.now()}-${randomBytes(3).toString('hex')}`;
    await rename(path, aside).catch(() => {});
    const message = `hosted pi sessions: ${path} could not be used (${problem}); moved to ${aside}, so no earlier session is listed`;
    log(message);
    warnings.push(message);
    return store;
  }

  /** Oldest first. */
  list(): HostedRecord[] {
    return [...this.records.values()].sort((a, b) => a.startedAt - b.startedAt);
  }

  put(record: HostedRecord): void {
    const reviews = Object.entries(record.reviews);
    this.records.set(record.id, reviews.length > MAX_REVIEWS ? { ...record, reviews: Object.fromEntries(reviews.slice(-MAX_REVIEWS)) } : record);
    const extra = this.list().slice(0, Math.max(0, this.records.size - MAX_RECORDS));
    for (const old of extra) this.records.delete(old.id);
    this.save();
  }

  remove(id: string): void {
    if (this.records.delete(id)) this.save();
  }

  /** Waits for the last write to land. */
  async close(): Promise<void> {
    await this.writes;
  }

  /** A burst of changes costs one write, of the latest list. */
  private save(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.writes = this.writes
      .then(async () => {
        this.dirty = false;
        await writePrivateFile(this.path, `${JSON.stringify({ version: 1, sessions: this.list() })}\n`);
      })
      .catch((err: Error) => this.log(`hosted pi sessions: could not write ${this.path}: ${err.message}`));
  }
}
