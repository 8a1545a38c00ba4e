// Which diffs are waiting, kept on disk (<home>/pending.json) so that a Patchbay that died with
// diffs pending (kill -9 of the daemon, power loss) can say on its next start what became of
// each edit (pi-ide writes the file itself when its link drops): crash-trace.ts compares the
// file with the proposal (held-diffs.ts keeps it) and with what it was at arrival (`original`).
// Only facts are kept here, never contents: nothing big is serialised on the way of an edit,
// and the file is written after the diff is offered. While diffs wait, `aliveAt` is refreshed
// every few seconds: a run that dies leaves when it was last known alive (the crash's time).
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
  /** The file holding the agent's request (the proposal), once written. */
  held: z.string().nullable().optional(),
  /** The target file at arrival: its size and mtime, or null when there was none. */
  original: z.object({ size: z.number(), mtimeMs: z.number() }).nullable().optional(),
  /** Sent by a pi Patchbay hosted (it dies with Patchbay: its edit is traced only if it was written). */
  hosted: z.boolean().optional(),
});
const fileSchema = z.object({ version: z.literal(1), aliveAt: z.number().optional(), pending: z.array(recordSchema) });

/** While diffs wait, the file says the run was alive at most this long ago. */
export const HEARTBEAT_MS = 5000;

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
  private heartbeat: NodeJS.Timeout | null = null;

  private constructor(
    home: string,
    private readonly log: (message: string) => void,
  ) {
    this.path = join(home, PENDING_FILE);
  }

  /**
   * The log, and what the last run left in it (diffs it never decided) with when it was last
   * known alive (null: it said nothing). An unreadable file is reported and counted as empty.
   */
  static async open(home: string, log: (message: string) => void): Promise<{ log: PendingLog; leftovers: PendingRecord[]; aliveAt: number | null }> {
    const pendingLog = new PendingLog(home, log);
    let leftovers: PendingRecord[] = [];
    let aliveAt: number | null = null;
    try {
      const parsed = fileSchema.safeParse(JSON.parse(await readFile(pendingLog.path, 'utf8')));
      if (parsed.success) {
        leftovers = parsed.data.pending;
        aliveAt = parsed.data.aliveAt ?? null;
      } else log(`${pendingLog.path}: not a list of pending diffs (${parsed.error.issues[0]?.message ?? 'unknown shape'}); ignored`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') log(`${pendingLog.path} could not be read: ${(err as Error).message}`);
    }
    return { log: pendingLog, leftovers, aliveAt };
  }

  add(record: PendingRecord): void {
    this.pending.set(record.id, record);
    this.schedule();
    this.beat();
  }

  /** Facts learnt after arrival (the held file, the original's size and time). */
  update(id: string, patch: Partial<Pick<PendingRecord, 'held' | 'original' | 'hosted'>>): void {
    const record = this.pending.get(id);
    if (!record) return;
    this.pending.set(id, { ...record, ...patch });
    this.schedule();
  }

  remove(id: string): void {
    if (this.pending.delete(id)) this.schedule();
    this.beat();
  }

  /** While diffs wait, the file is rewritten every HEARTBEAT_MS with the time: the last moment this run was known alive. */
  private beat(): void {
    if (this.pending.size === 0) {
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = null;
    } else if (!this.heartbeat) {
      this.heartbeat = setInterval(() => this.schedule(true), HEARTBEAT_MS);
      this.heartbeat.unref();
    }
  }

  /** Starts afresh (after the last run's leftovers were recorded). */
  clear(): void {
    this.pending.clear();
    this.schedule(true);
  }

  /** Waits for the file to say what is pending now. */
  async close(): Promise<void> {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = null;
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
        return writePrivateFile(this.path, `${JSON.stringify({ version: 1, aliveAt: Date.now(), pending: [...this.pending.values()] })}\n`);
      })
      .catch((err: Error) => this.log(`${this.path}: ${err.message}`));
  }
}
