// Which diffs are waiting, kept on disk (<home>/pending.json) so that a Patchbay that died with
// diffs pending (kill -9, a crash, power loss) can say on its next start which edits the agents
// may have written without review (pi-ide writes the file itself when its link drops).
// Only the facts are kept (id, session, agent, path, tab, time), never the contents: nothing
// big is serialised on the way of an edit, and the file is written after the diff is offered.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { DecisionRecord } from '../api/types.ts';
import { writePrivateFile } from '../fs/private-file.ts';
import { toolOf } from './inbox.ts';
import { HOME_FILES } from '../fs/home-files.ts';

export const PENDING_FILE = HOME_FILES.pending;

const recordSchema = z.object({
  id: z.string().regex(/^d\d+$/),
  sessionId: z.string(),
  agent: z.string(),
  path: z.string(),
  tabName: z.string(),
  createdAt: z.number(),
  editorId: z.string().nullable(),
});
const fileSchema = z.object({ version: z.literal(1), pending: z.array(recordSchema) });

export type PendingRecord = z.infer<typeof recordSchema>;

/** A pending diff a crash cut off, as the history lists it. */
export function interruptedRecord(pending: PendingRecord, at: number): DecisionRecord {
  return {
    id: pending.id,
    sessionId: pending.sessionId,
    path: pending.path,
    outcome: 'interrupted',
    status: 'interrupted',
    by: 'crash',
    at,
    edited: false,
    tool: toolOf(pending.tabName),
    editorId: pending.editorId,
    agent: pending.agent,
  };
}

export class PendingLog {
  private readonly pending = new Map<string, PendingRecord>();
  private writes: Promise<void> = Promise.resolve();
  private dirty = false;
  private readonly path: string;

  private constructor(
    home: string,
    private readonly log: (message: string) => void,
  ) {
    this.path = join(home, PENDING_FILE);
  }

  /** The log, and what the last run left in it (diffs it never decided). An unreadable file is reported and counted as empty. */
  static async open(home: string, log: (message: string) => void): Promise<{ log: PendingLog; leftovers: PendingRecord[] }> {
    const pendingLog = new PendingLog(home, log);
    let leftovers: PendingRecord[] = [];
    try {
      const parsed = fileSchema.safeParse(JSON.parse(await readFile(pendingLog.path, 'utf8')));
      if (parsed.success) leftovers = parsed.data.pending;
      else log(`${pendingLog.path}: not a list of pending diffs (${parsed.error.issues[0]?.message ?? 'unknown shape'}); ignored`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`${pendingLog.path} could not be read: ${(err as Error).message}`);
    }
    return { log: pendingLog, leftovers };
  }

  add(record: PendingRecord): void {
    this.pending.set(record.id, record);
    this.schedule();
  }

  remove(id: string): void {
    if (this.pending.delete(id)) this.schedule();
  }

  /** Starts afresh (after the last run's leftovers were recorded). */
  clear(): void {
    this.pending.clear();
    this.schedule(true);
  }

  /** Waits for the file to say what is pending now. */
  async close(): Promise<void> {
    await this.writes;
  }

  /** One write for a burst of changes, after the current tick (off the way of the agent's answer). */
  private schedule(force = false): void {
    if (this.dirty && !force) return;
    this.dirty = true;
    this.writes = this.writes
      .then(() => new Promise((resolve) => setImmediate(resolve)))
      .then(() => {
        this.dirty = false;
        return writePrivateFile(this.path, `${JSON.stringify({ version: 1, pending: [...this.pending.values()] })}\n`);
      })
      .catch((err: Error) => this.log(`${this.path}: ${err.message}`));
  }
}
